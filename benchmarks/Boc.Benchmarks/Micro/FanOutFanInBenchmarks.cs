using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Micro;

/// <summary>
/// Scenario 4: one behaviour spawns N behaviours on N cowns (fan-out); each then reports to a single collector cown
/// (fan-in); the collector signals when all N have reported. Per fanned-out item.
/// </summary>
[Config(typeof(MicroConfig))]
public class FanOutFanInBenchmarks : TwoDispatchers
{
    public const int N = 1024;

    private readonly Countdown _countdown = new();
    private Fan _poolFan = null!;
    private Fan _schedulerFan = null!;

    [GlobalSetup]
    public void Setup()
    {
        CreateRuntimes();
        Cown<Cell>[] workers = Enumerable.Range(0, N).Select(_ => new Cown<Cell>(new Cell())).ToArray();
        _poolFan = new Fan(PoolRuntime, workers, _countdown);
        _schedulerFan = new Fan(SchedulerRuntime, workers, _countdown);
    }

    [GlobalCleanup]
    public void Cleanup() => DisposeRuntimes();

    [Benchmark(Baseline = true, OperationsPerInvoke = N, Description = "thread pool")]
    [BenchmarkCategory("4 fan-out/fan-in")]
    public void FanOnThreadPool() => _poolFan.Run();

    [Benchmark(OperationsPerInvoke = N, Description = "BocScheduler")]
    [BenchmarkCategory("4 fan-out/fan-in")]
    public void FanOnBocScheduler() => _schedulerFan.Run();

    private sealed class Fan(BocRuntime runtime, Cown<Cell>[] workers, Countdown countdown)
    {
        private readonly BocRuntime _runtime = runtime;
        private readonly Cown<Cell>[] _workers = workers;
        private readonly Countdown _countdown = countdown;
        private readonly Cown<Cell> _root = new(new Cell());
        private readonly Cown<Collector> _collector = new(new Collector());

        public void Run()
        {
            _countdown.Reset(1);
            _runtime.When(_root, static (_, fan) =>
            {
                foreach (Cown<Cell> worker in fan._workers)
                {
                    fan._runtime.When(worker, static (cell, f) =>
                    {
                        cell.Value++;
                        f._runtime.When(f._collector, static (collector, f2) =>
                        {
                            if (++collector.Count == f2._workers.Length)
                            {
                                collector.Count = 0;
                                f2._countdown.Signal();
                            }
                        }, f);
                    }, fan);
                }
            }, this);
            _countdown.Wait();
        }
    }

    private sealed class Collector
    {
        public int Count { get; set; }
    }
}
