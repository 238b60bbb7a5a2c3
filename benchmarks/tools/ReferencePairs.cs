#:project ../Boc.Benchmarks/Boc.Benchmarks.csproj
#:property RunAnalyzers=false
#:property ServerGarbageCollection=false
#:property ConcurrentGarbageCollection=false
// Boc beside the reference runtime, row by row, with the cross-core control next to each: tells a row's gap from the
// host's cross-core mode. Hosts of this kind move between a fast and a slow cross-core mode (about 100 and 400 ns a
// round trip of a cache line) every few tens of seconds, and rows that hand cache lines between the cores (Big,
// Chameneos) take two to three times as long in the slow one, on either runtime. The side-by-side tool runs each
// runtime's pass for several minutes, so a row can meet one runtime in one mode and the other in the other
// (docs/performance/decisions.md, "Big follows the host's cross-core mode, on both runtimes"). Here each block runs, for
// each row, the reference binary (5 repetitions, a process of its own) and then 5 Boc runs in a process of their own,
// each between cross-core readings, so both runtimes meet the same mode, and a block whose readings differ can be set
// aside. A process per row and block, as BenchmarkDotNet has one per benchmark: dynamic PGO then sees one workload's
// types at the runtime's call sites, as it does there (run in one process, ten rows' types made Thread Ring 2x slower).
//
//   dotnet run -c Release benchmarks/tools/ReferencePairs.cs -- REFERENCE_BINARY BLOCKS ROW [ROW ...]
//
// REFERENCE_BINARY is the reference Savina harness built by the workplace's verona tool (its README; nothing of it is in
// this repository). ROW is style:reference-name:SavinaRun-class, e.g. "actor:Big:BigActor" or
// "full:Sleeping Barber:SleepingBarberFull". Block 0 is left out of the summary. Each Boc process runs its class for 1 s
// untimed first (SavinaBenchmarkBase.WarmUp), and every timed run starts after a full collection, as a BenchmarkDotNet
// iteration does. Prints each block's
// medians and readings (ns a round trip before the reference, between, after Boc) and, per row, the medians, the ratio
// of medians and the median of the blocks' ratios, over every block and over the blocks whose three readings were all
// below --fast-ns (default 200).

using System.Diagnostics;
using System.Globalization;
using Boc;
using Boc.Benchmarks.Savina;

if (Boc.Benchmarks.SteadyStateProcess.RunAgainWithoutCallCountingDelay(args) is int exitCode)
{
    return exitCode;
}

var inv = CultureInfo.InvariantCulture;
if (args.Length == 2 && args[0] == "--boc-child")
{
    // A child: one Boc measurement of one run class; prints its median.
    Type childType = typeof(SavinaRun).Assembly.GetTypes().Single(t => t.Name == args[1] && typeof(SavinaRun).IsAssignableFrom(t));
    using var childRuntime = new BocRuntime(new BocRuntimeOptions { Dispatcher = SavinaBenchmarkBase.DispatcherFromEnvironment() });
    Console.WriteLine(MeasureBoc(childType, childRuntime).ToString("R", inv));
    return 0;
}

if (args.Length < 3)
{
    Console.Error.WriteLine("usage: ReferencePairs.cs REFERENCE_BINARY BLOCKS ROW [ROW ...] [--fast-ns N]");
    return 2;
}

string reference = args[0];
int blocks = int.Parse(args[1], inv);
double fastNs = 200;
var rows = new List<(string Style, string Name, Type Run)>();
for (int i = 2; i < args.Length; i++)
{
    if (args[i] == "--fast-ns")
    {
        fastNs = double.Parse(args[++i], inv);
        continue;
    }

    string[] parts = args[i].Split(':');
    Type type = typeof(SavinaRun).Assembly.GetTypes().SingleOrDefault(t => t.Name == parts[2] && typeof(SavinaRun).IsAssignableFrom(t))
        ?? throw new ArgumentException($"no SavinaRun class named {parts[2]}");
    rows.Add((parts[0], parts[1], type));
}

using var partner = new CrossCorePartner();
var results = rows.ToDictionary(r => r.Run.Name, _ => new List<(double Reference, double Boc, bool Fast)>());
for (int block = 0; block < blocks; block++)
{
    foreach ((string style, string name, Type runType) in rows)
    {
        double before = CrossCore();
        double referenceMs = RunReference(style, name);
        double between = CrossCore();
        double bocMs = RunBoc(runType);
        double after = CrossCore();
        bool fast = before < fastNs && between < fastNs && after < fastNs;
        if (block > 0)
        {
            results[runType.Name].Add((referenceMs, bocMs, fast));
        }

        Console.WriteLine(string.Create(inv,
            $"block {block} {runType.Name}: reference {referenceMs:F2} ms, Boc {bocMs:F2} ms, Boc/reference {bocMs / referenceMs:F2}; cross-core {before:F0}/{between:F0}/{after:F0} ns{(fast ? "" : " (not all fast)")}"));
    }
}

