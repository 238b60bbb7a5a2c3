using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Diagnosers;
using BenchmarkDotNet.Engines;
using BenchmarkDotNet.Jobs;
using Boc;

namespace Boc.Benchmarks.Micro;

/// <summary>
/// Scenario 6: one hop of a message chain, on a runtime with a single worker: a chain of <see cref="Hops"/> behaviours,
/// each spawning the next on the next cown of a ring of <see cref="RingSize"/> (Thread Ring's path, with no second worker
/// to steal or spin beside it and no core change). Time per hop.
/// </summary>
/// <remarks>
/// Made to show smaller effects per behaviour than the two-worker scenarios can: in same-code comparisons of two rounds
/// each on the 2-vCPU machine, their per-round ratios moved by 3–28%, this one's by 3–4% (3 processes × 30 chains a
/// round; docs/performance/decisions.md#a-steady-instrument-for-per-hop-changes). Whole processes still run in a slow
/// state now and then (a process's fastest chain at 88–119 ns a hop instead of 64–71), so compare builds in rounds:
/// benchmarks/tools/bench-before-after.sh with BOC_ROUNDS, and read the paired column and the Min column.
/// </remarks>
[Config(typeof(HopConfig))]
public class HopBenchmarks
{
    public const int Hops = 100_000;
    public const int RingSize = 100;

    private BocRuntime _runtime = null!;
    private Chain _chain = null!;

    [GlobalSetup]
    public void Setup()
    {
        _runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler, WorkerCount = 1 });
        _chain = new Chain(_runtime, Enumerable.Range(0, RingSize).Select(_ => new Cown<Cell>(new Cell())).ToArray());
    }

    [GlobalCleanup]
    public void Cleanup() => _runtime.Dispose();

    [Benchmark(OperationsPerInvoke = Hops, Description = "one worker, ring of 100 cowns")]
    [BenchmarkCategory("6 hop")]
    public void ChainOnOneWorker() => _chain.Run(Hops);

    /// <summary>The chain's state, carried from hop to hop as the state of a static method group.</summary>
    private sealed class Chain(BocRuntime runtime, Cown<Cell>[] ring)
    {
        private readonly BocRuntime _runtime = runtime;
        private readonly Cown<Cell>[] _ring = ring;
        private readonly Countdown _done = new();
        private int _remaining;
        private int _at;

        public void Run(int hops)
        {
            _remaining = hops;
            _at = 0;
            _done.Reset(1);
            _runtime.When(_ring[0], Hop, this);
            _done.Wait();
        }

        // Only the behaviour holding the chain touches the fields: hops are ordered one after another.
        private static void Hop(Cell cell, Chain chain)
        {
            cell.Value++;
            if (--chain._remaining == 0)
            {
                chain._done.Signal();
                return;
            }

            chain._at = chain._at == chain._ring.Length - 1 ? 0 : chain._at + 1;
            chain._runtime.When(chain._ring[chain._at], Hop, chain);
        }
    }
}

/// <summary>
/// The hop scenario's job: one invocation per iteration (a whole chain), 3 processes × (5 warm-up + 30 measured), with
/// the Min column beside the median.
/// </summary>
public sealed class HopConfig : ManualConfig
{
    public HopConfig()
    {
        BeforeAfter.AddJobs(this, Job.Default.WithStrategy(RunStrategy.Monitoring).WithLaunchCount(3).WithWarmupCount(5).WithIterationCount(30));
        AddDiagnoser(MemoryDiagnoser.Default);
        AddColumnProvider(DefaultColumnProviders.Instance);
        AddColumn(StatisticColumn.Median, StatisticColumn.Min, StatisticColumn.Max);
        AddColumn(CategoriesColumn.Default);
        Options |= ConfigOptions.JoinSummary;
    }
}
