using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Concurrency;

// Threads-and-locks baseline of Savina 4.12 Dining Philosophers (SOURCES.md §4.12), and the table that the
// paper's scaling experiment's pthread baseline (§5.3, Experiments/DiningPhilosophersScaling.cs) runs too.
//
// Decisions:
// - No Arbitrator: with locks, each fork is a System.Threading.Lock and a philosopher is a dedicated thread that
//   takes its two forks itself, as the paper's pthread baseline does (one thread per philosopher). Savina's
//   Arbitrator exists only because actors cannot share forks.
// - Forks are locked lower index first, then higher: the global order that makes the cycle of philosophers
//   deadlock-free (philosopher N-1 takes fork 0 before fork N-1). The pthread baseline's std::scoped_lock uses a
//   try-and-back-off algorithm instead; an ordered acquisition is what a C# developer writes with `lock`, and it
//   blocks rather than retries, so retries are 0 as in the full BoC variant (Metrics "retries=0").
// - Same sizes as the other variants (N = 20, M meals each); threads start in index order, as Savina starts its
//   philosophers.
// - Validation, read after every thread has finished: total meals N·M (each philosopher counts its own), each fork
//   used exactly 2·M times, no fork left taken, and no violation. A fork's in-use flag is checked and set under its
//   lock: finding it taken on pick-up or free on put-down would mean two philosophers held it at once.

/// <summary>
/// Philosophers as dedicated threads and forks as ordered <see cref="Lock"/>s; each meal optionally spins for a
/// fixed time while holding both forks.
/// </summary>
internal sealed class LockedDiningTable
{
    private readonly int _meals;
    private readonly int _workMicroseconds;
    private readonly Fork[] _forks;
    private readonly long[] _eaten;

    public LockedDiningTable(int philosophers, int meals, int workMicroseconds)
    {
        _meals = meals;
        _workMicroseconds = workMicroseconds;
        _forks = new Fork[philosophers];
        for (int i = 0; i < philosophers; i++)
        {
            _forks[i] = new Fork();
        }

        _eaten = new long[philosophers];
    }

    /// <summary>Starts one thread per philosopher in <paramref name="startOrder"/>; completes when all have eaten.</summary>
    public Task RunAsync(IReadOnlyList<int> startOrder) => DedicatedThreads.RunAsync(startOrder, Dine, "Philosopher");

    /// <summary>Returns null if the run was correct, else what is wrong. Call after <see cref="RunAsync"/> completed.</summary>
    public string? Check()
    {
        long expected = (long)_forks.Length * _meals;
        long meals = _eaten.Sum();
        if (meals != expected)
        {
            return $"the philosophers ate {meals} meals, expected {expected}";
        }

        for (int i = 0; i < _forks.Length; i++)
        {
            Fork fork = _forks[i];
            if (fork.Violations != 0)
            {
                return $"fork {i} was found held by two philosophers at once {fork.Violations} times";
            }

            if (fork.Uses != 2L * _meals)
            {
                return $"fork {i} was used {fork.Uses} times, expected {2L * _meals}";
            }

            if (fork.InUse)
            {
                return $"fork {i} is still taken at the end";
            }
        }

        return null;
    }

    // Philosopher i eats with forks i and (i+1) % N, locking the lower index first.
    private void Dine(int i)
    {
        int other = (i + 1) % _forks.Length;
        Fork first = _forks[Math.Min(i, other)];
        Fork second = _forks[Math.Max(i, other)];
        long eaten = 0;
        for (int meal = 0; meal < _meals; meal++)
        {
            lock (first.Lock)
            {
                lock (second.Lock)
                {
                    first.PickUp();
                    second.PickUp();
                    if (_workMicroseconds > 0)
                    {
                        SavinaHelpers.BusyLoop(_workMicroseconds);
                    }

                    eaten++;
                    second.PutDown();
                    first.PutDown();
                }
            }
        }

        _eaten[i] = eaten;
    }

    // Its fields are touched only while Lock is held, and read by Check after every thread has finished.
    private sealed class Fork
    {
        public Lock Lock { get; } = new();

        public long Uses { get; private set; }

        public bool InUse { get; private set; }

        public long Violations { get; private set; }

        public void PickUp()
        {
            if (InUse)
            {
                Violations++;
            }

            InUse = true;
            Uses++;
        }

        public void PutDown()
        {
            if (!InUse)
            {
                Violations++;
            }

            InUse = false;
        }
    }
}

/// <summary>Threads and locks: one thread per philosopher, forks as ordered locks; no Arbitrator, no retries.</summary>
[SavinaWorkload("Dining Philosophers", SavinaVariant.Locks)]
public sealed class DiningPhilosophersLocks(SavinaSize size) : SavinaRun(size)
{
    private readonly int _philosophers = DiningPhilosophersParameters.Philosophers;
    private readonly int _rounds = DiningPhilosophersParameters.Rounds(size);
    private LockedDiningTable _table = null!;

    public override string Metrics => "retries=0";

    protected override void Build() => _table = new LockedDiningTable(_philosophers, _rounds, workMicroseconds: 0);

    protected override Task ExecuteAsync() => _table.RunAsync([.. Enumerable.Range(0, _philosophers)]);

    protected override void Validate()
    {
        string? error = _table.Check();
        Check(error is null, error ?? "");
    }
}

/// <summary>BenchmarkDotNet entry for Dining Philosophers: the threads-and-locks baseline.</summary>
public partial class DiningPhilosophers
{
    private SavinaRun _locksRun = null!;

    [IterationSetup(Target = nameof(Locks))]
    public void SetupLocks() => _locksRun = Prepare(new DiningPhilosophersLocks(Size));

    [Benchmark]
    public Task Locks() => _locksRun.RunAsync();
}
