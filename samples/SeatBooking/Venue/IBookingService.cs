namespace SeatBooking.Venue;

/// <summary>
/// The venue's operations. Three implementations keep the same state with different concurrency: cowns
/// (<see cref="BocBookingService"/>), ordered locks (<see cref="LockBookingService"/>) and one Channel actor per seat
/// and customer (<see cref="ChannelActorBookingService"/>). Requests are validated before they get here.
/// </summary>
internal interface IBookingService
{
    /// <summary>Books every seat of the request for its customer, or none of them.</summary>
    Task<BookingOutcome> BookAsync(BookingRequest request);

    /// <summary>Cancels a booking of a customer: frees its seats and refunds it. False if there is no such booking.</summary>
    Task<bool> CancelAsync(int customer, long bookingId);

    /// <summary>Reads the seats from <paramref name="first"/>, <paramref name="count"/> of them.</summary>
    Task<IReadOnlyList<SeatView>> GetSeatsAsync(int first, int count);

    /// <summary>Reads a customer.</summary>
    Task<CustomerView> GetCustomerAsync(int customer);

    /// <summary>Checks the whole venue.</summary>
    Task<Audit> AuditAsync();
}
