using System.Collections.Concurrent;
using System.Net;
using System.Net.Http.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using SeatBooking;
using SeatBooking.Venue;
using Xunit.Abstractions;

namespace Samples.Tests;

/// <summary>
/// Drives the seat-booking sample over real HTTP (Kestrel on a loopback port) with concurrent, seeded clients, and checks
/// the venue against an oracle built from the responses: no seat in two live bookings, every balance exactly what the
/// customer's live bookings cost, seats and bookings agreeing, money conserved. The implementations that claim an atomic
/// audit (Boc, locks) are also audited while the clients run.
/// </summary>
public sealed class SeatBookingServiceTests(ITestOutputHelper output)
{
    private const int Seats = 60;
    private const int Customers = 12;
    private const long SeatPrice = 10;
    private const long InitialBalance = 300;
    private const int MaxSeatsPerBooking = 4;
    private const int Clients = 8;
    private const int OperationsPerClient = 150;
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(120);

    public static TheoryData<string> Implementations() => new() { "boc", "lock", "channel" };

    [Theory]
    [MemberData(nameof(Implementations))]
    public async Task Concurrent_clients_never_double_book_and_money_is_conserved(string implementation)
    {
        int seed = Environment.GetEnvironmentVariable("BOC_SAMPLE_SEED") is { } s ? int.Parse(s, System.Globalization.CultureInfo.InvariantCulture) : 14_2026;
        await using Service service = await Service.StartAsync(implementation);
        var live = new ConcurrentDictionary<long, (int Customer, int[] Seats)>();
        var violations = new ConcurrentQueue<string>();
        using var stop = new CancellationTokenSource();

        // Boc's audit is one read-only behaviour over every cown, and the lock version takes every lock: both see one
        // moment, so even under load the venue must add up. The actor version asks actor by actor and cannot.
        Task<int> auditor = Task.Run(async () =>
        {
            int audits = 0;
            while (!stop.IsCancellationRequested)
            {
                Audit audit = (await service.Http.GetFromJsonAsync<Audit>("/audit"))!;
                audits++;
                Assert.Equal(implementation != "channel", audit.Atomic);
                if (audit.Atomic && !audit.Consistent)
                {
                    violations.Enqueue($"audit under load: {audit.TotalMoney}/{audit.ExpectedMoney}, {string.Join("; ", audit.Problems)}");
                }
            }

            return audits;
        });

        await Task.WhenAll(Enumerable.Range(0, Clients).Select(c => Task.Run(() => ClientAsync(service.Http, new Random(seed + c), live, violations))))
            .WaitAsync(Limit);
        await stop.CancelAsync();
        int auditsUnderLoad = await auditor.WaitAsync(Limit);

        // The final state against the oracle.
        var seatsOf = live.SelectMany(b => b.Value.Seats.Select(seat => (seat, booking: b.Key, b.Value.Customer))).ToList();
        foreach (var twice in seatsOf.GroupBy(x => x.seat).Where(g => g.Count() > 1))
        {
            violations.Enqueue($"seat {twice.Key} is in live bookings {string.Join(", ", twice.Select(x => x.booking))}");
        }

        var expectedSeat = seatsOf.GroupBy(x => x.seat).ToDictionary(g => g.Key, g => g.First());
        for (int first = 0; first < Seats; first += 20)
        {
            foreach (SeatView seat in (await service.Http.GetFromJsonAsync<SeatView[]>($"/seats?first={first}&count=20"))!)
            {
                bool booked = expectedSeat.TryGetValue(seat.Seat, out var expected);
                if (seat.BookingId != (booked ? expected.booking : null) || seat.Customer != (booked ? expected.Customer : null))
                {
                    violations.Enqueue($"seat {seat.Seat}: server has booking {seat.BookingId} of {seat.Customer}, the clients hold {(booked ? expected.booking : null)}");
                }
            }
        }

        for (int c = 0; c < Customers; c++)
        {
            CustomerView customer = (await service.Http.GetFromJsonAsync<CustomerView>($"/customers/{c}"))!;
            var mine = live.Where(b => b.Value.Customer == c).ToDictionary(b => b.Key, b => b.Value.Seats);
            long expectedBalance = InitialBalance - SeatPrice * mine.Values.Sum(seats => seats.Length);
            if (customer.Balance != expectedBalance || !customer.Bookings.Keys.Order().SequenceEqual(mine.Keys.Order()))
            {
                violations.Enqueue($"customer {c}: balance {customer.Balance}, expected {expectedBalance}; bookings {string.Join(",", customer.Bookings.Keys)} vs {string.Join(",", mine.Keys)}");
            }
        }

        Audit final = (await service.Http.GetFromJsonAsync<Audit>("/audit"))!;
        if (!final.Consistent || final.SeatsBooked != expectedSeat.Count)
        {
            violations.Enqueue($"final audit: {final.TotalMoney}/{final.ExpectedMoney}, {final.SeatsBooked} seats booked (clients hold {expectedSeat.Count}), {string.Join("; ", final.Problems)}");
        }

        output.WriteLine($"{implementation}: seed {seed}, {live.Count} live bookings, {auditsUnderLoad} audits under load");
        Assert.True(violations.IsEmpty, $"{implementation}, seed {seed} (rerun with BOC_SAMPLE_SEED={seed}):\n" + string.Join("\n", violations.Take(20)));
        Assert.False(live.IsEmpty, "no booking succeeded: the test exercised nothing");
    }

