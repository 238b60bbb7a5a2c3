#:project ../Boc.Benchmarks/Boc.Benchmarks.csproj
#:property RunAnalyzers=false
// What each extra cown costs a spawner (issue 9: "measure the cost of each extra cown"). An outside thread spawns
// floods of N = 1024 fire-and-forget behaviours (the static+state overloads, on BocScheduler) and waits for them. Kinds:
//   1 cown            When(a[i])                 on N idle cowns
//   2 x 1 cown        When(a[i]); When(b[i])     two one-cown spawns, what a pair must beat
//   2 cowns           When(a[i], b[i])           on idle pairs
//   3 cowns           When(a[i], b[i], c[i])     on idle triples
//   2 cowns, 1 busy   When(hub, a[i])            every pair shares one cown (Fork-Join Create's (Master, worker))
//   new cown          new Cown(...)              no spawn: what making a cown costs
//   FJC full          Fork-Join Create's full loop: a new cown, a one-cown spawn on it, a (hub, cown) spawn
//   FJC full, two loops   the same spawns as two loops: every cown and its compute first, then every join
//   FJC actor         its actor loop: a new cown and a one-cown spawn on it, whose body spawns on the hub
// The kinds alternate in blocks of --rounds floods each, the order rotated every block (alternating in one process has
// an order bias: docs/performance/decisions.md#order-within-a-pair).
//
//   dotnet run -c Release benchmarks/tools/SpawnCostProbe.cs -- [--rounds N] [--blocks N] [--warmup N] [--workers N] [--only KIND;...]
//
// Prints, per kind, the producer's loop per spawn call and the whole flood per spawn call (medians over blocks, min-max);
// then each kind's loop against "1 cown" (always run) and against "2 x 1 cown" (NaN when --only leaves it out), per
// block (median).

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
int rounds = 200;
int blocks = 16;
int warmup = 2000;
int workers = 0;
string[]? only = null;
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--rounds": rounds = int.Parse(args[++i], inv); break;
        case "--blocks": blocks = int.Parse(args[++i], inv); break;
        case "--warmup": warmup = int.Parse(args[++i], inv); break;
        case "--workers": workers = int.Parse(args[++i], inv); break;
        case "--only": only = args[++i].Split(';'); break;
        default:
            Console.Error.WriteLine("usage: dotnet run -c Release benchmarks/tools/SpawnCostProbe.cs -- [--rounds N] [--blocks N] [--warmup N] [--workers N] [--only KIND;...]");
            return 2;
    }
}

var options = new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler };
if (workers > 0)
{
    options.WorkerCount = workers;
}

using var runtime = new BocRuntime(options);
Cown<Cell>[] a = Enumerable.Range(0, N).Select(_ => new Cown<Cell>(new Cell())).ToArray();
Cown<Cell>[] b = Enumerable.Range(0, N).Select(_ => new Cown<Cell>(new Cell())).ToArray();
Cown<Cell>[] c = Enumerable.Range(0, N).Select(_ => new Cown<Cell>(new Cell())).ToArray();
var hub = new Cown<Cell>(new Cell());
var fresh = new Cown<Cell>[N];
var countdown = new CountdownEvent(1);
var kinds = new Kind[]
{
    new("1 cown", 1, () =>
    {
        for (int i = 0; i < N; i++)
        {
            runtime.When(a[i], static (_, d) => d.Signal(), countdown);
        }
    }),
    new("new cown", 0, () =>
    {
        for (int i = 0; i < N; i++)
        {
            GC.KeepAlive(new Cown<Cell>(new Cell()));
        }
    }),
    new("2 x 1 cown", 2, () =>
    {
        for (int i = 0; i < N; i++)
        {
            runtime.When(a[i], static (_, d) => d.Signal(), countdown);
            runtime.When(b[i], static (_, d) => d.Signal(), countdown);
        }
    }),
    new("2 cowns", 1, () =>
    {
        for (int i = 0; i < N; i++)
        {
            runtime.When(a[i], b[i], static (_, _, d) => d.Signal(), countdown);
        }
    }),
    new("3 cowns", 1, () =>
    {
        for (int i = 0; i < N; i++)
        {
            runtime.When(a[i], b[i], c[i], static (_, _, _, d) => d.Signal(), countdown);
        }
    }),
    new("2 cowns, 1 busy", 1, () =>
    {
        for (int i = 0; i < N; i++)
        {
            runtime.When(hub, a[i], static (_, _, d) => d.Signal(), countdown);
        }
    }),
    new("FJC full", 1, () =>
    {
        for (int i = 0; i < N; i++)
        {
            var worker = new Cown<Cell>(new Cell());
            runtime.When(worker, static w => w.Value++);
            runtime.When(hub, worker, static (_, _, d) => d.Signal(), countdown);
        }
    }),
    new("FJC full, two loops", 1, () =>
    {
        for (int i = 0; i < N; i++)
        {
            var worker = new Cown<Cell>(new Cell());
            fresh[i] = worker;
            runtime.When(worker, static w => w.Value++);
        }

        for (int i = 0; i < N; i++)
        {
            runtime.When(hub, fresh[i], static (_, _, d) => d.Signal(), countdown);
        }
    }),
    new("FJC actor", 1, () =>
    {
        for (int i = 0; i < N; i++)
        {
            var worker = new Cown<Cell>(new Cell());
            runtime.When(worker, static (w, s) =>
            {
                w.Value++;
                s.Runtime.When(s.Hub, static (_, d) => d.Signal(), s.Countdown);
            }, (Runtime: runtime, Hub: hub, Countdown: countdown));
        }
    }),
};

