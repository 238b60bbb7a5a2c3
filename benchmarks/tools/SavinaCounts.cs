#:project ../Boc.Benchmarks/Boc.Benchmarks.csproj
#:property RunAnalyzers=false
// How many behaviours each Savina port spawns in one run, against the reference port's scheduler statistics (the
// Savina spec's table of cowns and behaviours, one run of the C++ artifact): a side-by-side row compares like with
// like only if both ports split the work into the same behaviours. Counts boc.behaviours.spawned for this runtime
// (appended bodies count each; the run's own result reads, a few WhenAsync, count too).
//
//   dotnet run -c Release benchmarks/tools/SavinaCounts.cs -- [--size Paper] [name filter]

using System.Diagnostics.Metrics;
using System.Globalization;
using System.Reflection;
using Boc;
using Boc.Benchmarks.Savina;

var inv = CultureInfo.InvariantCulture;
SavinaSize size = SavinaSize.Paper;
string? filter = null;
for (int i = 0; i < args.Length; i++)
{
    if (args[i] == "--size")
    {
        size = Enum.Parse<SavinaSize>(args[++i], ignoreCase: true);
    }
    else
    {
        filter = args[i];
    }
}

// The reference port's behaviours per run (actor; full), from the spec's scheduler statistics.
var reference = new Dictionary<string, (long Actor, long Full)>
{
    ["Banking"] = (252_407, 100_001),
    ["Sleeping Barber"] = (24_027_388, 78_077),
    ["Bounded Buffer"] = (160_081, 0),
    ["Cigarette Smokers"] = (3_001, 0),
    ["Concurrent Dictionary"] = (400_041, 400_041),
    ["Dining Philosophers"] = (1_350_118, 400_000),
    ["Logistic Map Series"] = (750_022, 250_010),
    ["Concurrent Sorted Linked-List"] = (320_000, 0),
    ["Big"] = (4_800_481, 0),
    ["Chameneos"] = (800_300, 600_200),
    ["Count"] = (1_000_002, 1_000_001),
    ["Fib"] = (300_097, 75_024),
    ["Fork-Join Create"] = (80_000, 80_000),
    ["Fork-Join Throughput"] = (1_200_000, 600_060),
    ["Ping Pong"] = (80_000, 0),
    ["Thread Ring"] = (100_002, 0),
    ["Filterbank"] = (1_419_325, 0),
    ["Quicksort"] = (3_869, 1_935),
    ["Radixsort"] = (6_100_000, 0),
    ["Recursive Matrix Multiplication"] = (2_267, 0),
    ["Sieve of Eratosthenes"] = (91_328, 0),
    ["Trapezoid"] = (201, 199),
};

long counted = 0;
string runtimeName = "";
using var listener = new MeterListener();
listener.InstrumentPublished = (instrument, l) =>
{
    if (instrument.Meter.Name == "Boc" && instrument.Name == "boc.behaviours.spawned")
    {
        l.EnableMeasurementEvents(instrument);
    }
};
listener.SetMeasurementEventCallback<long>((_, value, tags, _) =>
{
    foreach (KeyValuePair<string, object?> tag in tags)
    {
        if (tag.Key == "boc.runtime" && (string?)tag.Value == Volatile.Read(ref runtimeName))
        {
            Interlocked.Add(ref counted, value);
            return;
        }
    }
});
listener.Start();

Console.WriteLine("| style | benchmark | Boc behaviours | reference | Boc ÷ reference |");
Console.WriteLine("|---|---|---:|---:|---:|");
IEnumerable<Type> runs = typeof(SavinaRun).Assembly.GetTypes()
    .Where(t => !t.IsAbstract && typeof(SavinaRun).IsAssignableFrom(t) && t.GetCustomAttribute<SavinaWorkloadAttribute>() is { } a
        && a.Variant is SavinaVariant.Actor or SavinaVariant.Full && reference.ContainsKey(a.Name))
    .OrderBy(t => t.GetCustomAttribute<SavinaWorkloadAttribute>()!.Variant).ThenBy(t => t.Name, StringComparer.Ordinal);
foreach (Type type in runs)
{
    SavinaWorkloadAttribute workload = type.GetCustomAttribute<SavinaWorkloadAttribute>()!;
    if (filter is not null && !type.Name.Contains(filter, StringComparison.OrdinalIgnoreCase))
    {
        continue;
    }

    Volatile.Write(ref runtimeName, $"counts-{type.Name}");
    Interlocked.Exchange(ref counted, 0);
    await using (var runtime = new BocRuntime(new BocRuntimeOptions { Name = runtimeName }))
    {
        var run = (SavinaRun)Activator.CreateInstance(type, size)!;
        run.Setup(runtime);
        await run.RunAsync();
    }

    long expected = workload.Variant == SavinaVariant.Actor ? reference[workload.Name].Actor : reference[workload.Name].Full;
    long boc = Interlocked.Read(ref counted);
    Console.WriteLine(string.Create(inv,
        $"| {workload.Variant.ToString().ToLowerInvariant()} | {workload.Name} | {boc:N0} | {expected:N0} | {(expected == 0 ? double.NaN : boc / (double)expected):F2} |"));
}

return 0;
