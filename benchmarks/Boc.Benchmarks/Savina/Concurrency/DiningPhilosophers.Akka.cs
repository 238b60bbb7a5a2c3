using Akka.Actor;
using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Concurrency;

// Akka.NET baseline of Dining Philosophers: the Arbitrator, Philosophers and messages of DiningPhilosophersActor. The
// Arbitrator answers Hungry with Eat or Denied to its Sender; each philosopher stops itself after its Exit, and the
// Arbitrator stops itself after the N-th Exit (completion). Retries are reported through Metrics, as in the Boc run.

/// <summary>Akka.NET baseline: an Arbitrator and N Philosophers; Hungry is answered with Eat or Denied.</summary>
[SavinaWorkload("Dining Philosophers", SavinaVariant.Akka)]
public sealed class DiningPhilosophersAkka(SavinaSize size) : SavinaRun(size)
{
    private readonly int _philosophers = DiningPhilosophersParameters.Philosophers;
    private readonly int _rounds = DiningPhilosophersParameters.Rounds(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private IActorRef[] _philosopherRefs = null!;

    // Published at completion by the Arbitrator.
    private long _meals;
    private long _retries;
    private int _forksTakenAtEnd = -1;
    private long _badReleases = -1;

    public override string Metrics => $"retries={_retries}";

    protected override void Build()
    {
        ActorSystem system = AkkaHost.System;
        int philosophers = _philosophers;
        int rounds = _rounds;
        Action<ArbitratorResult> onDone = OnDone;
        IActorRef arbitrator = system.ActorOf(Props.Create(() => new ArbitratorActor(philosophers, onDone)));
        _philosopherRefs = new IActorRef[_philosophers];
        for (int i = 0; i < _philosophers; i++)
        {
            int id = i;
            _philosopherRefs[i] = system.ActorOf(Props.Create(() => new PhilosopherActor(id, rounds, arbitrator)));
        }
    }

    protected override Task ExecuteAsync()
    {
        foreach (IActorRef philosopher in _philosopherRefs)
        {
            philosopher.Tell(Start.Instance);
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

    private void OnDone(ArbitratorResult result)
    {
        _meals = result.Meals;
        _retries = result.Denied;
        _badReleases = result.BadReleases;
        _forksTakenAtEnd = result.ForksTaken;
        _done.SetResult();
    }

    private readonly record struct ArbitratorResult(long Meals, long Denied, long BadReleases, int ForksTaken);

    private sealed class Start
    {
        public static readonly Start Instance = new();
    }

    private sealed record Hungry(int Id);

    private sealed record Done(int Id);

    private sealed class Eat
    {
        public static readonly Eat Instance = new();
    }

    private sealed class Denied
    {
        public static readonly Denied Instance = new();
    }

    private sealed class Exit
    {
        public static readonly Exit Instance = new();
    }

    private sealed class PhilosopherActor : ReceiveActor
    {
        private int _roundsSoFar;

        public PhilosopherActor(int id, int rounds, IActorRef arbitrator)
        {
            // On Start or Denied: ask the Arbitrator for both forks.
            var hungry = new Hungry(id);
            Receive<Start>(_ => arbitrator.Tell(hungry));
            Receive<Denied>(_ => arbitrator.Tell(hungry));

            // On Eat: release the forks, then get hungry again (self Start) or exit.
            Receive<Eat>(_ =>
            {
                _roundsSoFar++;
                arbitrator.Tell(new Done(id));
                if (_roundsSoFar < rounds)
                {
                    Self.Tell(Start.Instance);
                }
                else
                {
                    arbitrator.Tell(Exit.Instance);
                    Context.Stop(Self);
                }
            });
        }
    }

    private sealed class ArbitratorActor : ReceiveActor
    {
        private readonly bool[] _forks;
        private int _exited;
        private long _meals;
        private long _denied;
        private long _badReleases;

        public ArbitratorActor(int philosophers, Action<ArbitratorResult> onDone)
        {
            _forks = new bool[philosophers];

            // On Hungry: grant both forks or deny.
            Receive<Hungry>(m =>
            {
                int left = m.Id;
                int right = (m.Id + 1) % philosophers;
                if (_forks[left] || _forks[right])
                {
                    _denied++;
                    Sender.Tell(Denied.Instance);
                }
                else
                {
                    _forks[left] = true;
                    _forks[right] = true;
                    Sender.Tell(Eat.Instance);
                }
            });

            // On Done: release both forks.
            Receive<Done>(m =>
            {
                int left = m.Id;
                int right = (m.Id + 1) % philosophers;
                if (!_forks[left] || !_forks[right])
                {
                    _badReleases++;
                }

                _forks[left] = false;
                _forks[right] = false;
                _meals++;
            });

            // On Exit: after N of them, publish, complete and stop (every philosopher's Done precedes its Exit).
            Receive<Exit>(_ =>
            {
                _exited++;
                if (_exited == philosophers)
                {
                    onDone(new ArbitratorResult(_meals, _denied, _badReleases, _forks.Count(f => f)));
                    Context.Stop(Self);
                }
            });
        }
    }
}

/// <summary>BenchmarkDotNet entry for the Akka.NET baseline of Dining Philosophers.</summary>
public partial class DiningPhilosophers
{
    private SavinaRun _akkaRun = null!;

    [IterationSetup(Target = nameof(Akka))]
    public void SetupAkka() => _akkaRun = Prepare(new DiningPhilosophersAkka(Size));

    [Benchmark]
    public Task Akka() => _akkaRun.RunAsync();
}
