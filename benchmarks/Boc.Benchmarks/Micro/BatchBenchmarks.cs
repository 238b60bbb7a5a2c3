// Batches do not exist in runtimes before issue 12's batch part: the before/after job against an older package skips
// this file.
#if !BOC_BASELINE
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Jobs;
using Boc;

namespace Boc.Benchmarks.Micro;

/// <summary>
/// The cost of atomicity: N pairs {When(a), When(a, b)} (pair i on cowns i and i + 1, so pairs overlap their
/// neighbours), spawned as two plain spawns against one two-member <c>Batch</c>. Times are per pair (OperationsPerInvoke).
/// </summary>
/// <remarks>
/// A batch takes the general spawn path for both members (no one-cown fast path), allocates its builder and request
/// array, and exchanges once per distinct cown (two per pair, against three for the plain spawns).
/// </remarks>
[Config(typeof(Config))]
public class BatchBenchmarks : TwoDispatchers
{
    public const int N = 1024;

    private readonly Countdown _countdown = new();
    private Cown<Cell>[] _cowns = null!;

    [GlobalSetup]
    public void Setup()
    {
        CreateRuntimes();
        _cowns = Enumerable.Range(0, N + 1).Select(_ => new Cown<Cell>(new Cell())).ToArray();
    }

    [GlobalCleanup]
    public void Cleanup() => DisposeRuntimes();

    [Benchmark(Baseline = true, OperationsPerInvoke = N, Description = "2 plain spawns, thread pool")]
    [BenchmarkCategory("pool")]
    public void TwoSpawnsOnThreadPool() => TwoSpawns(PoolRuntime);

    [Benchmark(OperationsPerInvoke = N, Description = "Batch of 2, thread pool")]
    [BenchmarkCategory("pool")]
    public void BatchOnThreadPool() => Batches(PoolRuntime);

    [Benchmark(Baseline = true, OperationsPerInvoke = N, Description = "2 plain spawns, BocScheduler")]
    [BenchmarkCategory("scheduler")]
    public void TwoSpawnsOnBocScheduler() => TwoSpawns(SchedulerRuntime);

    [Benchmark(OperationsPerInvoke = N, Description = "Batch of 2, BocScheduler")]
    [BenchmarkCategory("scheduler")]
    public void BatchOnBocScheduler() => Batches(SchedulerRuntime);

    private void TwoSpawns(BocRuntime runtime)
    {
        _countdown.Reset(2 * N);
        for (int i = 0; i < N; i++)
        {
            runtime.When(_cowns[i], static (c, countdown) => { c.Value++; countdown.Signal(); }, _countdown);
            runtime.When(_cowns[i], _cowns[i + 1], static (c, d, countdown) => { c.Value += d.Value; countdown.Signal(); }, _countdown);
        }

        _countdown.Wait();
    }

    private void Batches(BocRuntime runtime)
    {
        _countdown.Reset(2 * N);
        for (int i = 0; i < N; i++)
        {
            Cown<Cell> a = _cowns[i];
            Cown<Cell> b = _cowns[i + 1];
            Countdown countdown = _countdown;
            runtime.Batch(batch =>
            {
                batch.When(a, static (c, cd) => { c.Value++; cd.Signal(); }, countdown);
                batch.When(a, b, static (c, d, cd) => { c.Value += d.Value; cd.Signal(); }, countdown);
            });
        }

        _countdown.Wait();
    }

    private sealed class Config : ManualConfig
    {
        public Config()
        {
            AddJob(Job.Default.WithLaunchCount(1).WithWarmupCount(3).WithIterationCount(15).WithInvocationCount(256).WithUnrollFactor(1));
            AddDiagnoser(MemoryDiagnoser.Default);
            AddLogicalGroupRules(BenchmarkLogicalGroupRule.ByCategory);
            AddColumn(BenchmarkDotNet.Columns.CategoriesColumn.Default);
        }
    }
}
#endif
