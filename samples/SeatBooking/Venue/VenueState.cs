namespace SeatBooking.Venue;

/// <summary>A seat's state. Whoever holds it (a cown, a lock, an actor) is the only one who touches it.</summary>
internal sealed class Seat(int number)
{
    public int Number { get; } = number;

    public long? BookingId { get; set; }

    public int? Customer { get; set; }

    public SeatView View() => new(Number, BookingId, Customer);
}

/// <summary>A customer's state: their money and their bookings.</summary>
internal sealed class Customer(int id, long balance)
{
    public int Id { get; } = id;

    public long Balance { get; set; } = balance;

    public Dictionary<long, int[]> Bookings { get; } = [];

    public CustomerView View() => new(Id, Balance, Bookings.ToDictionary(b => b.Key, b => (IReadOnlyList<int>)b.Value.ToArray()));
}

/// <summary>The rules, shared by the three implementations: they differ only in how they get hold of the state.</summary>
internal static class Rules
{
    /// <summary>
    /// Prices the request with <see cref="Price"/> (<paramref name="pricingMicroseconds"/>) while holding the customer and
    /// the seats, then books <paramref name="seats"/> for <paramref name="customer"/> if all are free and they can pay.
    /// </summary>
    public static BookingOutcome Book(Customer customer, IReadOnlyList<Seat> seats, long bookingId, long seatPrice, int pricingMicroseconds)
    {
        Price(pricingMicroseconds);
        foreach (Seat seat in seats)
        {
            if (seat.BookingId is not null)
            {
                return new BookingOutcome(BookingStatus.SeatTaken, TakenSeat: seat.Number);
            }
        }

        long price = seatPrice * seats.Count;
        if (customer.Balance < price)
        {
            return new BookingOutcome(BookingStatus.InsufficientFunds);
        }

        customer.Balance -= price;
        var numbers = new int[seats.Count];
        for (int i = 0; i < seats.Count; i++)
        {
            seats[i].BookingId = bookingId;
            seats[i].Customer = customer.Id;
            numbers[i] = seats[i].Number;
        }

        customer.Bookings.Add(bookingId, numbers);
        return new BookingOutcome(BookingStatus.Booked, bookingId, price);
    }

    /// <summary>
    /// The pricing a real venue runs inside a booking (demand, fees, offers): here <paramref name="microseconds"/> of
    /// CPU work (<see cref="VenueOptions.PricingMicroseconds"/>), so that the critical section is not only a few field
    /// writes. Spins on the clock rather than sleeping: the work occupies the thread that does it, as computing would.
    /// </summary>
    public static void Price(int microseconds)
    {
        if (microseconds <= 0)
        {
            return;
        }

        long end = System.Diagnostics.Stopwatch.GetTimestamp() + (microseconds * System.Diagnostics.Stopwatch.Frequency / 1_000_000);
        while (System.Diagnostics.Stopwatch.GetTimestamp() < end)
        {
            Thread.SpinWait(20);
        }
    }

    /// <summary>Cancels a booking whose seats are <paramref name="seats"/>; false if the customer has no such booking.</summary>
    public static bool Cancel(Customer customer, IReadOnlyList<Seat> seats, long bookingId, long seatPrice)
    {
        if (!customer.Bookings.Remove(bookingId))
        {
            return false;
        }

        foreach (Seat seat in seats)
        {
            if (seat.BookingId == bookingId)
            {
                seat.BookingId = null;
                seat.Customer = null;
            }
        }

        customer.Balance += seatPrice * seats.Count;
        return true;
    }

    /// <summary>Checks money and the agreement of seats and bookings over a snapshot of everything.</summary>
    public static Audit Check(IEnumerable<Customer> customers, IEnumerable<Seat> seats, VenueOptions venue, bool atomic)
    {
        var problems = new List<string>();
        var seatById = seats.ToDictionary(s => s.Number);
        long money = 0;
        int customerCount = 0;
        var claimed = new Dictionary<int, long>();
        foreach (Customer customer in customers)
        {
            customerCount++;
            money += customer.Balance;
            foreach ((long booking, int[] numbers) in customer.Bookings)
            {
                foreach (int number in numbers)
                {
                    if (!claimed.TryAdd(number, booking))
                    {
                        Note(problems, $"seat {number} is in bookings {claimed[number]} and {booking}");
                    }

                    if (seatById[number].BookingId != booking)
                    {
                        Note(problems, $"booking {booking} of customer {customer.Id} has seat {number}, which holds {seatById[number].BookingId?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "nothing"}");
                    }
                }
            }
        }

        int booked = 0;
        foreach (Seat seat in seatById.Values)
        {
            if (seat.BookingId is long id)
            {
                booked++;
                money += venue.SeatPrice;
                if (!claimed.TryGetValue(seat.Number, out long owner) || owner != id)
                {
                    Note(problems, $"seat {seat.Number} holds booking {id}, which no customer has");
                }
            }
        }

        return new Audit(money, customerCount * venue.InitialBalance, booked, problems, atomic);
    }

    private static void Note(List<string> problems, string problem)
    {
        if (problems.Count < 10)
        {
            problems.Add(problem);
        }
    }
}
