using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Jobs;
using Boc;

namespace Boc.Benchmarks.Micro;

/// <summary>
/// Settings shared by the hot-path benchmarks: allocations measured, results grouped by scenario (category) with the
/// thread-pool dispatcher (or the bare .NET baseline) as each scenario's baseline, and a bounded job so that the whole
/// suite fits in minutes on a 2-core machine.
/// </summary>
public sealed class MicroConfig : ManualConfig
{
    public MicroConfig()
    {
        BeforeAfter.AddJobs(this, Job.Default.WithLaunchCount(Launches).WithWarmupCount(5).WithIterationCount(20).WithInvocationCount(1024).WithUnrollFactor(1));
        AddDiagnoser(MemoryDiagnoser.Default);
        AddLogicalGroupRules(BenchmarkLogicalGroupRule.ByCategory);
        AddColumnProvider(BenchmarkDotNet.Columns.DefaultColumnProviders.Instance);
        AddColumn(BenchmarkDotNet.Columns.CategoriesColumn.Default);
        Options |= ConfigOptions.JoinSummary;
    }

    /// <summary>
    /// Processes per benchmark (<c>MICRO_LAUNCHES</c>, default 3). A before/after run of the whole suite doubles the
    /// processes; with one launch a side, rounds of <c>bench-before-after.sh</c> (<c>BOC_ROUNDS</c>) pair them instead.
    /// </summary>
    private static int Launches =>
        int.TryParse(Environment.GetEnvironmentVariable("MICRO_LAUNCHES"), out int launches) && launches > 0 ? launches : 3;
}

/// <summary>Counts completions down to zero; the waiter blocks on an event rather than spinning.</summary>
public sealed class Countdown
{
    private readonly ManualResetEventSlim _done = new();
    private int _remaining;

    public void Reset(int count)
    {
        _done.Reset();
        Volatile.Write(ref _remaining, count);
    }

    public void Signal()
    {
        if (Interlocked.Decrement(ref _remaining) == 0)
        {
            _done.Set();
        }
    }

    public void Wait()
    {
        if (!_done.Wait(TimeSpan.FromSeconds(60)))
        {
            throw new TimeoutException("A benchmark operation did not complete: the runtime lost work.");
        }
    }
}

/// <summary>State protected by the benchmarks' cowns.</summary>
public sealed class Cell
{
    public long Value { get; set; }
}

/// <summary>The two runtimes every scenario runs on.</summary>
public abstract class TwoDispatchers
{
    protected BocRuntime PoolRuntime { get; private set; } = null!;

    protected BocRuntime SchedulerRuntime { get; private set; } = null!;

    protected void CreateRuntimes()
    {
        PoolRuntime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.ThreadPool });
        SchedulerRuntime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler });
    }

    protected void DisposeRuntimes()
    {
        PoolRuntime.Dispose();
        SchedulerRuntime.Dispose();
    }
}