if (only is not null)
{
    // Keeps "1 cown" first: the ratios are taken against it.
    kinds = kinds.Where((kind, k) => k == 0 || only.Contains(kind.Name)).ToArray();
}

for (int w = 0; w < warmup; w++)
{
    foreach (Kind kind in kinds)
    {
        Flood(kind, record: false);
    }
}

int twoOnes = Array.FindIndex(kinds, kind => kind.Name == "2 x 1 cown");
var vsOne = kinds.Select(_ => new List<double>()).ToArray();
var vsTwoOnes = kinds.Select(_ => new List<double>()).ToArray();
for (int block = 0; block < blocks; block++)
{
    var loop = new double[kinds.Length];
    for (int j = 0; j < kinds.Length; j++)
    {
        int k = (j + block) % kinds.Length;
        for (int r = 0; r < rounds; r++)
        {
            Flood(kinds[k], record: true);
        }

        loop[k] = kinds[k].EndBlock(rounds);
    }

    for (int k = 0; k < kinds.Length; k++)
    {
        vsOne[k].Add(loop[k] / loop[0]);
        vsTwoOnes[k].Add(twoOnes < 0 ? double.NaN : loop[k] / loop[twoOnes]);
    }
}

Console.WriteLine($"{N} spawn calls per flood, {rounds} floods per block, {blocks} blocks per kind, workers {(workers > 0 ? workers : Environment.ProcessorCount)}");
Console.WriteLine("kind: producer's loop per spawn call, ns (min-max) | whole flood per spawn call, ns | loop / 1 cown | loop / 2 x 1 cown");
for (int k = 0; k < kinds.Length; k++)
{
    Kind kind = kinds[k];
    Console.WriteLine(string.Create(inv,
        $"{kind.Name,-16} {Median(kind.Loop),7:F1} ({kind.Loop.Min():F1}-{kind.Loop.Max():F1}) | {Median(kind.Whole),7:F1} | {Median(vsOne[k]):F2} | {Median(vsTwoOnes[k]):F2}"));
}

return 0;

void Flood(Kind kind, bool record)
{
    countdown.Reset(N * kind.SignalsPerCall);
    long start = Stopwatch.GetTimestamp();
    kind.Spawn();
    long loopEnd = Stopwatch.GetTimestamp();
    if (!countdown.Wait(TimeSpan.FromSeconds(60)))
    {
        throw new TimeoutException($"{kind.Name}: a flood did not finish within 60 s");
    }

    long end = Stopwatch.GetTimestamp();
    if (record)
    {
        kind.Record(loopEnd - start, end - start);
    }
}

static double Median(List<double> values)
{
    var sorted = values.OrderBy(v => v).ToList();
    return sorted[sorted.Count / 2];
}

/// <summary>One kind of flood, and its per-block medians.</summary>
internal sealed class Kind(string name, int signalsPerCall, Action spawn)
{
    private readonly List<double> _loopTicks = [];
    private readonly List<double> _wholeTicks = [];

    public string Name => name;

    public int SignalsPerCall => signalsPerCall;

    public Action Spawn => spawn;

    public List<double> Loop { get; } = [];

    public List<double> Whole { get; } = [];

    public void Record(long loopTicks, long wholeTicks)
    {
        _loopTicks.Add(loopTicks);
        _wholeTicks.Add(wholeTicks);
    }

    /// <summary>Closes a block: its medians per spawn call, in ns; returns the loop's.</summary>
    public double EndBlock(int rounds)
    {
        double loop = PerCall(_loopTicks);
        Loop.Add(loop);
        Whole.Add(PerCall(_wholeTicks));
        _loopTicks.Clear();
        _wholeTicks.Clear();
        return loop;
    }

    private static double PerCall(List<double> ticks)
    {
        ticks.Sort();
        return ticks[ticks.Count / 2] * 1e9 / Stopwatch.Frequency / 1024;
    }
}

/// <summary>A cown's state.</summary>
internal sealed class Cell
{
    public long Value { get; set; }
}
