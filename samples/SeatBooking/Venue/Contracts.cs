using System.Text.Json.Serialization;

namespace SeatBooking.Venue;

/// <summary>A request to book several seats for one customer, all or nothing.</summary>
/// <param name="Customer">The customer who pays.</param>
/// <param name="Seats">The seats, each at most once.</param>
internal sealed record BookingRequest(int Customer, int[] Seats);

/// <summary>What a booking attempt did.</summary>
[JsonConverter(typeof(JsonStringEnumConverter<BookingStatus>))]
internal enum BookingStatus
{
    /// <summary>Every seat was free and the customer could pay: the seats are theirs.</summary>
    Booked,

    /// <summary>A seat was already booked; nothing changed.</summary>
    SeatTaken,

    /// <summary>The customer's balance was too low; nothing changed.</summary>
    InsufficientFunds,
}

/// <summary>The outcome of a booking attempt.</summary>
/// <param name="Status">What happened.</param>
/// <param name="BookingId">The new booking's id, when <see cref="BookingStatus.Booked"/>.</param>
/// <param name="Price">What the customer paid, when booked.</param>
/// <param name="TakenSeat">The first seat found taken, when <see cref="BookingStatus.SeatTaken"/>.</param>
internal sealed record BookingOutcome(BookingStatus Status, long BookingId = 0, long Price = 0, int TakenSeat = -1);

/// <summary>A seat as a query sees it.</summary>
/// <param name="Seat">The seat number.</param>
/// <param name="BookingId">The booking that holds it, or null if it is free.</param>
/// <param name="Customer">The customer who holds it, or null.</param>
internal sealed record SeatView(int Seat, long? BookingId, int? Customer);

/// <summary>A customer as a query sees them.</summary>
/// <param name="Customer">The customer's id.</param>
/// <param name="Balance">What they have left.</param>
/// <param name="Bookings">Their bookings and the seats of each.</param>
internal sealed record CustomerView(int Customer, long Balance, IReadOnlyDictionary<long, IReadOnlyList<int>> Bookings);

/// <summary>A check of the whole venue: money is conserved and seats and bookings agree.</summary>
/// <param name="TotalMoney">Every balance plus the price of every booked seat.</param>
/// <param name="ExpectedMoney">What the customers had at the start.</param>
/// <param name="SeatsBooked">How many seats are booked.</param>
/// <param name="Problems">Disagreements between seats and bookings (empty when consistent), at most a few.</param>
/// <param name="Atomic">Whether the implementation read the whole venue at one moment.</param>
internal sealed record Audit(long TotalMoney, long ExpectedMoney, int SeatsBooked, IReadOnlyList<string> Problems, bool Atomic)
{
    /// <summary>Gets whether money was conserved and seats and bookings agree.</summary>
    public bool Consistent => TotalMoney == ExpectedMoney && Problems.Count == 0;
}