    [Theory]
    [MemberData(nameof(Implementations))]
    public async Task Bad_requests_are_refused_before_anything_changes(string implementation)
    {
        await using Service service = await Service.StartAsync(implementation);
        (string Body, HttpStatusCode Expected)[] bad =
        [
            ("""{"customer":99,"seats":[1]}""", HttpStatusCode.NotFound),
            ("""{"customer":1,"seats":[]}""", HttpStatusCode.BadRequest),
            ("""{"customer":1,"seats":[2,2]}""", HttpStatusCode.BadRequest),
            ("""{"customer":1,"seats":[1,2,3,4,5]}""", HttpStatusCode.BadRequest),
            ("""{"customer":1,"seats":[-1]}""", HttpStatusCode.BadRequest),
            ($$"""{"customer":1,"seats":[{{Seats}}]}""", HttpStatusCode.BadRequest),
        ];
        foreach ((string body, HttpStatusCode expected) in bad)
        {
            using var content = new StringContent(body, System.Text.Encoding.UTF8, "application/json");
            using HttpResponseMessage response = await service.Http.PostAsync("/bookings", content);
            Assert.True(expected == response.StatusCode, $"{body}: {response.StatusCode}");
        }

        Assert.Equal(HttpStatusCode.NotFound, (await service.Http.DeleteAsync("/customers/1/bookings/12345")).StatusCode);
        Assert.Equal(HttpStatusCode.BadRequest, (await service.Http.GetAsync("/seats?first=0&count=1000")).StatusCode);
        Audit audit = (await service.Http.GetFromJsonAsync<Audit>("/audit"))!;
        Assert.True(audit.Consistent);
        Assert.Equal(0, audit.SeatsBooked);
        Assert.Equal(Customers * InitialBalance, audit.TotalMoney);
    }

    [Fact]
    public async Task A_booking_a_customer_cannot_pay_for_changes_nothing()
    {
        await using Service service = await Service.StartAsync("boc");
        // 300 buys 30 seats: seven bookings of four, then one of four more is refused whole.
        for (int i = 0; i < 7; i++)
        {
            Assert.Equal(HttpStatusCode.Created, (await service.Http.PostAsJsonAsync("/bookings", new BookingRequest(3, [.. Enumerable.Range(i * 4, 4)]))).StatusCode);
        }

        using HttpResponseMessage refused = await service.Http.PostAsJsonAsync("/bookings", new BookingRequest(3, [40, 41, 42, 43]));
        Assert.Equal(HttpStatusCode.Conflict, refused.StatusCode);
        Assert.Equal(BookingStatus.InsufficientFunds, (await refused.Content.ReadFromJsonAsync<BookingOutcome>())!.Status);
        SeatView[] seats = (await service.Http.GetFromJsonAsync<SeatView[]>("/seats?first=40&count=4"))!;
        Assert.All(seats, s => Assert.Null(s.BookingId));
        Assert.Equal(20, (await service.Http.GetFromJsonAsync<CustomerView>("/customers/3"))!.Balance);
    }

