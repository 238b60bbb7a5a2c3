// The bound does not exist in runtimes before issue 12: the before/after job against an older package skips this file.
#if !BOC_BASELINE
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Jobs;
using Boc;

namespace Boc.Benchmarks.Micro;

/// <summary>
/// The never-waiting producer (issue 12): one thread spawns <see cref="N"/> small behaviours on one cown as fast as it
/// can, then waits for them all. Without a bound the backlog grows to nearly N pending behaviours (each a pooled
/// behaviour object the pool cannot supply, so a fresh allocation that survives until it runs); with
/// <see cref="BocRuntimeOptions.MaxPendingBehaviours"/> the producer is held to the bound, blocking in <c>When</c>
/// (<see cref="BocFullMode.Wait"/>) or awaiting <see cref="BocRuntime.WaitForRoomAsync"/> after a refused <c>TryWhen</c>.
/// </summary>
/// <remarks>
/// Throughput is the mean per behaviour (OperationsPerInvoke). Memory: MemoryDiagnoser's allocated bytes per behaviour
/// and its Gen0/1/2 counts, and two columns measured in the benchmark process, the highest pending count and the
/// highest GC heap size seen just after the producer's loop (where the backlog peaks), over the run's iterations.
/// </remarks>
[Config(typeof(Config))]
public class BackpressureBenchmarks
{
    public const int N = 200_000;
    public const int Bound = 1024;

    private readonly Countdown _countdown = new();
    private BocRuntime _runtime = null!;
    private Cown<Cell> _cown = null!;

    [Params(null, Bound)]
    public int? MaxPending { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _runtime = new BocRuntime(new BocRuntimeOptions { MaxPendingBehaviours = MaxPending });
        _cown = new Cown<Cell>(new Cell());
        PeakColumns.Reset();
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _runtime.Dispose();
        PeakColumns.Publish(this);
    }

    /// <summary>When in a loop: unbounded, it never waits; bounded, it blocks while the runtime is full.</summary>
    [Benchmark(Baseline = true, OperationsPerInvoke = N, Description = "When (blocks when full)")]
    public void BlockingWhen()
    {
        _countdown.Reset(N);
        for (int i = 0; i < N; i++)
        {
            _runtime.When(_cown, static (cell, countdown) => { cell.Value++; countdown.Signal(); }, _countdown);
        }

        PeakColumns.Sample(_runtime);
        _countdown.Wait();
    }

    /// <summary>TryWhen, awaiting room when refused: the asynchronous producer's loop.</summary>
    [Benchmark(OperationsPerInvoke = N, Description = "TryWhen + WaitForRoomAsync")]
    public async Task TryWhenThenWaitForRoom()
    {
        _countdown.Reset(N);
        for (int i = 0; i < N; i++)
        {
            while (!_runtime.TryWhen(_cown, static (cell, countdown) => { cell.Value++; countdown.Signal(); }, _countdown))
            {
                await _runtime.WaitForRoomAsync().ConfigureAwait(false);
            }
        }

        PeakColumns.Sample(_runtime);
        _countdown.Wait();
    }

    private sealed class Config : ManualConfig
    {
        public Config()
        {
            // One producer loop is a whole invocation: no unrolling, a few iterations.
            AddJob(Job.Default.WithLaunchCount(1).WithWarmupCount(3).WithIterationCount(15).WithInvocationCount(1).WithUnrollFactor(1));
            AddDiagnoser(MemoryDiagnoser.Default);
            AddColumn(new PeakColumns.Column("Peak pending", PeakColumns.PendingKey), new PeakColumns.Column("Peak GC heap (MB)", PeakColumns.HeapKey));
        }
    }
}
#endif