foreach ((string run, var pairs) in results)
{
    Summarize(run, "all blocks", pairs);
    Summarize(run, "fast blocks", pairs.Where(p => p.Fast).ToList());
}

return 0;

// One reference process of 5 repetitions; the median of its per-repetition samples (the patched harness prints them).
double RunReference(string style, string name)
{
    var start = new ProcessStartInfo(reference) { RedirectStandardOutput = true, RedirectStandardError = true };
    foreach (string arg in new[] { "--" + style, "--cores", "2", "--reps", "5", "--benchmark", name })
    {
        start.ArgumentList.Add(arg);
    }

    using Process process = Process.Start(start)!;
    Task<string> output = process.StandardOutput.ReadToEndAsync();
    string samples = process.StandardError.ReadToEnd();
    process.WaitForExit();
    _ = output.Result;
    List<double> ms = samples.Split('\n').Where(l => l.StartsWith("SAMPLE", StringComparison.Ordinal))
        .Select(l => double.Parse(l.Split('\t')[4], inv)).Order().ToList();
    return ms.Count > 0 ? ms[ms.Count / 2] : throw new InvalidOperationException($"the reference printed no samples for {name}");
}

// One Boc process (this program again, as a child) for one measurement of the run class.
double RunBoc(Type runType)
{
    var start = new ProcessStartInfo(Environment.ProcessPath!) { RedirectStandardOutput = true };
    if (Path.GetFileNameWithoutExtension(Environment.ProcessPath) == "dotnet")
    {
        start.ArgumentList.Add(Environment.GetCommandLineArgs()[0]);
    }

    start.ArgumentList.Add("--boc-child");
    start.ArgumentList.Add(runType.Name);
    using Process process = Process.Start(start)!;
    string output = process.StandardOutput.ReadToEnd();
    process.WaitForExit();
    return process.ExitCode == 0
        ? double.Parse(output.Trim().Split('\n')[^1], inv)
        : throw new InvalidOperationException($"the Boc process for {runType.Name} exited with {process.ExitCode}");
}

// In a child: 1 s of untimed runs, then five runs after a full collection each; their median.
static double MeasureBoc(Type runType, BocRuntime runtime)
{
    SavinaBenchmarkBase.WarmUp(runType, SavinaSize.Paper, runtime, TimeSpan.FromSeconds(1));
    var ms = new List<double>();
    for (int i = 0; i < 5; i++)
    {
        var run = (SavinaRun)Activator.CreateInstance(runType, SavinaSize.Paper)!;
        run.Setup(runtime);
        GC.Collect();
        long start = Stopwatch.GetTimestamp();
        run.RunAsync().GetAwaiter().GetResult();
        ms.Add(Stopwatch.GetElapsedTime(start).TotalMilliseconds);
    }

    ms.Sort();
    return ms[ms.Count / 2];
}

// The median of three readings of 10,000 cache-line round trips between two spinning threads, in ns a round trip.
double CrossCore()
{
    var readings = new List<double>();
    for (int i = 0; i < 3; i++)
    {
        long start = Stopwatch.GetTimestamp();
        partner.RoundTrips(10_000);
        readings.Add(Stopwatch.GetElapsedTime(start).TotalMilliseconds * 1e6 / 10_000);
    }

    readings.Sort();
    return readings[1];
}

void Summarize(string run, string which, List<(double Reference, double Boc, bool Fast)> pairs)
{
    if (pairs.Count == 0)
    {
        Console.WriteLine($"{run}, {which}: none");
        return;
    }

    double referenceMedian = Median(pairs.Select(p => p.Reference));
    double bocMedian = Median(pairs.Select(p => p.Boc));
    double pairedMedian = Median(pairs.Select(p => p.Boc / p.Reference));
    Console.WriteLine(string.Create(inv,
        $"{run}, {which} ({pairs.Count}): reference {referenceMedian:F2} ms, Boc {bocMedian:F2} ms, ratio of medians {bocMedian / referenceMedian:F2}, median of block ratios {pairedMedian:F2}"));
}

static double Median(IEnumerable<double> values)
{
    List<double> sorted = values.Order().ToList();
    return sorted.Count % 2 == 1 ? sorted[sorted.Count / 2] : (sorted[(sorted.Count / 2) - 1] + sorted[sorted.Count / 2]) / 2;
}
