using Boc;

namespace SeatBooking.Venue;

/// <summary>
/// Every seat and every customer is a cown. A booking is one behaviour over the customer and all its seats, so it is
/// atomic without a lock and cannot deadlock with another booking, whatever seats the two share. Queries acquire their
/// cowns read-only, so they run alongside each other; the audit reads the whole venue at one moment. A booking or a
/// cancellation is bounded by a scope with the request's deadline and token: whatever it spawned has finished when it
/// answers, and if the client goes away or the deadline passes first, what it has not started is withdrawn (a booking
/// is one behaviour, so it happens whole or not at all).
/// </summary>
internal sealed class BocBookingService : IBookingService
{
    private readonly BocRuntime _runtime;
    private readonly VenueOptions _venue;
    private readonly Cown<Seat>[] _seats;
    private readonly Cown<Customer>[] _customers;
    private readonly IAcquirable<Seat>[] _seatsReadOnly;
    private readonly IAcquirable<object>[] _everythingReadOnly;
    private readonly TimeSpan _requestTimeout;
    private long _lastBookingId;

    public BocBookingService(BocRuntime runtime, VenueOptions venue)
    {
        _runtime = runtime;
        _venue = venue;
        _requestTimeout = venue.RequestTimeoutMilliseconds > 0 ? TimeSpan.FromMilliseconds(venue.RequestTimeoutMilliseconds) : Timeout.InfiniteTimeSpan;
        _seats = Enumerable.Range(0, venue.Seats).Select(n => new Cown<Seat>(new Seat(n))).ToArray();
        _customers = Enumerable.Range(0, venue.Customers).Select(id => new Cown<Customer>(new Customer(id, venue.InitialBalance))).ToArray();
        // Read-only requests are made once: a query passes a slice of them without copying.
        _seatsReadOnly = [.. _seats.Select(s => (IAcquirable<Seat>)Cown.Read(s))];
        // IAcquirable<out T> is covariant: seats and customers go into one read-only set of objects.
        _everythingReadOnly = [.. _customers.Select(c => (IAcquirable<object>)Cown.Read(c)), .. _seats.Select(s => (IAcquirable<object>)Cown.Read(s))];
    }

    public async Task<BookingOutcome> BookAsync(BookingRequest request, CancellationToken cancellationToken)
    {
        long id = Interlocked.Increment(ref _lastBookingId);
        IAcquirable<Seat>[] seats = SeatCowns(request.Seats);

        // The request's scope: its end waits for the booking, and the deadline or the client's going away withdraws the
        // booking if it has not started (the awaited result then fails, and the scope's end says why). A deadline that
        // passes while the booking runs still ends the scope with a TimeoutException, but the booking is one behaviour,
        // so its own result says whether it happened: if it did, that is the answer.
        BookingOutcome? outcome = null;
        try
        {
            await using (_runtime.BeginScope(_requestTimeout, cancellationToken))
            {
                outcome = await _runtime.WhenAsync(
                    _customers[request.Customer], seats,
                    static (customer, seats, state) => Rules.Book(customer, seats, state.id, state.price, state.pricing),
                    (id, price: _venue.SeatPrice, pricing: _venue.PricingMicroseconds));
            }
        }
        catch (TimeoutException) when (outcome is not null)
        {
        }

        return outcome!;
    }

    public async Task<bool> CancelAsync(int customer, long bookingId, CancellationToken cancellationToken)
    {
        // Two steps in one scope: the deadline covers both, and withdraws the second if the first took it all. As for a
        // booking, the second step's own result is the answer if it ran, whatever the scope's end says.
        bool? canceled = null;
        try
        {
            await using (_runtime.BeginScope(_requestTimeout, cancellationToken))
            {
                // Which seats? Read it first; the cancel itself checks again, holding the customer and those seats.
                int[]? numbers = await _runtime.WhenAsync(
                    Cown.Read(_customers[customer]),
                    static (c, id) => c.Bookings.TryGetValue(id, out int[]? seats) ? seats.ToArray() : null,
                    bookingId);
                if (numbers is null)
                {
                    return false;
                }

                canceled = await _runtime.WhenAsync(
                    _customers[customer], SeatCowns(numbers),
                    static (c, seats, state) => Rules.Cancel(c, seats, state.bookingId, state.price),
                    (bookingId, price: _venue.SeatPrice));
            }
        }
        catch (TimeoutException) when (canceled is not null)
        {
        }

        return canceled!.Value;
    }

    public Task<IReadOnlyList<SeatView>> GetSeatsAsync(int first, int count)
    {
        // The runtime copies the set before it returns, so the slice need not outlive the call.
        var seats = new ArraySegment<IAcquirable<Seat>>(_seatsReadOnly, first, count);
        return _runtime.WhenAsync(seats, static states =>
        {
            var views = new SeatView[states.Count];
            for (int i = 0; i < views.Length; i++)
            {
                views[i] = states[i].View();
            }

            return (IReadOnlyList<SeatView>)views;
        }).AsTask();
    }

    public Task<CustomerView> GetCustomerAsync(int customer) =>
        _runtime.WhenAsync(Cown.Read(_customers[customer]), static c => c.View()).AsTask();

    public Task<Audit> AuditAsync() =>
        _runtime.WhenAsync(
            _everythingReadOnly,
            static (states, venue) => Rules.Check(states.OfType<Customer>(), states.OfType<Seat>(), venue, atomic: true),
            _venue).AsTask();

    private IAcquirable<Seat>[] SeatCowns(int[] numbers)
    {
        var cowns = new IAcquirable<Seat>[numbers.Length];
        for (int i = 0; i < numbers.Length; i++)
        {
            cowns[i] = _seats[numbers[i]];
        }

        return cowns;
    }
}
