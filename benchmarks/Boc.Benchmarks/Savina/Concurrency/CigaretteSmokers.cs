using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Concurrency;

// Savina 4.14 Cigarette Smokers (SOURCES.md §4.14): an Arbiter picks a random smoker and a busy-wait period per
// round and sends StartSmoking; the smoker answers StartedSmoking at once, then smokes (busy-waits). After R rounds the
// Arbiter sends Exit to every smoker. No full-BoC variant ([V]: "no scope").
//
// Decisions:
// - The Arbiter draws from PseudoRandom(R*S) as Savina does at HEAD: idx = |nextInt()| % S, period = nextInt(1000)+10.
//   Build replays the stream (not timed); Validate checks that the smokers busy-waited exactly the replayed total
//   (494,000 at Paper size) and were picked the replayed number of times each.
// - Each smoker burns its own PseudoRandom in busyWait (Savina burns Math.random()); only the loop count matters.
// - Savina's Exit to every smoker is kept; its behaviour publishes the smoker's counters for Validate.
// - Small = Paper: the whole run is a few milliseconds and scaling it up would change its character.

/// <summary>The sequential replay of the Arbiter's stream, shared by every variant.</summary>
internal static class CigaretteSmokersReference
{
    /// <summary>The total busy-wait steps and how many times each smoker is picked in <paramref name="rounds"/> rounds.</summary>
    public static (long PeriodSum, int[] Picks) Replay(int rounds, int smokers)
    {
        int[] picks = new int[smokers];
        long periodSum = 0;
        var random = new PseudoRandom((long)rounds * smokers);
        for (int r = 0; r < rounds; r++)
        {
            picks[Math.Abs(random.NextInt()) % smokers]++;
            periodSum += random.NextInt(1000) + 10;
        }

        return (periodSum, picks);
    }
}

/// <summary>Actor style: an Arbiter and S Smokers, one cown each; every message a one-cown behaviour.</summary>
[SavinaWorkload("Cigarette Smokers", SavinaVariant.Actor)]
public sealed class CigaretteSmokersActor(SavinaSize size) : SavinaRun(size)
{
    private readonly int _rounds = size switch { SavinaSize.Paper => 1_000, SavinaSize.Small => 1_000, _ => 100 };
    private readonly int _smokers = size switch { SavinaSize.Paper => 200, SavinaSize.Small => 200, _ => 20 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<ArbiterState> _arbiter = null!;
    private Cown<SmokerState>[] _smokerCowns = null!;

    // Sequential reference (Build).
    private long _expectedPeriodSum;
    private int[] _expectedPicks = [];

    // Published at completion: by the Arbiter, and by each smoker on Exit.
    private int _roundsDone;
    private long[] _periodSum = [];
    private int[] _picks = [];

    protected override void Build()
    {
        _arbiter = new Cown<ArbiterState>(new ArbiterState(new PseudoRandom((long)_rounds * _smokers)));
        _smokerCowns = new Cown<SmokerState>[_smokers];
        for (int i = 0; i < _smokers; i++)
        {
            _smokerCowns[i] = new Cown<SmokerState>(new SmokerState(i));
        }

        _periodSum = new long[_smokers];
        _picks = new int[_smokers];
        (_expectedPeriodSum, _expectedPicks) = CigaretteSmokersReference.Replay(_rounds, _smokers);
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(_arbiter, static (a, run) => run.NotifyRandomSmoker(a), this);
        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_roundsDone == _rounds, $"the Arbiter counted {_roundsDone} rounds, expected {_rounds}");
        long periodSum = _periodSum.Sum();
        Check(periodSum == _expectedPeriodSum, $"smokers busy-waited {periodSum} steps, the replay has {_expectedPeriodSum}");
        for (int i = 0; i < _smokers; i++)
        {
            Check(_picks[i] == _expectedPicks[i], $"smoker {i} smoked {_picks[i]} times, the replay has {_expectedPicks[i]}");
        }
    }

    // Arbiter: pick a smoker and a period ("resources are grabbed instantaneously").
    private void NotifyRandomSmoker(ArbiterState arbiter)
    {
        int index = Math.Abs(arbiter.Random.NextInt()) % _smokers;
        int period = arbiter.Random.NextInt(1000) + 10;
        Runtime.When(
            _smokerCowns[index],
            static (s, m) => m.Run.OnStartSmoking(s, m.Period),
            (Run: this, Period: period));
    }

    // Smoker, on StartSmoking: tell the Arbiter, then smoke.
    private void OnStartSmoking(SmokerState smoker, int period)
    {
        Runtime.When(_arbiter, static (a, run) => run.OnStartedSmoking(a), this);
        SavinaHelpers.BusyWait(period, smoker.Burn);
        smoker.Picks++;
        smoker.PeriodSum += period;
    }

    // Arbiter, on StartedSmoking: the next round, or Exit to every smoker after R rounds.
    private void OnStartedSmoking(ArbiterState arbiter)
    {
        arbiter.Rounds++;
        if (arbiter.Rounds >= _rounds)
        {
            _roundsDone = arbiter.Rounds;
            foreach (Cown<SmokerState> smoker in _smokerCowns)
            {
                Runtime.When(smoker, static (s, run) => run.OnExit(s), this);
            }

            _done.SetResult();
        }
        else
        {
            NotifyRandomSmoker(arbiter);
        }
    }

    private void OnExit(SmokerState smoker)
    {
        _periodSum[smoker.Id] = smoker.PeriodSum;
        _picks[smoker.Id] = smoker.Picks;
    }

    private sealed class ArbiterState(PseudoRandom random)
    {
        public PseudoRandom Random { get; } = random;

        public int Rounds { get; set; }
    }

    private sealed class SmokerState(int id)
    {
        public int Id { get; } = id;

        public PseudoRandom Burn { get; } = new(id);

        public int Picks { get; set; }

        public long PeriodSum { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Cigarette Smokers.</summary>
public partial class CigaretteSmokers : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new CigaretteSmokersActor(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();
}
