using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Savina;
using Boc.Benchmarks.Savina.Concurrency;

namespace Boc.Benchmarks.Experiments;

// Dining Philosophers scaling, the BoC paper's Figure 5b (SOURCES.md §5.3; [R] test/perf/dining_phil): N fork
// cowns, each with a use counter; philosopher i eats with forks i and (i+1) % N; a meal is
// when(left, right){ left.uses++; right.uses++; busy_loop(work); hunger--; eat() }, so each philosopher's next meal is
// spawned by its previous one, and everything is started from inside one zero-cown when(){...}.
//
// Decisions:
// - Adapted to a 2-core machine: the paper runs 100 philosophers × hunger 500 × 1 ms (50 s of serial work) over
//   1..72 cores. Here N = 100 and work = 1 ms per meal are kept and the hunger H is cut so that a run takes seconds:
//   Paper H = 40 (4 s serial, ideal 2 s on 2 cores), Small H = 20 (2 s serial), Test H = 2 with 10 µs of work.
//   At most N/2 philosophers eat at once, so the ideal time is serial work ÷ min(cores, N/2): see
//   DiningPhilosophersScaling.SerialWorkMilliseconds and IdealMilliseconds, for the chart.
// - Two BoC spawn orders, as the paper's "opt" and "seq" runs: Alternating starts the even-indexed philosophers
//   first, then the odd ones ([R] --optimal_order: every other philosopher can eat at once from the start); Naive
//   starts 0..N-1, so each philosopher's first meal queues behind its left neighbour's. Both are full BoC
//   (SavinaVariant.Full); their class names tell them apart.
// - The hunger counter lives in a per-philosopher object passed as the behaviour's state, not in a cown: only one meal
//   of a philosopher is ever outstanding (the next is spawned by the body of the previous one), so no two behaviours
//   touch it at once, and each behaviour's happens-after its spawner. Bodies are static lambdas with that state.
// - Completion: a philosopher whose hunger reaches 0 reports its meal count to a Table cown (one one-cown behaviour
//   per philosopher, 100 in all), spawned from inside its last meal, so by the last report every meal has run; then
//   one behaviour over all forks reads their use counts under the cowns and completes the run, as in the Savina full
//   variant. SavinaRun.RunAsync then also awaits the runtime's quiescence.
// - Validation: the meals the philosophers counted total N·H, and every fork's uses == 2·H ([R] checks the latter in
//   ~Fork).
// - The threads-and-locks baseline ([R]'s pthread_dining) is the LockedDiningTable of the Savina Dining Philosophers
//   locks variant with these sizes: one dedicated thread per philosopher, forks as System.Threading.Lock taken
//   lower index first. Its threads start in the alternating order only: the start order decides only who reaches
//   the locks first, and after the first meals the OS scheduler and lock hand-off decide the rest, whereas in BoC
//   the spawn order fixes the order of every later meal on a fork. A naive-order locks variant would add a
//   multi-second benchmark that measures little more than thread start-up.

/// <summary>The experiment's sizes (see the file header) and spawn orders.</summary>
internal readonly record struct DiningScalingParameters(int Philosophers, int Hunger, int WorkMicroseconds)
{
    public static DiningScalingParameters For(SavinaSize size) => size switch
    {
        SavinaSize.Paper => new(100, 40, 1_000),
        SavinaSize.Small => new(100, 20, 1_000),
        _ => new(100, 2, 10),
    };

    public double SerialWorkMilliseconds => (double)Philosophers * Hunger * WorkMicroseconds / 1000;

    /// <summary>Even-indexed philosophers first, then odd ones ("optimal order"), or 0..N-1.</summary>
    public int[] StartOrder(bool alternating) => alternating
        ? [.. Enumerable.Range(0, Philosophers).Where(i => i % 2 == 0), .. Enumerable.Range(0, Philosophers).Where(i => i % 2 == 1)]
        : [.. Enumerable.Range(0, Philosophers)];
}

/// <summary>Full BoC: fork cowns, one two-cown behaviour per meal, each meal spawning the philosopher's next.</summary>
public abstract class DiningPhilosophersScalingBoc : SavinaRun
{
    private readonly DiningScalingParameters _p;
    private readonly bool _alternating;
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<Fork>[] _forks = [];
    private Philosopher[] _philosophers = [];
    private Cown<TableState> _table = null!;

    // Published at completion: by the Table, then by the behaviour over all forks.
    private long _meals = -1;
    private long[] _uses = [];

    private protected DiningPhilosophersScalingBoc(SavinaSize size, bool alternating)
        : base(size)
    {
        _p = DiningScalingParameters.For(size);
        _alternating = alternating;
    }

    protected override void Build()
    {
        _forks = new Cown<Fork>[_p.Philosophers];
        for (int i = 0; i < _p.Philosophers; i++)
        {
            _forks[i] = new Cown<Fork>(new Fork());
        }

        _philosophers = new Philosopher[_p.Philosophers];
        for (int i = 0; i < _p.Philosophers; i++)
        {
            _philosophers[i] = new Philosopher(this, _forks[i], _forks[(i + 1) % _p.Philosophers], _p.Hunger);
        }

        _table = new Cown<TableState>(new TableState { Remaining = _p.Philosophers });
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(static run => run.Start(), this);
        return _done.Task;
    }

