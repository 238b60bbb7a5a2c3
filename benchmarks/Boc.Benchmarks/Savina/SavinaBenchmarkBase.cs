using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Jobs;

namespace Boc.Benchmarks.Savina;

/// <summary>
/// Whole-program settings: each invocation is one full Savina run (Monitoring strategy: no pilot, one invocation per
/// iteration, set-up in [IterationSetup], excluded from the time), allocations measured, actor-style as the baseline of
/// its full-BoC twin.
/// </summary>
public sealed class SavinaConfig : ManualConfig
{
    public SavinaConfig()
    {
        BeforeAfter.AddJobs(this, Job.Default
            .WithStrategy(RunStrategy.Monitoring)
            .WithLaunchCount(SavinaBenchmarkBase.LaunchesFromEnvironment())
            .WithWarmupCount(2)
            .WithIterationCount(SavinaBenchmarkBase.SizeFromEnvironment() == SavinaSize.Paper ? 10 : 8)

            // Steady state, not tier-0 code. Tiered compilation promotes a hot method only after a delay (100 ms) that
            // restarts whenever anything new is jitted, and BenchmarkDotNet's own engine keeps jitting between
            // iterations: a run of fast iterations (Ping Pong, about 30 ms each) then never reached tier 1, and its
            // two warm-ups did not help (measured: Ping Pong 31 ms per run for its first 20 runs, 5-10 ms after).
            // Without the delay the same optimized (tier-1, PGO) code is in place after the first warm-up; the code
            // measured is what a long-running process runs.
            .WithEnvironmentVariables(new EnvironmentVariable("DOTNET_TC_CallCountingDelayMs", "0")));
        AddDiagnoser(MemoryDiagnoser.Default);

        // The spread of the iterations, next to the median: run-to-run stability is reported, not hidden.
        AddColumn(BenchmarkDotNet.Columns.StatisticColumn.Median, BenchmarkDotNet.Columns.StatisticColumn.Min, BenchmarkDotNet.Columns.StatisticColumn.Max);
        Options |= ConfigOptions.JoinSummary;
    }
}

/// <summary>
/// Base of the Savina BenchmarkDotNet classes: one runtime per process (dispatcher from <c>BOC_DISPATCHER</c>, size from
/// <c>SAVINA_SIZE</c>; both are environment variables, so BenchmarkDotNet's child processes see them).
/// </summary>
[Config(typeof(SavinaConfig))]
public abstract class SavinaBenchmarkBase
{
    protected BocRuntime Runtime { get; private set; } = null!;

    /// <summary>How long <see cref="Prepare"/> warms a run's type up before the first iteration of a process.</summary>
    public static readonly TimeSpan DefaultWarmUpTime = TimeSpan.FromSeconds(1);

    private bool _warmedUp;

    protected SavinaSize Size { get; } = SizeFromEnvironment();

    public static SavinaSize SizeFromEnvironment() =>
        Enum.TryParse(Environment.GetEnvironmentVariable("SAVINA_SIZE"), ignoreCase: true, out SavinaSize size) ? size : SavinaSize.Paper;

    /// <summary>
    /// Processes per benchmark (<c>SAVINA_LAUNCHES</c>, default 1). Some rows differ between processes more than between
    /// iterations of one process, so a single launch cannot settle them; with several, the median and the min-max
    /// are taken over the iterations of every launch.
    /// </summary>
    public static int LaunchesFromEnvironment() =>
        int.TryParse(Environment.GetEnvironmentVariable("SAVINA_LAUNCHES"), out int launches) && launches > 0 ? launches : 1;

    public static BocDispatcher DispatcherFromEnvironment() =>
        Enum.TryParse(Environment.GetEnvironmentVariable("BOC_DISPATCHER"), ignoreCase: true, out BocDispatcher dispatcher)
            ? dispatcher
            : new BocRuntimeOptions().Dispatcher;

    [GlobalSetup]
    public void CreateRuntime() => Runtime = new BocRuntime(CreateRuntimeOptions());

    /// <summary>How long the first <see cref="Prepare"/> of a process warms up (<see cref="DefaultWarmUpTime"/>).</summary>
    protected virtual TimeSpan WarmUpTime => DefaultWarmUpTime;

    /// <summary>
    /// The options of this class's runtime; an override starts from the base's (so the dispatcher still comes from
    /// <c>BOC_DISPATCHER</c>) and changes what it measures, such as the worker count. [Params] are set by then.
    /// </summary>
    protected virtual BocRuntimeOptions CreateRuntimeOptions() => new() { Dispatcher = DispatcherFromEnvironment() };

    [GlobalCleanup]
    public void DisposeRuntime() => Runtime.Dispose();

    /// <summary>
    /// Builds <paramref name="run"/> on this class's runtime (call from an [IterationSetup]). The first call in a process
    /// first warms the run's type up (<see cref="WarmUp"/>).
    /// </summary>
    protected T Prepare<T>(T run)
        where T : SavinaRun
    {
        ArgumentNullException.ThrowIfNull(run);
        if (!_warmedUp)
        {
            _warmedUp = true;
            WarmUp(run.GetType(), Size, Runtime, WarmUpTime);
        }

        run.Setup(Runtime);
        return run;
    }

    /// <summary>
    /// Runs fresh runs of <paramref name="runType"/> at <paramref name="size"/> on <paramref name="runtime"/>, untimed,
    /// until <paramref name="time"/> has passed (at least one run); returns how many it ran.
    /// </summary>
    /// <remarks>
    /// Measured iterations should run the code a long-running process runs: tier-1 code with its PGO data. Even with
    /// the call-counting delay off (<see cref="SavinaConfig"/>), a benchmark of a few milliseconds gets there only after
    /// several runs, more than its two warm-up iterations: Cigarette Smokers actor ran 7.6-13 ms in its first 7 measured
    /// iterations and 2.2-2.4 ms from the 8th on (docs/performance/decisions.md#runs-measure-tier-1-code). A time, not
    /// a count, so that a two-second run (Recursive Matrix Multiplication) is not repeated for nothing. Every variant,
    /// Boc or Channels, gets the same.
    /// </remarks>
    public static int WarmUp(Type runType, SavinaSize size, BocRuntime runtime, TimeSpan time)
    {
        ArgumentNullException.ThrowIfNull(runType);
        ArgumentNullException.ThrowIfNull(runtime);
        var clock = Stopwatch.StartNew();
        int runs = 0;
        do
        {
            // Every concrete run has a public constructor taking a SavinaSize (SavinaRun's remarks; the tests rely on it).
            var run = (SavinaRun)Activator.CreateInstance(runType, size)!;
            run.Setup(runtime);
            run.RunAsync().GetAwaiter().GetResult();
            runs++;
        }
        while (clock.Elapsed < time);

        return runs;
    }
}
