namespace SeatBooking.Venue;

/// <summary>
/// The same venue with one Channel actor per seat and per customer. No actor can act on two resources at once, so a
/// booking that must take several seats and charge a customer needs a protocol across actors: hold each seat, charge
/// the customer, then confirm the seats, undoing the holds if any step fails. Queries ask each actor in turn, so a
/// view of several seats, or the audit, is not taken at one moment: a booking can be half done in it.
/// </summary>
internal sealed class ChannelActorBookingService : IBookingService
{
    private readonly VenueOptions _venue;
    private readonly ChannelActor<ActorSeat>[] _seats;
    private readonly ChannelActor<Customer>[] _customers;
    private long _lastBookingId;

    public ChannelActorBookingService(VenueOptions venue)
    {
        _venue = venue;
        _seats = Enumerable.Range(0, venue.Seats).Select(n => new ChannelActor<ActorSeat>(new ActorSeat(n))).ToArray();
        _customers = Enumerable.Range(0, venue.Customers).Select(id => new ChannelActor<Customer>(new Customer(id, venue.InitialBalance))).ToArray();
    }

    public async Task<BookingOutcome> BookAsync(BookingRequest request, CancellationToken cancellationToken)
    {
        long id = Interlocked.Increment(ref _lastBookingId);

        // Every attempt is priced, as the other versions do inside their booking; here inside the customer's actor.
        int pricing = _venue.PricingMicroseconds;
        if (pricing > 0)
        {
            await _customers[request.Customer].Ask(_ =>
            {
                Rules.Price(pricing);
                return true;
            });
        }

        // Phase 1: hold every seat (a seat that is booked or held by another booking refuses).
        bool[] held = await Task.WhenAll(request.Seats.Select(n => _seats[n].Ask(s => s.TryHold(id))));
        int refused = Array.IndexOf(held, false);
        if (refused >= 0)
        {
            await ReleaseAsync(request.Seats.Where((_, i) => held[i]), id);
            return new BookingOutcome(BookingStatus.SeatTaken, TakenSeat: request.Seats[refused]);
        }

        // Phase 2: charge the customer and record the booking.
        long price = _venue.SeatPrice * request.Seats.Length;
        int[] numbers = request.Seats.ToArray();
        bool paid = await _customers[request.Customer].Ask(c =>
        {
            if (c.Balance < price)
            {
                return false;
            }

            c.Balance -= price;
            c.Bookings.Add(id, numbers);
            return true;
        });
        if (!paid)
        {
            await ReleaseAsync(request.Seats, id);
            return new BookingOutcome(BookingStatus.InsufficientFunds);
        }

        // Phase 3: the held seats become booked.
        int customer = request.Customer;
        await Task.WhenAll(request.Seats.Select(n => _seats[n].Ask(s => s.Confirm(id, customer))));
        return new BookingOutcome(BookingStatus.Booked, id, price);
    }

    public async Task<bool> CancelAsync(int customer, long bookingId, CancellationToken cancellationToken)
    {
        long seatPrice = _venue.SeatPrice;
        int[]? numbers = await _customers[customer].Ask(c =>
        {
            if (!c.Bookings.Remove(bookingId, out int[]? seats))
            {
                return null;
            }

            c.Balance += seatPrice * seats.Length;
            return seats;
        });
        if (numbers is null)
        {
            return false;
        }

        await Task.WhenAll(numbers.Select(n => _seats[n].Ask(s => s.Free(bookingId))));
        return true;
    }

    public async Task<IReadOnlyList<SeatView>> GetSeatsAsync(int first, int count) =>
        await Task.WhenAll(Enumerable.Range(first, count).Select(n => _seats[n].Ask(s => s.View())));

    public Task<CustomerView> GetCustomerAsync(int customer) => _customers[customer].Ask(c => c.View());

    public async Task<Audit> AuditAsync()
    {
        // Not one moment: each actor answers when it gets to the message.
        CustomerView[] customers = await Task.WhenAll(_customers.Select(a => a.Ask(c => c.View())));
        SeatView[] seats = await Task.WhenAll(_seats.Select(a => a.Ask(s => s.View())));
        return Rules.Check(
            customers.Select(v => Restore(v)),
            seats.Select(v => new Seat(v.Seat) { BookingId = v.BookingId, Customer = v.Customer }),
            _venue,
            atomic: false);
    }

    private static Customer Restore(CustomerView view)
    {
        var customer = new Customer(view.Customer, view.Balance);
        foreach ((long id, IReadOnlyList<int> seats) in view.Bookings)
        {
            customer.Bookings.Add(id, [.. seats]);
        }

        return customer;
    }

    private async Task ReleaseAsync(IEnumerable<int> seats, long bookingId) =>
        await Task.WhenAll(seats.Select(n => _seats[n].Ask(s => s.Free(bookingId))));

    /// <summary>A seat actor's state: free, held by a booking in progress, or booked.</summary>
    private sealed class ActorSeat(int number)
    {
        private long? _heldBy;
        private long? _bookedBy;
        private int? _customer;

        public bool TryHold(long bookingId)
        {
            if (_heldBy is not null || _bookedBy is not null)
            {
                return false;
            }

            _heldBy = bookingId;
            return true;
        }

        public bool Confirm(long bookingId, int customer)
        {
            if (_heldBy != bookingId)
            {
                return false;
            }

            _heldBy = null;
            _bookedBy = bookingId;
            _customer = customer;
            return true;
        }

        public bool Free(long bookingId)
        {
            if (_heldBy == bookingId)
            {
                _heldBy = null;
                return true;
            }

            if (_bookedBy == bookingId)
            {
                _bookedBy = null;
                _customer = null;
                return true;
            }

            return false;
        }

        // A held seat is shown as free: the booking that holds it may still fail.
        public SeatView View() => new(number, _bookedBy, _customer);
    }
}
