// HTTP load against the seat-booking sample, once per implementation (Boc cowns on the host's default dispatcher, Boc
// on BocScheduler, ordered locks, a Channel actor per resource): N clients on loopback, each in a loop of bookings,
// cancellations of its own bookings and seat queries, for a fixed time after a warm-up. Every response is checked and
// the venue audited after each run. Prints one Markdown row per implementation and client count: the median of the
// runs with their range, and the ratio to the lock version's median.
//
// The warm-up lasts at least --warmup seconds and goes on while the service's JIT is still compiling, until two
// seconds in a row with fewer than 20 methods compiled (a startup hook in the service process reports its count), or
// --warmup-max seconds. A fresh ASP.NET service on 2 cores compiles for 6-7 s under this load, at about half its
// steady throughput; a fixed 2 s warm-up measured mostly that (Boc, with more generic code to compile, lost by 7-12%).
//
// By default every run starts the service in a process of its own (the sample's own build, on its defaults) and this
// process is only the client, so clients and server do not share a thread pool or a JIT warm-up; runs rotate the
// order of the implementations, so none is always measured first. --in-process hosts the service here instead (quick,
// for CI). --contended: 90% of bookings take their seats from 10 hot seats, and pricing a booking is 20 µs of work
// inside its critical section.
//
//   dotnet run -c Release --project benchmarks/SeatBooking.Load -- [--clients 4,16,64] [--seconds 5] [--warmup 5]
//       [--warmup-max 60] [--runs 3] [--impl boc,boc-scheduler,lock,channel] [--contended] [--hot-seats 10] [--hot-share 90]
//       [--pricing-us 20] [--seed 1] [--in-process]

using System.Globalization;
using SeatBooking.Load;

LoadOptions options;
try
{
    options = LoadOptions.Parse(args);
}
catch (FormatException e)
{
    Console.Error.WriteLine(e.Message);
    Console.Error.WriteLine(LoadOptions.Usage);
    return 2;
}

Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
    $"{options.Runs} run(s) per cell, warm-up {options.Warmup}-{options.WarmupMax} s (until the service's JIT compiles under {options.JitQuietPerSecond} methods/s twice in a row), {options.Seconds} s measured, {Environment.ProcessorCount} processors, .NET {Environment.Version}, "
    + $"{(options.InProcess ? "server and clients in one process" : "server in its own process per run")}, "
    + $"{(options.Contended ? $"contended ({options.HotShare}% of bookings on {options.HotSeats} hot seats, {options.PricingMicroseconds} µs pricing)" : $"uniform seats, {options.PricingMicroseconds} µs pricing")}, "
    + $"{(options.DeadlineMilliseconds > 0 ? $"{options.DeadlineMilliseconds} ms request deadline" : "the service's default deadline")}, seed {options.Seed}"));
Console.WriteLine();
Console.WriteLine("| clients | implementation | requests/s (median, range) | p50 ms | p99 ms (median, range) | ÷ lock req/s | ÷ lock req/s, per run (median, range) | ÷ lock p99 | server CPU µs/request (median) | warm-up s | JIT methods measured | bookings | refused | errors | audit |"
    + (options.DeadlineMilliseconds > 0 ? " timed out | overshoot p50 ms | overshoot p99 ms (median, range) |" : ""));
Console.WriteLine("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|" + (options.DeadlineMilliseconds > 0 ? "---:|---:|---:|" : ""));

bool allGood = true;
foreach (int clients in options.Clients)
{
    var results = options.Implementations.ToDictionary(i => i, _ => new List<RunResult>());
    for (int run = 0; run < options.Runs; run++)
    {
        // Rotate: run r starts with implementation r, so warm caches, a turbo state or a neighbour's burst do not
        // always fall on the same implementation.
        for (int k = 0; k < options.Implementations.Count; k++)
        {
            string implementation = options.Implementations[(run + k) % options.Implementations.Count];
            RunResult result = await LoadRun.RunAsync(options, implementation, clients, seed: options.Seed + run);
            results[implementation].Add(result);
            Console.Error.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"  {clients} clients, run {run + 1}, {implementation}: {result.RequestsPerSecond:F0} req/s, p99 {result.P99:F2} ms, "
                + $"server CPU {result.CpuMicrosecondsPerRequest:F1} µs/request, "
                + $"warm-up {result.WarmupSeconds:F1} s, {(result.JitMethodsMeasured < 0 ? "unknown" : result.JitMethodsMeasured)} methods compiled while measured, {(result.Good ? "ok" : "FAILED")}"));
        }
    }

    double? lockRate = results.TryGetValue("lock", out List<RunResult>? lockRuns) ? Median(lockRuns.Select(r => r.RequestsPerSecond)) : null;
    double? lockP99 = lockRuns is null ? null : Median(lockRuns.Select(r => r.P99));
    foreach (string implementation in options.Implementations)
    {
        List<RunResult> runs = results[implementation];
        bool good = runs.All(r => r.Good);
        allGood &= good;
        double rate = Median(runs.Select(r => r.RequestsPerSecond));
        double p99 = Median(runs.Select(r => r.P99));
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"| {clients} | {implementation} | {rate:N0} ({runs.Min(r => r.RequestsPerSecond):N0}–{runs.Max(r => r.RequestsPerSecond):N0}) "
            + $"| {Median(runs.Select(r => r.P50)):F2} | {p99:F2} ({runs.Min(r => r.P99):F2}–{runs.Max(r => r.P99):F2}) "
            + $"| {(lockRate is double l ? (rate / l).ToString("F2", CultureInfo.InvariantCulture) : "–")} "
            + $"| {PerRunRatios(runs, lockRuns)} "
            + $"| {(lockP99 is double lp ? (p99 / lp).ToString("F2", CultureInfo.InvariantCulture) : "–")} "
            + $"| {Median(runs.Select(r => r.CpuMicrosecondsPerRequest)):F1} | {Median(runs.Select(r => r.WarmupSeconds)):F1} | {runs.Max(r => r.JitMethodsMeasured)} "
            + $"| {runs.Sum(r => r.Booked)} | {runs.Sum(r => r.Refused)} | {runs.Sum(r => r.Errors)} | {(good ? "consistent" : "FAILED")} |")
            + (options.DeadlineMilliseconds > 0
                ? string.Create(CultureInfo.InvariantCulture, $" {runs.Sum(r => r.TimedOut)} | {Median(runs.Select(r => r.OvershootP50)):F2} | {Median(runs.Select(r => r.OvershootP99)):F2} ({runs.Min(r => r.OvershootP99):F2}–{runs.Max(r => r.OvershootP99):F2}) |")
                : ""));
    }
}

return allGood ? 0 : 1;

// Each run's rate over the lock version's in the same round: the machine's speed drifts between rounds more than the
// implementations differ, and a round's runs are minutes apart at most.
static string PerRunRatios(List<RunResult> runs, List<RunResult>? lockRuns)
{
    if (lockRuns is null)
    {
        return "–";
    }

    double[] ratios = runs.Zip(lockRuns, (run, l) => run.RequestsPerSecond / l.RequestsPerSecond).ToArray();
    return string.Create(CultureInfo.InvariantCulture, $"{Median(ratios):F2} ({ratios.Min():F2}–{ratios.Max():F2})");
}

static double Median(IEnumerable<double> values)
{
    double[] sorted = values.Order().ToArray();
    return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
}
