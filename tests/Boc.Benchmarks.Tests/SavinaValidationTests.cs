using System.Reflection;
using Boc.Benchmarks.Savina;

namespace Boc.Benchmarks.Tests;

/// <summary>
/// Runs every Savina variant once at <see cref="SavinaSize.Test"/> on both dispatchers and requires its own validation
/// to pass; checks the suite is complete (22 actor-style, 12 full-BoC variants).
/// </summary>
public sealed class SavinaValidationTests
{
    private static readonly Type[] Runs = typeof(SavinaRun).Assembly.GetTypes()
        .Where(t => !t.IsAbstract && typeof(SavinaRun).IsAssignableFrom(t))
        .OrderBy(t => t.FullName, StringComparer.Ordinal)
        .ToArray();

    public static TheoryData<string, BocDispatcher> Variants()
    {
        var data = new TheoryData<string, BocDispatcher>();
        foreach (Type run in Runs)
        {
            data.Add(run.FullName!, BocDispatcher.ThreadPool);
            data.Add(run.FullName!, BocDispatcher.BocScheduler);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Variants))]
    public async Task Variant_ValidatesAtTestSize(string typeName, BocDispatcher dispatcher)
    {
        Type type = Runs.Single(t => t.FullName == typeName);
        var run = (SavinaRun)Activator.CreateInstance(type, SavinaSize.Test)!;
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        run.Setup(runtime);

        // A run that hangs is a failure too (not a timing assertion: the limit is far above any test-size run).
        await run.RunAsync().WaitAsync(TimeSpan.FromSeconds(120));
    }

    [Fact]
    public void EveryRun_IsNamedAndConstructibleBySize()
    {
        Assert.All(Runs, t =>
        {
            Assert.NotNull(t.GetCustomAttribute<SavinaWorkloadAttribute>());
            Assert.NotNull(t.GetConstructor([typeof(SavinaSize)]));
        });
    }

    [Fact]
    public void EveryRunOfTheSuite_HasItsBenchmarkDotNetMethod()
    {
        // A run type XVariant (ThreadRingActor, RecursiveMatrixMultiplicationChannels, ...) is measured by the [Benchmark]
        // method Variant of the benchmark class X. A run without it still validates here, but is silently missing from
        // every BenchmarkDotNet table (an edit once cut the Channels entry of Recursive Matrix Multiplication).
        Type[] benchmarkClasses = typeof(SavinaRun).Assembly.GetTypes()
            .Where(t => !t.IsAbstract && typeof(SavinaBenchmarkBase).IsAssignableFrom(t))
            .ToArray();
        var missing = new List<string>();
        foreach (Type run in Runs)
        {
            SavinaWorkloadAttribute workload = run.GetCustomAttribute<SavinaWorkloadAttribute>()!;
            if (PaperExperiments.Contains(workload.Name))
            {
                continue;
            }

            string variant = workload.Variant.ToString();
            string className = run.Name.EndsWith(variant, StringComparison.Ordinal) ? run.Name[..^variant.Length] : run.Name;
            MethodInfo? method = benchmarkClasses.SingleOrDefault(t => t.Name == className)?.GetMethod(variant);
            if (method is null || !method.GetCustomAttributes().Any(a => a.GetType().Name == "BenchmarkAttribute"))
            {
                missing.Add($"{run.Name} ({className}.{variant})");
            }
        }

        Assert.True(missing.Count == 0, $"runs without a [Benchmark] method: {string.Join(", ", missing)}");
    }

    // The BoC paper's extra experiments (SOURCES.md §5) are not among the 22; they have their own variant sets.
    private static readonly HashSet<string> PaperExperiments =
        ["ReasonableBanking", "BusyBanking", "Dining Philosophers Scaling"];

    [Fact]
    public void ThePeerBaselinesAndPaperExperimentsAreComplete()
    {
        string[] Variants(string name, SavinaVariant variant) => Runs
            .Where(t => t.GetCustomAttribute<SavinaWorkloadAttribute>() is { } a && a.Name == name && a.Variant == variant)
            .Select(t => t.Name)
            .Order(StringComparer.Ordinal)
            .ToArray();

        int InSuite(SavinaVariant variant) => Runs
            .Select(t => t.GetCustomAttribute<SavinaWorkloadAttribute>()!)
            .Count(a => a.Variant == variant && !PaperExperiments.Contains(a.Name));

        Assert.Equal(22, InSuite(SavinaVariant.Channels));
        Assert.Equal(10, InSuite(SavinaVariant.Akka));
        Assert.Single(Variants("Banking", SavinaVariant.Locks));
        Assert.Single(Variants("Dining Philosophers", SavinaVariant.Locks));
        foreach (SavinaVariant variant in new[] { SavinaVariant.Full, SavinaVariant.Channels, SavinaVariant.Akka, SavinaVariant.Locks })
        {
            Assert.Single(Variants("ReasonableBanking", variant));
        }

        Assert.Single(Variants("BusyBanking", SavinaVariant.Full));
        Assert.Equal(
            ["DiningPhilosophersScalingAlternating", "DiningPhilosophersScalingNaive"],
            Variants("Dining Philosophers Scaling", SavinaVariant.Full));
        Assert.Single(Variants("Dining Philosophers Scaling", SavinaVariant.Locks));
    }

    [Fact]
    public void TheSuiteIsComplete()
    {
        string[] actor =
        [
            "Ping Pong", "Count", "Fork-Join Throughput", "Fork-Join Create", "Thread Ring", "Chameneos", "Big", "Fib",
            "Concurrent Dictionary", "Concurrent Sorted Linked-List", "Bounded Buffer", "Dining Philosophers",
            "Sleeping Barber", "Cigarette Smokers", "Logistic Map Series", "Banking",
            "Filterbank", "Quicksort", "Radixsort", "Recursive Matrix Multiplication", "Sieve of Eratosthenes", "Trapezoid",
        ];
        string[] full =
        [
            "Banking", "Chameneos", "Count", "Dining Philosophers", "Fib", "Fork-Join Create", "Fork-Join Throughput",
            "Logistic Map Series", "Quicksort", "Sleeping Barber", "Trapezoid", "Concurrent Dictionary",
        ];
        var present = Runs.Select(t => t.GetCustomAttribute<SavinaWorkloadAttribute>()!)
            .Where(a => !PaperExperiments.Contains(a.Name))
            .ToArray();
        Assert.Equal(actor.Order(), present.Where(a => a.Variant == SavinaVariant.Actor).Select(a => a.Name).Order());
        Assert.Equal(full.Order(), present.Where(a => a.Variant == SavinaVariant.Full).Select(a => a.Name).Order());
    }
}
