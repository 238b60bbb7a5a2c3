namespace SeatBooking.Venue;

/// <summary>
/// The same venue with a lock per seat and per customer. A booking takes the customer's lock, then its seats' locks in
/// ascending seat order: the global order is what keeps two bookings that share seats from deadlocking, and every
/// code path must follow it by hand (Boc's <c>When</c> does this for every behaviour). Queries take the same locks,
/// so readers exclude each other too.
/// </summary>
internal sealed class LockBookingService : IBookingService
{
    private readonly VenueOptions _venue;
    private readonly Seat[] _seats;
    private readonly Customer[] _customers;
    private long _lastBookingId;

    public LockBookingService(VenueOptions venue)
    {
        _venue = venue;
        _seats = Enumerable.Range(0, venue.Seats).Select(n => new Seat(n)).ToArray();
        _customers = Enumerable.Range(0, venue.Customers).Select(id => new Customer(id, venue.InitialBalance)).ToArray();
    }

    public Task<BookingOutcome> BookAsync(BookingRequest request, CancellationToken cancellationToken)
    {
        long id = Interlocked.Increment(ref _lastBookingId);
        Customer customer = _customers[request.Customer];
        Seat[] seats = request.Seats.Select(n => _seats[n]).ToArray();
        lock (customer)
        {
            using (LockInOrder(seats))
            {
                return Task.FromResult(Rules.Book(customer, seats, id, _venue.SeatPrice, _venue.PricingMicroseconds));
            }
        }
    }

    public Task<bool> CancelAsync(int customer, long bookingId, CancellationToken cancellationToken)
    {
        Customer c = _customers[customer];
        int[]? numbers;
        lock (c)
        {
            numbers = c.Bookings.TryGetValue(bookingId, out int[]? seats) ? seats : null;
            if (numbers is null)
            {
                return Task.FromResult(false);
            }

            // The customer's lock is held, and seat locks are always taken after a customer's: the order holds.
            Seat[] held = numbers.Select(n => _seats[n]).ToArray();
            using (LockInOrder(held))
            {
                return Task.FromResult(Rules.Cancel(c, held, bookingId, _venue.SeatPrice));
            }
        }
    }

    public Task<IReadOnlyList<SeatView>> GetSeatsAsync(int first, int count)
    {
        Seat[] seats = _seats.AsSpan(first, count).ToArray();
        using (LockInOrder(seats))
        {
            var views = new SeatView[seats.Length];
            for (int i = 0; i < views.Length; i++)
            {
                views[i] = seats[i].View();
            }

            return Task.FromResult<IReadOnlyList<SeatView>>(views);
        }
    }

    public Task<CustomerView> GetCustomerAsync(int customer)
    {
        Customer c = _customers[customer];
        lock (c)
        {
            return Task.FromResult(c.View());
        }
    }

    public Task<Audit> AuditAsync()
    {
        // Customers first, then seats, each in ascending order: the same global order as bookings.
        using (LockInOrder(_customers))
        using (LockInOrder(_seats))
        {
            return Task.FromResult(Rules.Check(_customers, _seats, _venue, atomic: true));
        }
    }

    /// <summary>Enters the monitors of <paramref name="seats"/> in ascending seat order; the result exits them.</summary>
    private static Held LockInOrder(IEnumerable<Seat> seats) => Enter(seats.OrderBy(s => s.Number).ToArray());

    /// <summary>Enters the monitors of <paramref name="customers"/>, which are in ascending id order already.</summary>
    private static Held LockInOrder(Customer[] customers) => Enter(customers);

    private static Held Enter(object[] ordered)
    {
        int entered = 0;
        try
        {
            foreach (object item in ordered)
            {
                Monitor.Enter(item);
                entered++;
            }
        }
        catch
        {
            Exit(ordered, entered);
            throw;
        }

        return new Held(ordered);
    }

    private static void Exit(object[] items, int count)
    {
        for (int i = count - 1; i >= 0; i--)
        {
            Monitor.Exit(items[i]);
        }
    }

    private readonly struct Held(object[] items) : IDisposable
    {
        public void Dispose() => Exit(items, items.Length);
    }
}
