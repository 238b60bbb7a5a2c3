#:project ../Boc.Benchmarks/Boc.Benchmarks.csproj
#:property RunAnalyzers=false
// Where the time of the spawn+run micro benchmark goes (benchmarks/Boc.Benchmarks/Micro/SpawnRunBenchmarks.cs,
// scenario 1): an outside thread spawns N = 1024 one-cown behaviours on N idle cowns (the static+state overload, on
// BocScheduler) and waits for them, against the same thread queueing N bare IThreadPoolWorkItems. Every item signals
// one shared countdown, as in the benchmark. The two floods alternate in blocks of --rounds floods each, the order
// reversed every other block (alternating in one process has an order bias:
// docs/performance/decisions.md#order-within-a-pair).
//
//   dotnet run -c Release benchmarks/tools/SpawnRunProbe.cs -- [--rounds N] [--blocks N] [--warmup N] [--workers N]
//
// Prints, for each kind: the time per item (median over blocks, min-max), the process's CPU time per item (both cores
// busy shows as twice the time), the producer's own loop per item, how many of the 1024 items had not finished when
// the producer's loop ended, how long after the flood started the first item finished, and how long the producer took
// to wake after the last one finished; then Boc / bare per pair of blocks (median, quartiles).

using System.Diagnostics;
using System.Globalization;
using Boc;

// Steady state, as the BenchmarkDotNet jobs: without tiered compilation's call-counting delay (SteadyStateProcess).
if (Boc.Benchmarks.SteadyStateProcess.RunAgainWithoutCallCountingDelay(args) is int exitCode)
{
    return exitCode;
}

const int N = 1024;
var inv = CultureInfo.InvariantCulture;
int rounds = 1000;
int blocks = 16;
int warmup = 3000;
int workers = 0;
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--rounds": rounds = int.Parse(args[++i], inv); break;
        case "--blocks": blocks = int.Parse(args[++i], inv); break;
        case "--warmup": warmup = int.Parse(args[++i], inv); break;
        case "--workers": workers = int.Parse(args[++i], inv); break;
        default:
            Console.Error.WriteLine("usage: dotnet run -c Release benchmarks/tools/SpawnRunProbe.cs -- [--rounds N] [--blocks N] [--warmup N] [--workers N]");
            return 2;
    }
}

var options = new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler };
if (workers > 0)
{
    options.WorkerCount = workers;
}

using var runtime = new BocRuntime(options);
Cown<Cell>[] cowns = Enumerable.Range(0, N).Select(_ => new Cown<Cell>(new Cell())).ToArray();
var countdown = new ProbeCountdown();
var item = new SignalItem(countdown);
var kinds = new[] { new Kind("Boc, BocScheduler"), new Kind("bare IThreadPoolWorkItem") };

for (int i = 0; i < warmup; i++)
{
    Flood(kinds[0], record: false);
    Flood(kinds[1], record: false);
}

var ratios = new List<double>();
for (int b = 0; b < blocks; b++)
{
    var perItem = new double[2];
    foreach (int k in b % 2 == 0 ? new[] { 0, 1 } : new[] { 1, 0 })
    {
        Kind kind = kinds[k];
        TimeSpan cpu = Process.GetCurrentProcess().TotalProcessorTime;
        long start = Stopwatch.GetTimestamp();
        for (int r = 0; r < rounds; r++)
        {
            Flood(kind, record: true);
        }

        perItem[k] = Stopwatch.GetElapsedTime(start).TotalNanoseconds / rounds / N;
        kind.PerItem.Add(perItem[k]);
        kind.CpuPerItem.Add((Process.GetCurrentProcess().TotalProcessorTime - cpu).TotalNanoseconds / rounds / N);
    }

    ratios.Add(perItem[0] / perItem[1]);
}

Console.WriteLine($"{N} items per flood, {rounds} floods per block, {blocks} blocks per kind, workers {(workers > 0 ? workers : Environment.ProcessorCount)}");
foreach (Kind kind in kinds)
{
    kind.Print();
}

ratios.Sort();
Console.WriteLine(string.Create(inv, $"Boc / bare per pair of blocks: median {ratios[ratios.Count / 2]:F2} (quartiles {ratios[ratios.Count / 4]:F2}-{ratios[3 * ratios.Count / 4]:F2})"));
return 0;

