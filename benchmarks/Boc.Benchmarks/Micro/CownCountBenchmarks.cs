using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Micro;

/// <summary>
/// What each extra cown costs a spawn (issue 9: "measure the cost of each extra cown"): an outside thread spawns N
/// behaviours with an (almost) empty body on idle cowns, one, two, three or four per behaviour, and waits for them;
/// against two one-cown spawns (what a two-cown spawn must beat) and a two-cown spawn whose first cown is shared by
/// every spawn (Fork-Join Create's (Master, worker) join). The static+state overloads, on <see cref="BocScheduler"/>
/// (the default). Times are per spawn call (OperationsPerInvoke); each call's behaviour signals once.
/// </summary>
[Config(typeof(MicroConfig))]
public class CownCountBenchmarks
{
    public const int N = 1024;

    private readonly Countdown _countdown = new();
    private BocRuntime _runtime = null!;
    private Cown<Cell>[] _a = null!;
    private Cown<Cell>[] _b = null!;
    private Cown<Cell>[] _c = null!;
    private Cown<Cell>[] _d = null!;
    private Cown<Cell> _shared = null!;

    [GlobalSetup]
    public void Setup()
    {
        _runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler });
        _a = MakeCowns();
        _b = MakeCowns();
        _c = MakeCowns();
        _d = MakeCowns();
        _shared = new Cown<Cell>(new Cell());
    }

    [GlobalCleanup]
    public void Cleanup() => _runtime.Dispose();

    [Benchmark(Baseline = true, OperationsPerInvoke = N, Description = "1 cown")]
    public void OneCown()
    {
        _countdown.Reset(N);
        for (int i = 0; i < N; i++)
        {
            _runtime.When(_a[i], static (_, countdown) => countdown.Signal(), _countdown);
        }

        _countdown.Wait();
    }

    [Benchmark(OperationsPerInvoke = N, Description = "2 spawns of 1 cown")]
    public void TwoOneCownSpawns()
    {
        _countdown.Reset(2 * N);
        for (int i = 0; i < N; i++)
        {
            _runtime.When(_a[i], static (_, countdown) => countdown.Signal(), _countdown);
            _runtime.When(_b[i], static (_, countdown) => countdown.Signal(), _countdown);
        }

        _countdown.Wait();
    }

    [Benchmark(OperationsPerInvoke = N, Description = "2 cowns")]
    public void TwoCowns()
    {
        _countdown.Reset(N);
        for (int i = 0; i < N; i++)
        {
            _runtime.When(_a[i], _b[i], static (_, _, countdown) => countdown.Signal(), _countdown);
        }

        _countdown.Wait();
    }

    [Benchmark(OperationsPerInvoke = N, Description = "3 cowns")]
    public void ThreeCowns()
    {
        _countdown.Reset(N);
        for (int i = 0; i < N; i++)
        {
            _runtime.When(_a[i], _b[i], _c[i], static (_, _, _, countdown) => countdown.Signal(), _countdown);
        }

        _countdown.Wait();
    }

    [Benchmark(OperationsPerInvoke = N, Description = "4 cowns")]
    public void FourCowns()
    {
        _countdown.Reset(N);
        for (int i = 0; i < N; i++)
        {
            _runtime.When(_a[i], _b[i], _c[i], _d[i], static (_, _, _, _, countdown) => countdown.Signal(), _countdown);
        }

        _countdown.Wait();
    }

    [Benchmark(OperationsPerInvoke = N, Description = "2 cowns, 1 shared by all")]
    public void TwoCownsOneShared()
    {
        _countdown.Reset(N);
        for (int i = 0; i < N; i++)
        {
            _runtime.When(_shared, _a[i], static (_, _, countdown) => countdown.Signal(), _countdown);
        }

        _countdown.Wait();
    }

    private static Cown<Cell>[] MakeCowns() => Enumerable.Range(0, N).Select(_ => new Cown<Cell>(new Cell())).ToArray();
}
