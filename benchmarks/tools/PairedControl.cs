#:project ../Boc.Benchmarks/Boc.Benchmarks.csproj
#:property RunAnalyzers=false
// Tells the machine's moods apart from the runtime's. Runs one or more Savina runs in rounds on one runtime (one
// iteration of each per round, the order reversed every other round) and, on a worker of that runtime, the machine
// controls (Savina/MachineControl.cs, no Boc code) right before and right after each round. A round whose controls
// both ran at the machine's fast store speed, and one whose controls both ran slow, then say what the same runs cost in
// each mood (docs/performance/decisions.md#the-machine-has-two-store-speeds); with several runs, the ratio of each to
// the first within a round compares them at the same moment.
//
//   dotnet run -c Release benchmarks/tools/PairedControl.cs -- RUN [RUN ...] [--rounds N] [--warmup N] [--workers N] [--fast-stores MS]
//
// RUN is a SavinaRun class name (ThreadRingActor, ThreadRingChannels, ...), run at Paper size. Every iteration starts
// after a full collection, as a BenchmarkDotNet iteration does. The first --warmup rounds (default 10; tier-up) are
// left out. Prints one line per round (ms: each run, then Stores and Cpu before and after) and a summary: each run's
// median when both store controls were within 1.2x of the fast store speed and when both were at least 1.35x it, and
// each run's ratio to the first, per round. The fast store speed is the fastest store control of the process, or
// --fast-stores (ms; give the same value to several processes, since one may never see the fast mood).

using System.Diagnostics;
using System.Globalization;
using Boc;
using Boc.Benchmarks.Savina;

// Steady state, as the BenchmarkDotNet jobs: without tiered compilation's call-counting delay (SteadyStateProcess).
if (Boc.Benchmarks.SteadyStateProcess.RunAgainWithoutCallCountingDelay(args) is int exitCode)
{
    return exitCode;
}

var inv = CultureInfo.InvariantCulture;
var runNames = new List<string>();
int rounds = 50;
int warmup = 10;
int workers = 0;
double? fastStores = null;
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--rounds": rounds = int.Parse(args[++i], inv); break;
        case "--warmup": warmup = int.Parse(args[++i], inv); break;
        case "--workers": workers = int.Parse(args[++i], inv); break;
        case "--fast-stores": fastStores = double.Parse(args[++i], inv); break;
        default: runNames.Add(args[i]); break;
    }
}

Type[] runTypes = runNames
    .Select(name => typeof(SavinaRun).Assembly.GetTypes().SingleOrDefault(t => t.Name == name && t.IsSubclassOf(typeof(SavinaRun))))
    .Where(t => t is not null)
    .ToArray()!;
if (runNames.Count == 0 || runTypes.Length != runNames.Count || rounds <= warmup)
{
    Console.Error.WriteLine("usage: dotnet run -c Release benchmarks/tools/PairedControl.cs -- RUN [RUN ...] [--rounds N] [--warmup N] [--workers N] [--fast-stores MS]");
    Console.Error.WriteLine("RUN is a SavinaRun class name, such as ThreadRingActor; --rounds must exceed --warmup.");
    return 2;
}

var options = new BocRuntimeOptions();
if (workers > 0)
{
    options.WorkerCount = workers;
}

await using var runtime = new BocRuntime(options);
var controlCown = new Cown<object>(new object());
var kept = new List<Round>();
Console.WriteLine($"{string.Join(", ", runNames)} on {(workers > 0 ? workers : Environment.ProcessorCount)} worker(s); ms: runs | Stores before, after | Cpu before, after");
for (int round = 0; round < rounds; round++)
{
    // On a worker, as the runs' own behaviours are: the controls see the core the runs just had, or are about to.
    Controls before = await runtime.WhenAsync(controlCown, _ => Controls.Measure());
    double[] times = new double[runTypes.Length];
    for (int k = 0; k < runTypes.Length; k++)
    {
        int index = round % 2 == 0 ? k : runTypes.Length - 1 - k;
        var run = (SavinaRun)Activator.CreateInstance(runTypes[index], SavinaSize.Paper)!;
        run.Setup(runtime);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        long start = Stopwatch.GetTimestamp();
        await run.RunAsync();
        times[index] = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
    }

    Controls after = await runtime.WhenAsync(controlCown, _ => Controls.Measure());
    string runs = string.Join(" ", times.Select(t => t.ToString("F2", inv).PadLeft(8)));
    Console.WriteLine(string.Create(inv, $"{round,3}{(round < warmup ? " (warm-up)" : "")}: {runs} | {before.Stores,6:F3} {after.Stores,6:F3} | {before.Cpu,6:F3} {after.Cpu,6:F3}"));
    if (round >= warmup)
    {
        kept.Add(new Round(times, before, after));
    }
}

double processFastest = kept.Min(r => Math.Min(r.Before.Stores, r.After.Stores));
double fastest = fastStores ?? processFastest;
var fast = kept.Where(r => Math.Max(r.Before.Stores, r.After.Stores) <= 1.2 * fastest).ToList();
var slow = kept.Where(r => Math.Min(r.Before.Stores, r.After.Stores) >= 1.35 * fastest).ToList();
Console.WriteLine();
Console.WriteLine(string.Create(inv, $"{kept.Count} rounds; fast store speed {fastest:F3} ms ({(fastStores is null ? "this process's fastest" : "given")}); this process's fastest {processFastest:F3} ms"));
Console.WriteLine(string.Create(inv, $"store path fast before and after: {fast.Count} rounds, Cpu control median {MedianOr(fast.Select(r => r.Before.Cpu))}; slow: {slow.Count} rounds, Cpu control median {MedianOr(slow.Select(r => r.Before.Cpu))}"));
for (int k = 0; k < runTypes.Length; k++)
{
    int run = k;
    string line = string.Create(inv, $"{runNames[run]}: median {Median(kept.Select(r => r.Times[run])):F2} ms (min {kept.Min(r => r.Times[run]):F2}, max {kept.Max(r => r.Times[run]):F2}); fast mood {MedianOr(fast.Select(r => r.Times[run]))}, slow mood {MedianOr(slow.Select(r => r.Times[run]))}");
    if (run > 0)
    {
        double[] ratios = kept.Select(r => r.Times[run] / r.Times[0]).Order().ToArray();
        line += string.Create(inv, $"; ÷ {runNames[0]} per round: median {Median(ratios):F2} (quartiles {ratios[ratios.Length / 4]:F2}–{ratios[3 * ratios.Length / 4]:F2})");
    }

    Console.WriteLine(line);
}

return 0;

static string MedianOr(IEnumerable<double> values)
{
    double[] array = values.ToArray();
    return array.Length == 0 ? "–" : Median(array).ToString("F2", CultureInfo.InvariantCulture);
}

static double Median(IEnumerable<double> values)
{
    double[] sorted = values.Order().ToArray();
    return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
}

/// <summary>One round: each run's time, and the controls measured before and after it.</summary>
internal sealed record Round(double[] Times, Controls Before, Controls After);

/// <summary>One measurement of the store-path and arithmetic controls, in milliseconds (about 2 ms each).</summary>
internal readonly record struct Controls(double Stores, double Cpu)
{
    public static Controls Measure()
    {
        long start = Stopwatch.GetTimestamp();
        GC.KeepAlive(MachineControl.StoreWork(MachineControl.StoreCount / 4));
        double stores = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        start = Stopwatch.GetTimestamp();
        GC.KeepAlive(MachineControl.CpuWork(MachineControl.CpuSteps / 4));
        return new Controls(stores, Stopwatch.GetElapsedTime(start).TotalMilliseconds);
    }
}
