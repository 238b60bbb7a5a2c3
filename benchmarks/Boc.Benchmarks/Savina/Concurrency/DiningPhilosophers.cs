using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Concurrency;

// Savina 4.12 Dining Philosophers (SOURCES.md §4.12): N philosophers, each eats M meals; in Savina an Arbitrator
// owns the forks and answers Hungry with Eat or Denied (a retry).
//
// Decisions:
// - Each philosopher eats M meals, not M-1 as [V]'s full version does (spec §7.9).
// - Retries (Denied replies) are counted by the Arbitrator, which sends them, and reported through Metrics; Savina's
//   own counter adds each philosopher's running total at every meal, which over-counts, so it is not copied.
// - Full BoC follows [V]: forks become cowns, a Table cown counts finished philosophers, and each philosopher's cown
//   loops when(phil){ when(left, right){ eat }; loop } until its meals are spawned, then when(table){ done }. A meal
//   needs no arbitration, so retries are always 0. When the Table count reaches 0, one behaviour over all forks reads
//   their use counts: it was spawned after every meal (all spawned before the Table's last decrement), so it runs
//   after all of them, and it is the completion event.

/// <summary>The sizes every Dining Philosophers variant uses.</summary>
internal static class DiningPhilosophersParameters
{
    public const int Philosophers = 20;

    /// <summary>Meals per philosopher (Savina's M rounds).</summary>
    public static int Rounds(SavinaSize size) => size switch { SavinaSize.Paper => 10_000, SavinaSize.Small => 10_000, _ => 100 };
}

