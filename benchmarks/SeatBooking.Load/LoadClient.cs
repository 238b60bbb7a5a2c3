using System.Diagnostics;
using System.Net;
using System.Net.Http.Json;
using SeatBooking.Venue;

namespace SeatBooking.Load;

/// <summary>
/// One client: 50% bookings of 1-4 seats, 20% cancellations of its own bookings, 30% 10-seat queries. In contended
/// mode a booking takes its seats from the hot set (the first <see cref="LoadOptions.HotSeats"/> seats) with
/// probability <see cref="LoadOptions.HotShare"/>%.
/// </summary>
internal sealed class LoadClient(HttpClient http, VenueOptions venue, LoadOptions options, Random random, Stopwatch clock, MeasurementWindow window)
{
    private readonly List<(int Customer, long Id)> _mine = [];

    public List<long> Latencies { get; } = new(100_000);

    /// <summary>Gets the latencies (clock ticks) of the measured requests the service answered 503: past their deadline.</summary>
    public List<long> TimedOut { get; } = [];

    public long Booked { get; private set; }

    public long Refused { get; private set; }

    /// <summary>Gets how many responses had a status the service never gives to a well-formed request.</summary>
    public long Errors { get; private set; }

    public async Task RunAsync()
    {
        while (true)
        {
            // One read per request: the window is set once, when the warm-up ends.
            (long measureFrom, long measureTo) = window.Bounds;
            long start = clock.ElapsedTicks;
            if (start >= measureTo)
            {
                return;
            }

            HttpStatusCode status = await OneRequestAsync();
            long end = clock.ElapsedTicks;
            bool timedOut = status == HttpStatusCode.ServiceUnavailable && options.DeadlineMilliseconds > 0;
            if (start >= measureFrom && end <= measureTo)
            {
                Latencies.Add(end - start);
                if (timedOut)
                {
                    TimedOut.Add(end - start);
                }
            }

            if (!timedOut && status is not (HttpStatusCode.OK or HttpStatusCode.Created or HttpStatusCode.NoContent or HttpStatusCode.Conflict))
            {
                Errors++;
            }
        }
    }

    private async Task<HttpStatusCode> OneRequestAsync()
    {
        int roll = random.Next(100);
        if (roll < 20 && _mine.Count > 0)
        {
            int pick = random.Next(_mine.Count);
            (int customer, long id) = _mine[pick];
            _mine.RemoveAt(pick);
            using HttpResponseMessage cancel = await http.DeleteAsync($"/customers/{customer}/bookings/{id}");
            if (cancel.StatusCode == HttpStatusCode.ServiceUnavailable)
            {
                // Past its deadline, and not done (the service answers with the cancellation's result if it ran).
                _mine.Add((customer, id));
                return cancel.StatusCode;
            }

            // Its own booking, made by this client and cancelled once: the service must find it.
            return cancel.StatusCode == HttpStatusCode.NoContent ? cancel.StatusCode : HttpStatusCode.InternalServerError;
        }

        if (roll < 50)
        {
            using HttpResponseMessage seats = await http.GetAsync($"/seats?first={random.Next(venue.Seats - 10)}&count=10");
            await seats.Content.LoadIntoBufferAsync();
            return seats.StatusCode;
        }

        int count = random.Next(1, 5);
        int range = options.Contended && random.Next(100) < options.HotShare ? options.HotSeats : venue.Seats;
        var numbers = new HashSet<int>();
        while (numbers.Count < count)
        {
            numbers.Add(random.Next(range));
        }

        var request = new BookingRequest(random.Next(venue.Customers), [.. numbers]);
        using HttpResponseMessage response = await http.PostAsJsonAsync("/bookings", request);
        if (response.StatusCode == HttpStatusCode.Created)
        {
            Booked++;
            BookingOutcome outcome = (await response.Content.ReadFromJsonAsync<BookingOutcome>())!;
            _mine.Add((request.Customer, outcome.BookingId));
        }
        else if (response.StatusCode == HttpStatusCode.Conflict)
        {
            Refused++;
        }

        return response.StatusCode;
    }
}

/// <summary>When latencies count (clock ticks, from and to): open-ended while the warm-up lasts, then fixed once.</summary>
internal sealed class MeasurementWindow
{
    // One reference, so that a reader never sees the start of one window with the end of another.
    private volatile Ticks _bounds = new(long.MaxValue, long.MaxValue);

    public (long From, long To) Bounds
    {
        get
        {
            Ticks bounds = _bounds;
            return (bounds.From, bounds.To);
        }
    }

    /// <summary>Ends the warm-up: requests that start at <paramref name="from"/> or later and end by <paramref name="to"/> count.</summary>
    public void Open(long from, long to) => _bounds = new Ticks(from, to);

    private sealed record Ticks(long From, long To);
}
