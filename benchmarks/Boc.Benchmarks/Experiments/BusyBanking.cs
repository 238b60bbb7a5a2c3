using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Savina;
using Boc.Benchmarks.Savina.Concurrency;

namespace Boc.Benchmarks.Experiments;

// BusyBanking, the BoC paper's Figure 5a (SOURCES.md §5.2; [V] savina.cpp
// `RUN(boc_benchmark::Banking, 1000, 50000, true)`): full-BoC Banking (§4.16) with a 10 µs wall-clock busy loop (§3
// busy_loop) inside every two-cown transfer, so that transfers on disjoint accounts have work worth running in
// parallel and the run shows how BoC scales with workers.
//
// Decisions:
// - The run is BankingFull itself, derived with its busy-work constructor, not a copy: the same Teller stream, one
//   when(src, dst) per transaction, when(teller){ completed++ } after it, and BankingReference's validation (completed
//   count, exact amount sum, per-account counts and deltas). The busy loop runs after the transfer, inside the
//   behaviour, as in [V]; BusyLoop spins on Stopwatch and does not sleep.
// - Sizes: Paper = Small = 1000 accounts × 50,000 transfers, 50,000 × 10 µs = 500 ms of serial busy work (the
//   artifact's 1-core runs take ≈ 523–525 ms); Test is Banking's test size (100 × 1000, 10 ms of busy work).
// - The paper sweeps every core count of a 72-core machine; this one has 2, so Workers is 1 or 2. Workers sets the
//   runtime's WorkerCount (the most behaviours running at once) on a runtime of this class's own; the dispatcher
//   still comes from BOC_DISPATCHER. The ideal time is SerialWorkMilliseconds ÷ Workers plus the Banking overhead.

/// <summary>Full-BoC Banking with <see cref="BusyMicroseconds"/> of spinning in every transfer.</summary>
[SavinaWorkload("BusyBanking", SavinaVariant.Full)]
public sealed class BusyBankingFull(SavinaSize size) : BankingFull(size, BusyMicroseconds)
{
    /// <summary>The busy loop in each transfer, in microseconds (the paper's busy_loop(10)).</summary>
    public const int BusyMicroseconds = 10;

    /// <summary>The run's busy work if done serially: transfers × <see cref="BusyMicroseconds"/>, in milliseconds.</summary>
    public static double SerialWorkMilliseconds(SavinaSize size) =>
        BankingParameters.For(size).Transactions * (double)BusyMicroseconds / 1000;
}

/// <summary>BenchmarkDotNet entry for BusyBanking: one runtime per worker count.</summary>
public class BusyBanking : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [Params(1, 2)]
    public int Workers { get; set; }

    [IterationSetup]
    public void Setup() => _run = Prepare(new BusyBankingFull(Size));

    [Benchmark]
    public Task Full() => _run.RunAsync();

    protected override BocRuntimeOptions CreateRuntimeOptions()
    {
        BocRuntimeOptions options = base.CreateRuntimeOptions();
        options.WorkerCount = Workers;
        return options;
    }
}
