#:project ../benchmarks/Boc.Benchmarks/Boc.Benchmarks.csproj
#:property RunAnalyzers=false
// Tells the machine's moods apart from the runtime's: runs one Savina run again and again on one runtime and, on a
// worker of that runtime, the machine controls (Savina/MachineControl.cs, no Boc code) right before and right after
// each iteration. An iteration whose controls both ran at the machine's fast store speed, and one whose controls both
// ran slow, then say what the same run costs in each mood (benchmarks/README.md, "Two store speeds").
//
//   dotnet run -c Release eng/PairedControl.cs -- RUN [--iterations N] [--warmup N] [--workers N] [--fast-stores MS]
//
// RUN is a SavinaRun class name (ThreadRingActor, PingPongActor, ...), run at Paper size. Every iteration starts after
// a full collection, as a BenchmarkDotNet iteration does. The first --warmup iterations (default 10; tier-up) are
// left out. Prints one line per iteration (ms: run, then Stores and Cpu before and after) and a summary: the run's
// median when both store controls were within 1.2x of the fast store speed, and when both were at least 1.35x it, with
// the Cpu control's median in each group. The fast store speed is the fastest store control of the process, or
// --fast-stores (ms; give the same value to several processes, since one may never see the fast mood).

using System.Diagnostics;
using System.Globalization;
using Boc;
using Boc.Benchmarks.Savina;

var inv = CultureInfo.InvariantCulture;
string? runName = null;
int iterations = 50;
int warmup = 10;
int workers = 0;
double? fastStores = null;
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--iterations": iterations = int.Parse(args[++i], inv); break;
        case "--warmup": warmup = int.Parse(args[++i], inv); break;
        case "--workers": workers = int.Parse(args[++i], inv); break;
        case "--fast-stores": fastStores = double.Parse(args[++i], inv); break;
        default: runName = args[i]; break;
    }
}

Type? runType = typeof(SavinaRun).Assembly.GetTypes().SingleOrDefault(t => t.Name == runName && t.IsSubclassOf(typeof(SavinaRun)));
if (runType is null || iterations <= warmup)
{
    Console.Error.WriteLine("usage: dotnet run -c Release eng/PairedControl.cs -- RUN [--iterations N] [--warmup N] [--workers N] [--fast-stores MS]");
    Console.Error.WriteLine("RUN is a SavinaRun class name, such as ThreadRingActor; --iterations must exceed --warmup.");
    return 2;
}

var options = new BocRuntimeOptions();
if (workers > 0)
{
    options.WorkerCount = workers;
}

await using var runtime = new BocRuntime(options);
var controlCown = new Cown<object>(new object());
var rows = new List<(double Run, Controls Before, Controls After)>();
Console.WriteLine($"{runName} on {(workers > 0 ? workers : Environment.ProcessorCount)} worker(s); ms: run | Stores before, after | Cpu before, after");
for (int i = 0; i < iterations; i++)
{
    var run = (SavinaRun)Activator.CreateInstance(runType, SavinaSize.Paper)!;
    run.Setup(runtime);
    GC.Collect();
    GC.WaitForPendingFinalizers();
    GC.Collect();

    // On a worker, as the run's own behaviours are: the controls see the core the run just had, or is about to.
    Controls before = await runtime.WhenAsync(controlCown, _ => Controls.Measure());
    long start = Stopwatch.GetTimestamp();
    await run.RunAsync();
    double ms = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
    Controls after = await runtime.WhenAsync(controlCown, _ => Controls.Measure());
    Console.WriteLine(string.Create(inv, $"{i,3}{(i < warmup ? " (warm-up)" : "")}: {ms,8:F2} | {before.Stores,6:F3} {after.Stores,6:F3} | {before.Cpu,6:F3} {after.Cpu,6:F3}"));
    if (i >= warmup)
    {
        rows.Add((ms, before, after));
    }
}

double fastest = fastStores ?? rows.Min(r => Math.Min(r.Before.Stores, r.After.Stores));
var fast = rows.Where(r => Math.Max(r.Before.Stores, r.After.Stores) <= 1.2 * fastest).ToList();
var slow = rows.Where(r => Math.Min(r.Before.Stores, r.After.Stores) >= 1.35 * fastest).ToList();
Console.WriteLine();
Console.WriteLine(string.Create(inv, $"{rows.Count} iterations; fast store speed {fastest:F3} ms ({(fastStores is null ? "this process's fastest" : "given")}); this process's fastest {rows.Min(r => Math.Min(r.Before.Stores, r.After.Stores)):F3} ms"));
Report("fast", fast);
Report("slow", slow);
if (fast.Count > 0 && slow.Count > 0)
{
    Console.WriteLine(string.Create(inv, $"slow ÷ fast: run {Median(slow.Select(r => r.Run)) / Median(fast.Select(r => r.Run)):F2}, Stores {Median(slow.Select(r => r.Before.Stores)) / Median(fast.Select(r => r.Before.Stores)):F2}, Cpu {Median(slow.Select(r => r.Before.Cpu)) / Median(fast.Select(r => r.Before.Cpu)):F2}"));
}

return 0;

void Report(string mood, List<(double Run, Controls Before, Controls After)> group)
{
    if (group.Count == 0)
    {
        Console.WriteLine($"store path {mood} before and after: no iteration");
        return;
    }

    Console.WriteLine(string.Create(inv, $"store path {mood} before and after: {group.Count} iterations, run median {Median(group.Select(r => r.Run)):F2} ms (min {group.Min(r => r.Run):F2}, max {group.Max(r => r.Run):F2}); Cpu control median {Median(group.Select(r => r.Before.Cpu)):F3} ms"));
}

static double Median(IEnumerable<double> values)
{
    double[] sorted = values.Order().ToArray();
    return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[(sorted.Length / 2) - 1] + sorted[sorted.Length / 2]) / 2;
}

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
