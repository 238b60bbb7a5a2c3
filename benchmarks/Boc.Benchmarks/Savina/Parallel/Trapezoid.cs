using System.Collections.Concurrent;
using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Parallel;

// Savina 4.22 Trapezoid (SOURCES.md §4.22): a Master splits [L, R] into W equal ranges, each Worker integrates fx
// over its range with the trapezoid rule and replies with its area, the Master sums the W areas.
//
// Decisions:
// - Intervals follow Savina (wl = range·i + L), not [V]'s cumulative `left += range*i` (spec §7.6).
// - Expected area: at Paper the spec's value 0.27108075195295755. A sequential C# run of the same per-worker loop
//   (summing workers in id order) gives 0.2710807519529576, one ulp away, and every worker gets n = 100,000; checked
//   once while porting. At Small/Test the expected area is that sequential computation, done once per process and
//   size outside the timed region. The tolerance is relative 1e-9 because the actor Master adds results in arrival order.
// - Small keeps W = 100 and the interval, with 2.5x fewer pieces; Test uses 200 pieces per worker.

/// <summary>Parameters and the sequential reference shared by both variants.</summary>
internal static class TrapezoidModel
{
    public const double PaperArea = 0.27108075195295755;

    private static readonly ConcurrentDictionary<(int Pieces, int Workers, double Left, double Right), double> References = new();

    public static (int Pieces, int Workers, double Left, double Right) Parameters(SavinaSize size) => size switch
    {
        SavinaSize.Paper => (10_000_000, 100, 1, 5),
        SavinaSize.Small => (4_000_000, 100, 1, 5),
        _ => (20_000, 100, 1, 5),
    };

    public static double ExpectedArea(SavinaSize size)
    {
        var p = Parameters(size);
        return size == SavinaSize.Paper
            ? PaperArea
            : References.GetOrAdd(p, static k =>
            {
                double h = (k.Right - k.Left) / k.Pieces;
                double total = 0;
                for (int i = 0; i < k.Workers; i++)
                {
                    (double wl, double wr) = WorkerRange(k.Left, k.Right, k.Workers, i);
                    total += Integrate(wl, wr, h);
                }

                return total;
            });
    }

    // Savina's Master: worker i gets [range·i + L, that + range).
    public static (double Left, double Right) WorkerRange(double left, double right, int workers, int i)
    {
        double range = (right - left) / workers;
        double wl = (range * i) + left;
        return (wl, wl + range);
    }

    // Savina's Worker loop.
    public static double Integrate(double wl, double wr, double h)
    {
        int n = (int)((wr - wl) / h);
        double area = 0.0;
        for (int i = 0; i < n; i++)
        {
            double lx = (i * h) + wl;
            double rx = lx + h;
            area += 0.5 * (SavinaHelpers.Fx(lx) + SavinaHelpers.Fx(rx)) * h;
        }

        return area;
    }

    public static bool Close(double actual, double expected) =>
        Math.Abs(actual - expected) <= 1e-9 * Math.Abs(expected);
}

/// <summary>Actor style: a Master cown and W Worker cowns; Work and Result are one-cown behaviours on the receiver.</summary>
[SavinaWorkload("Trapezoid", SavinaVariant.Actor)]
public sealed class TrapezoidActor(SavinaSize size) : SavinaRun(size)
{
    private readonly (int Pieces, int Workers, double Left, double Right) _p = TrapezoidModel.Parameters(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<MasterState> _master = null!;
    private Cown<WorkerState>[] _workers = null!;
    private double _expected;
    private double _area;
    private int _results;

    protected override void Build()
    {
        _expected = TrapezoidModel.ExpectedArea(Size);
        _master = new Cown<MasterState>(new MasterState());
        _workers = new Cown<WorkerState>[_p.Workers];
        for (int i = 0; i < _workers.Length; i++)
        {
            _workers[i] = new Cown<WorkerState>(new WorkerState { Id = i });
        }
    }

    protected override Task ExecuteAsync()
    {
        double h = (_p.Right - _p.Left) / _p.Pieces;
        Runtime.When(_master, static (master, m) => m.Run.OnMasterWork(m.Left, m.Right, m.H), new Work(this, _p.Left, _p.Right, h));
        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_results == _p.Workers, $"Master received {_results} results, expected {_p.Workers}");
        Check(TrapezoidModel.Close(_area, _expected), $"area {_area:R}, expected {_expected:R} (relative tolerance 1e-9)");
    }

