using BenchmarkDotNet.Attributes;

namespace Boc.Testing.Bench;

/// <summary>
/// Exploration speed on the bank-transfer scenario, per strategy: one invocation explores
/// <see cref="SchedulesPerInvocation"/> schedules, reported per schedule (OperationsPerInvoke), so schedules per second
/// is 1 s divided by the mean. Each invocation uses new seeds: it measures exploring, not replaying one schedule.
/// </summary>
[MemoryDiagnoser]
public class ExplorationBenchmarks
{
    private const int SchedulesPerInvocation = 500;

    private int _seed;
    private BocTestStrategy _strategy = BocTestStrategy.Random;

    [Params("random", "pct(3)")]
    public string Strategy { get; set; } = "random";

    [GlobalSetup]
    public void Setup() => _strategy = Strategy == "random" ? BocTestStrategy.Random : BocTestStrategy.Pct(depth: 3);

    [Benchmark(OperationsPerInvoke = SchedulesPerInvocation)]
    public BocTestReport ExploreBankTransfer()
    {
        var options = new BocTestOptions { Iterations = SchedulesPerInvocation, Strategies = [_strategy], Seed = _seed };
        _seed += SchedulesPerInvocation;
        return BocTest.ExploreAsync(BankTransferScenario.Run, options).GetAwaiter().GetResult();
    }
}