void Flood(Kind kind, bool record)
{
    countdown.Reset(N);
    long start = Stopwatch.GetTimestamp();
    if (ReferenceEquals(kind, kinds[0]))
    {
        for (int i = 0; i < N; i++)
        {
            runtime.When(cowns[i], static (_, c) => c.Signal(), countdown);
        }
    }
    else
    {
        for (int i = 0; i < N; i++)
        {
            ThreadPool.UnsafeQueueUserWorkItem(item, preferLocal: false);
        }
    }

    long loopEnd = Stopwatch.GetTimestamp();
    int unfinished = countdown.Remaining;
    countdown.Wait();
    long woke = Stopwatch.GetTimestamp();
    if (record)
    {
        kind.Record(loopEnd - start, unfinished, countdown.FirstAt - start, woke - countdown.LastAt);
    }
}

/// <summary>One kind of flood and what was measured of it.</summary>
internal sealed class Kind(string name)
{
    private readonly List<double> _loopPerItem = [];
    private readonly List<double> _unfinished = [];
    private readonly List<double> _first = [];
    private readonly List<double> _wake = [];

    public List<double> PerItem { get; } = [];

    public List<double> CpuPerItem { get; } = [];

    public void Record(long loopTicks, int unfinished, long firstTicks, long wakeTicks)
    {
        _loopPerItem.Add(Stopwatch.GetElapsedTime(0, loopTicks).TotalNanoseconds / 1024);
        _unfinished.Add(unfinished);
        _first.Add(Stopwatch.GetElapsedTime(0, firstTicks).TotalMicroseconds);
        _wake.Add(Stopwatch.GetElapsedTime(0, wakeTicks).TotalMicroseconds);
    }

    public void Print()
    {
        var inv = CultureInfo.InvariantCulture;
        Console.WriteLine(string.Create(inv, $"{name}:"));
        Console.WriteLine(string.Create(inv, $"  per item {Median(PerItem):F1} ns ({PerItem.Min():F1}-{PerItem.Max():F1}), CPU {Median(CpuPerItem):F1} ns"));
        Console.WriteLine(string.Create(inv, $"  producer's loop {Median(_loopPerItem):F1} ns per item; unfinished when it ended {Median(_unfinished):F0} of 1024"));
        Console.WriteLine(string.Create(inv, $"  first item done after {Median(_first):F1} us (quartiles {Quantile(_first, 0.25):F1}-{Quantile(_first, 0.75):F1}); producer awake {Median(_wake):F1} us after the last"));
    }

    private static double Median(List<double> values) => Quantile(values, 0.5);

    private static double Quantile(List<double> values, double q)
    {
        var sorted = values.OrderBy(v => v).ToList();
        return sorted[(int)(q * (sorted.Count - 1))];
    }
}

/// <summary>The benchmark's countdown (MicroSupport.cs), stamping the first and the last signal of a flood.</summary>
internal sealed class ProbeCountdown
{
    private readonly ManualResetEventSlim _done = new();
    private int _count;
    private int _remaining;

    public long FirstAt { get; private set; }

    public long LastAt { get; private set; }

    public int Remaining => Volatile.Read(ref _remaining);

    public void Reset(int count)
    {
        _done.Reset();
        _count = count;
        Volatile.Write(ref _remaining, count);
    }

    public void Signal()
    {
        int remaining = Interlocked.Decrement(ref _remaining);
        if (remaining == _count - 1)
        {
            FirstAt = Stopwatch.GetTimestamp();
        }

        if (remaining == 0)
        {
            LastAt = Stopwatch.GetTimestamp();
            _done.Set();
        }
    }

    public void Wait()
    {
        if (!_done.Wait(TimeSpan.FromSeconds(60)))
        {
            throw new TimeoutException("A flood did not complete: the runtime lost work.");
        }
    }
}

/// <summary>The state each cown protects (the bodies do not touch it, as in the benchmark).</summary>
internal sealed class Cell;

internal sealed class SignalItem(ProbeCountdown countdown) : IThreadPoolWorkItem
{
    public void Execute() => countdown.Signal();
}