    // Master, on Work(L, R, h): one Work per worker.
    private void OnMasterWork(double left, double right, double h)
    {
        for (int i = 0; i < _workers.Length; i++)
        {
            (double wl, double wr) = TrapezoidModel.WorkerRange(left, right, _workers.Length, i);
            Runtime.When(_workers[i], static (worker, m) => m.Run.OnWork(worker, m.Left, m.Right, m.H), new Work(this, wl, wr, h));
        }
    }

    // Worker, on Work: integrate and reply.
    private void OnWork(WorkerState worker, double wl, double wr, double h)
    {
        double area = TrapezoidModel.Integrate(wl, wr, h);
        Runtime.When(_master, static (master, r) => r.Run.OnResult(master, r.Area), new Result(this, area, worker.Id));
    }

    // Master, on Result: accumulate; the W-th result completes the run.
    private void OnResult(MasterState master, double area)
    {
        master.TermsReceived++;
        master.Area += area;
        if (master.TermsReceived == _workers.Length)
        {
            _results = master.TermsReceived;
            _area = master.Area;
            _done.SetResult();
        }
    }

    private readonly record struct Work(TrapezoidActor Run, double Left, double Right, double H);

    private readonly record struct Result(TrapezoidActor Run, double Area, int WorkerId);

    private sealed class MasterState
    {
        public int TermsReceived { get; set; }

        public double Area { get; set; }
    }

    private sealed class WorkerState
    {
        public int Id { get; init; }
    }
}

/// <summary>
/// Full BoC ([V] boc/parallel/trapezoid.h with Savina's intervals): W partial-result cowns, each filled by a one-cown
/// behaviour; then W−1 two-cown behaviours fold r_i into r_0 (r_i read-only), in spawn order on r_0; a last read of r_0
/// completes. No Master cown and no Result messages.
/// </summary>
[SavinaWorkload("Trapezoid", SavinaVariant.Full)]
public sealed class TrapezoidFull(SavinaSize size) : SavinaRun(size)
{
    private readonly (int Pieces, int Workers, double Left, double Right) _p = TrapezoidModel.Parameters(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<Partial>[] _partials = null!;
    private double _expected;
    private double _area;

    protected override void Build()
    {
        _expected = TrapezoidModel.ExpectedArea(Size);
        _partials = new Cown<Partial>[_p.Workers];
        for (int i = 0; i < _partials.Length; i++)
        {
            _partials[i] = new Cown<Partial>(new Partial());
        }
    }

    protected override Task ExecuteAsync()
    {
        double h = (_p.Right - _p.Left) / _p.Pieces;
        for (int i = 0; i < _partials.Length; i++)
        {
            (double wl, double wr) = TrapezoidModel.WorkerRange(_p.Left, _p.Right, _partials.Length, i);
            Runtime.When(_partials[i], static (r, w) => r.Area = TrapezoidModel.Integrate(w.Left, w.Right, w.H), (Left: wl, Right: wr, H: h));
        }

        for (int i = 1; i < _partials.Length; i++)
        {
            Runtime.When(_partials[0], Cown.Read(_partials[i]), static (r0, ri) => r0.Area += ri.Area);
        }

        Runtime.When(Cown.Read(_partials[0]), static (r0, run) =>
        {
            run._area = r0.Area;
            run._done.SetResult();
        }, this);
        return _done.Task;
    }

    protected override void Validate()
    {
        Check(TrapezoidModel.Close(_area, _expected), $"area {_area:R}, expected {_expected:R} (relative tolerance 1e-9)");
    }

    private sealed class Partial
    {
        public double Area { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Trapezoid.</summary>
public partial class Trapezoid : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new TrapezoidActor(Size));

    [IterationSetup(Target = nameof(Full))]
    public void SetupFull() => _run = Prepare(new TrapezoidFull(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();

    [Benchmark]
    public Task Full() => _run.RunAsync();
}
