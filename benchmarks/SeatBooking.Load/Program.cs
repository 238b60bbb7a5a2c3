// A short HTTP load run against the seat-booking sample, once per implementation (Boc cowns, ordered locks, a Channel
// actor per resource): N clients on loopback, each in a loop of bookings, cancellations of its own bookings and seat
// queries, for a fixed time after a warm-up. Prints requests/s and latency percentiles as a Markdown table, and audits
// the venue after each run (a run whose audit fails is reported as such).
//
//   dotnet run --project benchmarks/SeatBooking.Load -c Release -- [--clients 16] [--seconds 10] [--warmup 2] [--impl boc,boc-threadpool,lock,channel] [--seed 1]

using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Http.Json;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.Extensions.DependencyInjection;
using SeatBooking;
using SeatBooking.Venue;

int clients = IntOption("--clients", 16);
double seconds = IntOption("--seconds", 10);
double warmup = IntOption("--warmup", 2);
int seed = IntOption("--seed", 1);
string[] implementations = Option("--impl", "boc,boc-threadpool,lock,channel").Split(',', StringSplitOptions.RemoveEmptyEntries);
if (clients < 1 || seconds <= 0 || warmup < 0 || implementations.Any(i => i is not ("boc" or "boc-threadpool" or "lock" or "channel")))
{
    Console.Error.WriteLine("usage: [--clients N>0] [--seconds S>0] [--warmup S>=0] [--impl boc,boc-threadpool,lock,channel] [--seed N]");
    return 2;
}

Console.WriteLine($"{clients} clients, {warmup} s warm-up, {seconds} s measured, {Environment.ProcessorCount} processors, .NET {Environment.Version}, server and clients in one process");
Console.WriteLine();
Console.WriteLine("| implementation | clients | requests/s | p50 ms | p99 ms | max ms | bookings | refused | errors | audit |");
Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|");
bool allConsistent = true;
foreach (string implementation in implementations)
{
    Result r = await RunAsync(implementation);
    allConsistent &= r.Audit.Consistent && r.Errors == 0;
    Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
        $"| {implementation} | {clients} | {r.Requests / seconds:F0} | {r.P50:F2} | {r.P99:F2} | {r.Max:F1} | {r.Booked} | {r.Refused} | {r.Errors} | {(r.Audit.Consistent ? "consistent" : "INCONSISTENT")} |"));
}

return allConsistent ? 0 : 1;

async Task<Result> RunAsync(string implementation)
{
    // boc-threadpool: the Boc version with BocDispatcher.ThreadPool, so behaviours run on the threads Kestrel uses.
    string dispatcher = implementation == "boc-threadpool" ? "ThreadPool" : "BocScheduler";
    WebApplication app = SeatBookingApp.Create(
    [
        "--urls", "http://127.0.0.1:0",
        "--Venue:Implementation", implementation.Split('-')[0],
        "--Boc:Dispatcher", dispatcher,
        "--Logging:LogLevel:Default", "Warning",
    ]);
    await app.StartAsync();
    try
    {
        string address = app.Services.GetRequiredService<IServer>().Features.Get<IServerAddressesFeature>()!.Addresses.Single();
        VenueOptions venue = app.Services.GetRequiredService<VenueOptions>();
        using var handler = new SocketsHttpHandler { MaxConnectionsPerServer = clients, PooledConnectionLifetime = Timeout.InfiniteTimeSpan };
        using var http = new HttpClient(handler) { BaseAddress = new Uri(address) };

        var clock = Stopwatch.StartNew();
        long measureFrom = (long)(warmup * Stopwatch.Frequency);
        long measureTo = measureFrom + (long)(seconds * Stopwatch.Frequency);
        Client[] workers = Enumerable.Range(0, clients).Select(i => new Client(http, venue, new Random(seed * 1000 + i), clock, measureFrom, measureTo)).ToArray();
        await Task.WhenAll(workers.Select(w => Task.Run(w.RunAsync)));

        long[] latencies = workers.SelectMany(w => w.Latencies).Order().ToArray();
        Audit audit = (await http.GetFromJsonAsync<Audit>("/audit"))!;
        return new Result(
            latencies.Length,
            Percentile(latencies, 0.50),
            Percentile(latencies, 0.99),
            latencies.Length == 0 ? 0 : latencies[^1] * 1000.0 / Stopwatch.Frequency,
            workers.Sum(w => w.Booked),
            workers.Sum(w => w.Refused),
            workers.Sum(w => w.Errors),
            audit);
    }
    finally
    {
        await app.StopAsync();
        await app.DisposeAsync();
    }
}

static double Percentile(long[] sorted, double p) =>
    sorted.Length == 0 ? 0 : sorted[Math.Min(sorted.Length - 1, (int)Math.Ceiling(p * sorted.Length) - 1)] * 1000.0 / Stopwatch.Frequency;

string Option(string name, string fallback)
{
    int i = Array.IndexOf(args, name);
    return i >= 0 && i + 1 < args.Length ? args[i + 1] : fallback;
}

int IntOption(string name, int fallback) => int.Parse(Option(name, fallback.ToString(CultureInfo.InvariantCulture)), CultureInfo.InvariantCulture);

internal sealed record Result(int Requests, double P50, double P99, double Max, long Booked, long Refused, long Errors, Audit Audit);

/// <summary>One client: 50% bookings of 1-4 random seats, 20% cancellations of its own bookings, 30% 10-seat queries.</summary>
internal sealed class Client(HttpClient http, VenueOptions venue, Random random, Stopwatch clock, long measureFrom, long measureTo)
{
    private readonly List<(int Customer, long Id)> _mine = [];

    public List<long> Latencies { get; } = new(100_000);

    public long Booked { get; private set; }

    public long Refused { get; private set; }

    public long Errors { get; private set; }

    public async Task RunAsync()
    {
        while (clock.ElapsedTicks < measureTo)
        {
            long start = clock.ElapsedTicks;
            HttpStatusCode status = await OneRequestAsync();
            long end = clock.ElapsedTicks;
            if (start >= measureFrom && end <= measureTo)
            {
                Latencies.Add(end - start);
            }

            if (status is not (HttpStatusCode.OK or HttpStatusCode.Created or HttpStatusCode.NoContent or HttpStatusCode.Conflict))
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
            return cancel.StatusCode;
        }

        if (roll < 50)
        {
            using HttpResponseMessage seats = await http.GetAsync($"/seats?first={random.Next(venue.Seats - 10)}&count=10");
            await seats.Content.LoadIntoBufferAsync();
            return seats.StatusCode;
        }

        int count = random.Next(1, 5);
        var numbers = new HashSet<int>();
        while (numbers.Count < count)
        {
            numbers.Add(random.Next(venue.Seats));
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