    protected override void Validate()
    {
        long expected = (long)_p.Philosophers * _p.Hunger;
        Check(_meals == expected, $"the philosophers ate {_meals} meals, expected {expected}");
        for (int i = 0; i < _p.Philosophers; i++)
        {
            Check(_uses[i] == 2L * _p.Hunger, $"fork {i} was used {_uses[i]} times, expected {2L * _p.Hunger}");
        }
    }

    private void Start()
    {
        foreach (int i in _p.StartOrder(_alternating))
        {
            Eat(_philosophers[i]);
        }
    }

    private void Eat(Philosopher philosopher)
    {
        if (philosopher.Hunger > 0)
        {
            Runtime.When(
                philosopher.Left,
                philosopher.Right,
                static (left, right, p) =>
                {
                    left.Uses++;
                    right.Uses++;
                    SavinaHelpers.BusyLoop(p.Run._p.WorkMicroseconds);
                    p.Hunger--;
                    p.Eaten++;
                    p.Run.Eat(p);
                },
                philosopher);
        }
        else
        {
            Runtime.When(_table, static (t, p) => p.Run.OnFinished(t, p.Eaten), philosopher);
        }
    }

    private void OnFinished(TableState table, long eaten)
    {
        table.Meals += eaten;
        table.Remaining--;
        if (table.Remaining == 0)
        {
            _meals = table.Meals;
            Runtime.When(_forks, static (forks, run) => run.OnAllForks(forks), this);
        }
    }

    private void OnAllForks(IReadOnlyList<Fork> forks)
    {
        _uses = [.. forks.Select(f => f.Uses)];
        _done.SetResult();
    }

    private sealed class Fork
    {
        public long Uses { get; set; }
    }

    private sealed class TableState
    {
        public int Remaining { get; set; }

        public long Meals { get; set; }
    }

    // Touched only by the philosopher's one outstanding behaviour (see the file header).
    private sealed class Philosopher(DiningPhilosophersScalingBoc run, Cown<Fork> left, Cown<Fork> right, int hunger)
    {
        public DiningPhilosophersScalingBoc Run { get; } = run;

        public Cown<Fork> Left { get; } = left;

        public Cown<Fork> Right { get; } = right;

        public int Hunger { get; set; } = hunger;

        public long Eaten { get; set; }
    }
}

/// <summary>BoC, the even-indexed philosophers spawned first, then the odd ones (the paper's "optimal order").</summary>
[SavinaWorkload("Dining Philosophers Scaling", SavinaVariant.Full)]
public sealed class DiningPhilosophersScalingAlternating(SavinaSize size) : DiningPhilosophersScalingBoc(size, alternating: true);

/// <summary>BoC, philosophers spawned in index order 0..N-1 (the paper's "seq").</summary>
[SavinaWorkload("Dining Philosophers Scaling", SavinaVariant.Full)]
public sealed class DiningPhilosophersScalingNaive(SavinaSize size) : DiningPhilosophersScalingBoc(size, alternating: false);

/// <summary>Threads and locks: one thread per philosopher, started in the alternating order; forks as ordered locks.</summary>
[SavinaWorkload("Dining Philosophers Scaling", SavinaVariant.Locks)]
public sealed class DiningPhilosophersScalingLocks(SavinaSize size) : SavinaRun(size)
{
    private readonly DiningScalingParameters _p = DiningScalingParameters.For(size);
    private LockedDiningTable _table = null!;

    protected override void Build() => _table = new LockedDiningTable(_p.Philosophers, _p.Hunger, _p.WorkMicroseconds);

    protected override Task ExecuteAsync() => _table.RunAsync(_p.StartOrder(alternating: true));

    protected override void Validate()
    {
        string? error = _table.Check();
        Check(error is null, error ?? "");
    }
}

/// <summary>BenchmarkDotNet entry for the Dining Philosophers scaling experiment.</summary>
public class DiningPhilosophersScaling : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    /// <summary>The busy work of one run if done serially (N · H · work), in milliseconds.</summary>
    public static double SerialWorkMilliseconds(SavinaSize size) => DiningScalingParameters.For(size).SerialWorkMilliseconds;

    /// <summary>The ideal time on <paramref name="cores"/> cores: serial work ÷ min(cores, N/2), in milliseconds.</summary>
    public static double IdealMilliseconds(SavinaSize size, int cores)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(cores, 1);
        DiningScalingParameters p = DiningScalingParameters.For(size);
        return p.SerialWorkMilliseconds / Math.Min(cores, p.Philosophers / 2);
    }

    [IterationSetup(Target = nameof(Alternating))]
    public void SetupAlternating() => _run = Prepare(new DiningPhilosophersScalingAlternating(Size));

    [IterationSetup(Target = nameof(Naive))]
    public void SetupNaive() => _run = Prepare(new DiningPhilosophersScalingNaive(Size));

    [IterationSetup(Target = nameof(Locks))]
    public void SetupLocks() => _run = Prepare(new DiningPhilosophersScalingLocks(Size));

    [Benchmark(Baseline = true)]
    public Task Alternating() => _run.RunAsync();

    [Benchmark]
    public Task Naive() => _run.RunAsync();

    [Benchmark]
    public Task Locks() => _run.RunAsync();
}
