using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Micro;

/// <summary>
/// Scenario 2: dependent behaviours, where batching on one worker should pay. Per item:
/// a chain of N behaviours on one cown spawned up front (each released by the one before); a chain where each behaviour
/// spawns the next on the same cown (message style); and ping-pong, where each behaviour spawns the next on the other
/// of two cowns.
/// </summary>
[Config(typeof(MicroConfig))]
public class ChainBenchmarks : TwoDispatchers
{
    public const int N = 1024;

    private readonly Countdown _countdown = new();
    private Cown<Cell> _a = null!;
    private Cown<Cell> _b = null!;
    private Relay _poolRelay = null!;
    private Relay _schedulerRelay = null!;

    [GlobalSetup]
    public void Setup()
    {
        CreateRuntimes();
        _a = new Cown<Cell>(new Cell());
        _b = new Cown<Cell>(new Cell());
        _poolRelay = new Relay(PoolRuntime, _a, _b, _countdown);
        _schedulerRelay = new Relay(SchedulerRuntime, _a, _b, _countdown);
    }

    [GlobalCleanup]
    public void Cleanup() => DisposeRuntimes();

    [Benchmark(Baseline = true, OperationsPerInvoke = N, Description = "thread pool")]
    [BenchmarkCategory("2a chain, spawned up front")]
    public void UpfrontOnThreadPool() => Upfront(PoolRuntime);

    [Benchmark(OperationsPerInvoke = N, Description = "BocScheduler")]
    [BenchmarkCategory("2a chain, spawned up front")]
    public void UpfrontOnBocScheduler() => Upfront(SchedulerRuntime);

    [Benchmark(Baseline = true, OperationsPerInvoke = N, Description = "thread pool")]
    [BenchmarkCategory("2b chain, each spawns the next")]
    public void SelfSpawnOnThreadPool() => _poolRelay.Run(N, pingPong: false);

    [Benchmark(OperationsPerInvoke = N, Description = "BocScheduler")]
    [BenchmarkCategory("2b chain, each spawns the next")]
    public void SelfSpawnOnBocScheduler() => _schedulerRelay.Run(N, pingPong: false);

    [Benchmark(Baseline = true, OperationsPerInvoke = N, Description = "thread pool")]
    [BenchmarkCategory("2c ping-pong, two cowns")]
    public void PingPongOnThreadPool() => _poolRelay.Run(N, pingPong: true);

    [Benchmark(OperationsPerInvoke = N, Description = "BocScheduler")]
    [BenchmarkCategory("2c ping-pong, two cowns")]
    public void PingPongOnBocScheduler() => _schedulerRelay.Run(N, pingPong: true);

    private void Upfront(BocRuntime runtime)
    {
        _countdown.Reset(N);
        for (int i = 0; i < N; i++)
        {
            runtime.When(_a, static (cell, countdown) => { cell.Value++; countdown.Signal(); }, _countdown);
        }

        _countdown.Wait();
    }

    /// <summary>A chain that carries itself from behaviour to behaviour as the state of a static lambda.</summary>
    private sealed class Relay(BocRuntime runtime, Cown<Cell> a, Cown<Cell> b, Countdown countdown)
    {
        private readonly BocRuntime _runtime = runtime;
        private readonly Cown<Cell> _a = a;
        private readonly Cown<Cell> _b = b;
        private readonly Countdown _countdown = countdown;
        private int _remaining;
        private bool _pingPong;

        public void Run(int hops, bool pingPong)
        {
            _remaining = hops;
            _pingPong = pingPong;
            _countdown.Reset(1);
            _runtime.When(_a, Step, this);
            _countdown.Wait();
        }

        // A static method group: C# caches the delegate, so each hop allocates nothing.
        private static void Step(Cell cell, Relay relay)
        {
            cell.Value++;
            if (--relay._remaining == 0)
            {
                relay._countdown.Signal();
                return;
            }

            // The relay is only touched by the behaviour currently holding the chain: hops are ordered.
            Cown<Cell> next = relay._pingPong && (relay._remaining & 1) == 1 ? relay._b : relay._a;
            relay._runtime.When(next, Step, relay);
        }
    }
}
