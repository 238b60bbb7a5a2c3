#:project ../Boc.Benchmarks/Boc.Benchmarks.csproj
#:property RunAnalyzers=false
#:property ServerGarbageCollection=false
#:property ConcurrentGarbageCollection=false
// Runs one Savina workload over and over in one plain process, for a sampling profiler or an event trace to look at
// (perf record with DOTNET_PerfMapEnabled=1, dotnet-trace, dotnet-counters): BenchmarkDotNet's child processes are
// short-lived and mostly its own code. Prints each run's time (median, min-max per block), so the profile's run can be
// matched with the benchmark's, and for a workload that reports metrics (a retry storm's attempts) those of each block's
// fastest and slowest run.
//
//   dotnet run -c Release benchmarks/tools/SavinaLoop.cs -- PingPongActor [--size Paper] [--seconds 20] [--workers N] [--block 50]
//
// The workload is a SavinaRun type's name (PingPongActor, ThreadRingActor, CountActor, SieveActor, LogisticMapActor,
// ...); the dispatcher comes from BOC_DISPATCHER as in the benchmarks.

using System.Diagnostics;
using System.Globalization;
using Boc;
using Boc.Benchmarks.Savina;

if (Boc.Benchmarks.SteadyStateProcess.RunAgainWithoutCallCountingDelay(args) is int exitCode)
{
    return exitCode;
}

var inv = CultureInfo.InvariantCulture;
string name = args.Length > 0 ? args[0] : throw new ArgumentException("name a SavinaRun type, e.g. PingPongActor");
SavinaSize size = SavinaSize.Paper;
double seconds = 20;
int? workers = null;
int blockRuns = 50;
for (int i = 1; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--size": size = Enum.Parse<SavinaSize>(args[++i], ignoreCase: true); break;
        case "--seconds": seconds = double.Parse(args[++i], inv); break;
        case "--workers": workers = int.Parse(args[++i], inv); break;
        case "--block": blockRuns = int.Parse(args[++i], inv); break;
        default: throw new ArgumentException($"unknown argument {args[i]}");
    }
}

Type type = typeof(SavinaRun).Assembly.GetTypes().SingleOrDefault(t => t.Name == name && typeof(SavinaRun).IsAssignableFrom(t))
    ?? throw new ArgumentException($"no SavinaRun type named {name}");
var options = new BocRuntimeOptions { Dispatcher = SavinaBenchmarkBase.DispatcherFromEnvironment(), WorkerCount = workers };
using var runtime = new BocRuntime(options);
var times = new List<double>();
var metrics = new List<(double Ms, string Text)>();
var total = Stopwatch.StartNew();
int block = 0;
int gen2Before = GC.CollectionCount(2);
long allocatedBefore = GC.GetTotalAllocatedBytes();
long poolItemsBefore = ThreadPool.CompletedWorkItemCount;
while (total.Elapsed.TotalSeconds < seconds)
{
    var run = (SavinaRun)Activator.CreateInstance(type, size)!;
    run.Setup(runtime);
    long start = Stopwatch.GetTimestamp();
    await run.RunAsync();
    times.Add(Stopwatch.GetElapsedTime(start).TotalMilliseconds);
    string runMetrics = run.Metrics;
    if (runMetrics.Length > 0)
    {
        metrics.Add((times[^1], runMetrics));
    }

    if (times.Count == blockRuns)
    {
        // Collections and allocation include each run's untimed Build, as a garbage-heavy setup also costs the timed part.
        int gen2 = GC.CollectionCount(2);
        long allocated = GC.GetTotalAllocatedBytes();
        long poolItems = ThreadPool.CompletedWorkItemCount;
        times.Sort();
        Console.WriteLine(string.Create(inv,
            $"{name} block {block++}: median {times[times.Count / 2]:F2} ms ({times[0]:F2}-{times[^1]:F2}), {times.Count} runs, " +
            $"{(gen2 - gen2Before) / (double)times.Count:F2} gen2 (gen0 {GC.CollectionCount(0)}, gen1 {GC.CollectionCount(1)} so far), {(allocated - allocatedBefore) / 1e6 / times.Count:F1} MB allocated " +
            $"and {(poolItems - poolItemsBefore) / (double)times.Count:F0} thread-pool items per run"));
        if (metrics.Count > 0)
        {
            // A workload's own counts (retries, attempts) for its fastest and slowest runs of the block, to set beside
            // their times.
            metrics.Sort((a, b) => a.Ms.CompareTo(b.Ms));
            Console.WriteLine(string.Create(inv, $"  fastest {metrics[0].Ms:F2} ms: {metrics[0].Text}; slowest {metrics[^1].Ms:F2} ms: {metrics[^1].Text}"));
            metrics.Clear();
        }

        poolItemsBefore = poolItems;
        gen2Before = gen2;
        allocatedBefore = allocated;
        times.Clear();
    }
}

return 0;