    /// <summary>One client: books, cancels its own bookings, reads, and sends some bad requests, at random.</summary>
    private static async Task ClientAsync(HttpClient http, Random random, ConcurrentDictionary<long, (int Customer, int[] Seats)> live, ConcurrentQueue<string> violations)
    {
        var mine = new List<long>();
        for (int op = 0; op < OperationsPerClient; op++)
        {
            int roll = random.Next(100);
            if (roll < 55)
            {
                // Hot seats: most bookings compete for the first 24.
                int range = random.Next(4) == 0 ? Seats : 24;
                int[] seats = Enumerable.Range(0, range).OrderBy(_ => random.Next()).Take(random.Next(1, MaxSeatsPerBooking + 1)).ToArray();
                var request = new BookingRequest(random.Next(Customers), seats);
                using HttpResponseMessage response = await http.PostAsJsonAsync("/bookings", request);
                BookingOutcome outcome = (await response.Content.ReadFromJsonAsync<BookingOutcome>())!;
                if (response.StatusCode == HttpStatusCode.Created)
                {
                    Assert.Equal(BookingStatus.Booked, outcome.Status);
                    Assert.Equal(SeatPrice * seats.Length, outcome.Price);
                    Assert.True(live.TryAdd(outcome.BookingId, (request.Customer, seats)), $"booking id {outcome.BookingId} given twice");
                    mine.Add(outcome.BookingId);
                }
                else
                {
                    Assert.Equal(HttpStatusCode.Conflict, response.StatusCode);
                    if (outcome.Status == BookingStatus.SeatTaken && !seats.Contains(outcome.TakenSeat))
                    {
                        violations.Enqueue($"refused for seat {outcome.TakenSeat}, which was not requested");
                    }
                }
            }
            else if (roll < 80 && mine.Count > 0)
            {
                int pick = random.Next(mine.Count);
                long id = mine[pick];
                mine.RemoveAt(pick);
                int customer = live[id].Customer;
                using HttpResponseMessage response = await http.DeleteAsync($"/customers/{customer}/bookings/{id}");
                if (response.StatusCode != HttpStatusCode.NoContent)
                {
                    violations.Enqueue($"cancelling live booking {id} of customer {customer}: {response.StatusCode}");
                }

                live.TryRemove(id, out _);
            }
            else if (roll < 95)
            {
                int first = random.Next(Seats - 10);
                SeatView[] seats = (await http.GetFromJsonAsync<SeatView[]>($"/seats?first={first}&count=10"))!;
                Assert.Equal(Enumerable.Range(first, 10), seats.Select(s => s.Seat));
            }
            else
            {
                using HttpResponseMessage response = await http.PostAsJsonAsync("/bookings", new BookingRequest(random.Next(Customers), [1, 1]));
                Assert.Equal(HttpStatusCode.BadRequest, response.StatusCode);
            }
        }
    }

    /// <summary>The sample on Kestrel, on a free loopback port, with a small venue that makes clients collide.</summary>
    private sealed class Service : IAsyncDisposable
    {
        private readonly WebApplication _app;

        private Service(WebApplication app, HttpClient http)
        {
            _app = app;
            Http = http;
        }

        public HttpClient Http { get; }

        public static async Task<Service> StartAsync(string implementation)
        {
            WebApplication app = SeatBookingApp.Create(
            [
                "--urls", "http://127.0.0.1:0",
                "--Venue:Implementation", implementation,
                "--Venue:Seats", $"{Seats}",
                "--Venue:Customers", $"{Customers}",
                "--Venue:SeatPrice", $"{SeatPrice}",
                "--Venue:InitialBalance", $"{InitialBalance}",
                "--Venue:MaxSeatsPerBooking", $"{MaxSeatsPerBooking}",
                "--Logging:LogLevel:Default", "Warning",
            ]);
            await app.StartAsync().WaitAsync(Limit);
            string address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.Single();
            return new Service(app, new HttpClient { BaseAddress = new Uri(address), Timeout = Limit });
        }

        public async ValueTask DisposeAsync()
        {
            Http.Dispose();
            await _app.StopAsync().WaitAsync(Limit);
            await _app.DisposeAsync();
        }
    }
}
