using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Micro;

/// <summary>
/// Scenario 3: two-cown behaviours over random pairs from a pool of 16 cowns (seeded), so behaviours contend and queue
/// behind each other; per item.
/// </summary>
[Config(typeof(MicroConfig))]
public class ContentionBenchmarks : TwoDispatchers
{
    public const int N = 1024;
    private const int Cowns = 16;

    private readonly Countdown _countdown = new();
    private Cown<Cell>[] _cowns = null!;
    private (int First, int Second)[] _pairs = null!;

    [GlobalSetup]
    public void Setup()
    {
        CreateRuntimes();
        _cowns = Enumerable.Range(0, Cowns).Select(_ => new Cown<Cell>(new Cell())).ToArray();
        var random = new Random(42);
        _pairs = Enumerable.Range(0, N).Select(_ =>
        {
            int first = random.Next(Cowns);
            int second = (first + 1 + random.Next(Cowns - 1)) % Cowns;
            return (first, second);
        }).ToArray();
    }

    [GlobalCleanup]
    public void Cleanup() => DisposeRuntimes();

    [Benchmark(Baseline = true, OperationsPerInvoke = N, Description = "thread pool")]
    [BenchmarkCategory("3 random 2-cown pairs")]
    public void PairsOnThreadPool() => Pairs(PoolRuntime);

    [Benchmark(OperationsPerInvoke = N, Description = "BocScheduler")]
    [BenchmarkCategory("3 random 2-cown pairs")]
    public void PairsOnBocScheduler() => Pairs(SchedulerRuntime);

    private void Pairs(BocRuntime runtime)
    {
        _countdown.Reset(N);
        foreach ((int first, int second) in _pairs)
        {
            runtime.When(_cowns[first], _cowns[second], static (x, y, countdown) =>
            {
                x.Value++;
                y.Value--;
                countdown.Signal();
            }, _countdown);
        }

        _countdown.Wait();
    }
}