/// <summary>Actor style: an Arbitrator and N Philosophers, one cown each; every message a one-cown behaviour.</summary>
[SavinaWorkload("Dining Philosophers", SavinaVariant.Actor)]
public sealed class DiningPhilosophersActor(SavinaSize size) : SavinaRun(size)
{
    private readonly int _philosophers = DiningPhilosophersParameters.Philosophers;
    private readonly int _rounds = DiningPhilosophersParameters.Rounds(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<ArbitratorState> _arbitrator = null!;
    private Cown<PhilosopherState>[] _philosopherCowns = null!;

    // Published at completion by the Arbitrator.
    private long _meals;
    private long _retries;
    private int _forksTakenAtEnd = -1;
    private long _badReleases = -1;

    public override string Metrics => $"retries={_retries}";

    protected override void Build()
    {
        _arbitrator = new Cown<ArbitratorState>(new ArbitratorState(_philosophers));
        _philosopherCowns = new Cown<PhilosopherState>[_philosophers];
        for (int i = 0; i < _philosophers; i++)
        {
            var state = new PhilosopherState(i);
            _philosopherCowns[i] = new Cown<PhilosopherState>(state);
            state.Self = _philosopherCowns[i];
        }
    }

    protected override Task ExecuteAsync()
    {
        foreach (Cown<PhilosopherState> philosopher in _philosopherCowns)
        {
            SendStart(philosopher);
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        long expected = (long)_philosophers * _rounds;
        Check(_meals == expected, $"the Arbitrator saw {_meals} meals, expected {expected}");
        Check(_forksTakenAtEnd == 0, $"{_forksTakenAtEnd} forks still taken at the end");
        Check(_badReleases == 0, $"{_badReleases} Done messages released forks that were not taken");
    }

    private void SendStart(Cown<PhilosopherState> philosopher) =>
        Runtime.When(philosopher, static (p, run) => run.SendHungry(p), this);

    // Philosopher, on Start or Denied: ask the Arbitrator for both forks.
    private void SendHungry(PhilosopherState philosopher) =>
        Runtime.When(
            _arbitrator,
            static (a, m) => m.Run.OnHungry(a, m.Philosopher, m.Id),
            (Run: this, Philosopher: philosopher.Self, Id: philosopher.Id));

    // Arbitrator, on Hungry: grant both forks or deny.
    private void OnHungry(ArbitratorState arbitrator, Cown<PhilosopherState> philosopher, int id)
    {
        int left = id;
        int right = (id + 1) % _philosophers;
        if (arbitrator.Forks[left] || arbitrator.Forks[right])
        {
            arbitrator.Denied++;
            Runtime.When(philosopher, static (p, run) => run.SendHungry(p), this);
        }
        else
        {
            arbitrator.Forks[left] = true;
            arbitrator.Forks[right] = true;
            Runtime.When(philosopher, static (p, run) => run.OnEat(p), this);
        }
    }

    // Philosopher, on Eat: release the forks, then get hungry again (self Start) or exit.
    private void OnEat(PhilosopherState philosopher)
    {
        philosopher.RoundsSoFar++;
        Runtime.When(_arbitrator, static (a, m) => m.Run.OnDone(a, m.Id), (Run: this, Id: philosopher.Id));
        if (philosopher.RoundsSoFar < _rounds)
        {
            SendStart(philosopher.Self);
        }
        else
        {
            Runtime.When(_arbitrator, static (a, run) => run.OnExit(a), this);
        }
    }

    private void OnDone(ArbitratorState arbitrator, int id)
    {
        int left = id;
        int right = (id + 1) % _philosophers;
        if (!arbitrator.Forks[left] || !arbitrator.Forks[right])
        {
            arbitrator.BadReleases++;
        }

        arbitrator.Forks[left] = false;
        arbitrator.Forks[right] = false;
        arbitrator.Meals++;
    }

    // Arbitrator, on Exit: after N of them, publish and complete (every philosopher's Done precedes its Exit).
    private void OnExit(ArbitratorState arbitrator)
    {
        arbitrator.Exited++;
        if (arbitrator.Exited == _philosophers)
        {
            _meals = arbitrator.Meals;
            _retries = arbitrator.Denied;
            _badReleases = arbitrator.BadReleases;
            _forksTakenAtEnd = arbitrator.Forks.Count(f => f);
            _done.SetResult();
        }
    }

    private sealed class ArbitratorState(int forks)
    {
        public bool[] Forks { get; } = new bool[forks];

        public int Exited { get; set; }

        public long Meals { get; set; }

        public long Denied { get; set; }

        public long BadReleases { get; set; }
    }

    private sealed class PhilosopherState(int id)
    {
        public int Id { get; } = id;

        public Cown<PhilosopherState> Self { get; set; } = null!;

        public int RoundsSoFar { get; set; }
    }
}

/// <summary>Full BoC ([V]): forks are cowns and a meal is one two-cown behaviour; no Arbitrator, no retries.</summary>
[SavinaWorkload("Dining Philosophers", SavinaVariant.Full)]
public sealed class DiningPhilosophersFull(SavinaSize size) : SavinaRun(size)
{
    private readonly int _philosophers = DiningPhilosophersParameters.Philosophers;
    private readonly int _rounds = DiningPhilosophersParameters.Rounds(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<TableState> _table = null!;
    private Cown<Fork>[] _forks = null!;
    private Cown<PhilosopherState>[] _philosopherCowns = null!;

    // Published at completion by the behaviour over all forks.
    private long[] _usesAsLeft = [];
    private long[] _usesAsRight = [];

    public override string Metrics => "retries=0";

    protected override void Build()
    {
        _table = new Cown<TableState>(new TableState { Remaining = _philosophers });
        _forks = new Cown<Fork>[_philosophers];
        for (int i = 0; i < _philosophers; i++)
        {
            _forks[i] = new Cown<Fork>(new Fork());
        }

        _philosopherCowns = new Cown<PhilosopherState>[_philosophers];
        for (int i = 0; i < _philosophers; i++)
        {
            var state = new PhilosopherState(_forks[i], _forks[(i + 1) % _philosophers]) { MealsLeft = _rounds };
            _philosopherCowns[i] = new Cown<PhilosopherState>(state);
            state.Self = _philosopherCowns[i];
        }
    }

    protected override Task ExecuteAsync()
    {
        foreach (Cown<PhilosopherState> philosopher in _philosopherCowns)
        {
            Eat(philosopher);
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        for (int i = 0; i < _philosophers; i++)
        {
            Check(_usesAsLeft[i] == _rounds, $"fork {i} was philosopher {i}'s left fork {_usesAsLeft[i]} times, expected {_rounds}");
            Check(_usesAsRight[i] == _rounds, $"fork {i} was a right fork {_usesAsRight[i]} times, expected {_rounds}");
        }
    }

    private void Eat(Cown<PhilosopherState> philosopher) =>
        Runtime.When(philosopher, static (p, run) => run.OnEat(p), this);

    // Philosopher: spawn the next meal on both forks and loop, or report to the Table.
    private void OnEat(PhilosopherState philosopher)
    {
        if (philosopher.MealsLeft > 0)
        {
            philosopher.MealsLeft--;
            Runtime.When(philosopher.Left, philosopher.Right, static (left, right) =>
            {
                left.UsesAsLeft++;
                right.UsesAsRight++;
            });
            Eat(philosopher.Self);
        }
        else
        {
            Runtime.When(_table, static (t, run) => run.OnFinished(t), this);
        }
    }

    private void OnFinished(TableState table)
    {
        table.Remaining--;
        if (table.Remaining == 0)
        {
            Runtime.When(_forks, static (forks, run) => run.OnAllForks(forks), this);
        }
    }

    private void OnAllForks(IReadOnlyList<Fork> forks)
    {
        _usesAsLeft = [.. forks.Select(f => f.UsesAsLeft)];
        _usesAsRight = [.. forks.Select(f => f.UsesAsRight)];
        _done.SetResult();
    }

    private sealed class TableState
    {
        public int Remaining { get; set; }
    }

    private sealed class Fork
    {
        public long UsesAsLeft { get; set; }

        public long UsesAsRight { get; set; }
    }

    private sealed class PhilosopherState(Cown<Fork> left, Cown<Fork> right)
    {
        public Cown<Fork> Left { get; } = left;

        public Cown<Fork> Right { get; } = right;

        public Cown<PhilosopherState> Self { get; set; } = null!;

        public int MealsLeft { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Dining Philosophers.</summary>
public partial class DiningPhilosophers : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new DiningPhilosophersActor(Size));

    [IterationSetup(Target = nameof(Full))]
    public void SetupFull() => _run = Prepare(new DiningPhilosophersFull(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();

    [Benchmark]
    public Task Full() => _run.RunAsync();
}
