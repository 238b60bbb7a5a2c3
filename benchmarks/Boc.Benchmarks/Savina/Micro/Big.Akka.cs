using Akka.Actor;
using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

// Akka.NET baseline of Big: the actors and messages of BigActor.
//
// Decisions:
// - Each actor learns the array of neighbour refs from a Neighbors message sent in Build (Savina's NeighborMessage;
//   the Boc run fixes the array in Build). Build is not timed, and mailbox order delivers it before the first Pong.
// - Ping and Pong carry the sender's index, as in Savina, because the Pong's sender is checked against the actor
//   pinged; the reply goes to the neighbour with that index.
// - Completion is the Sink's W-th Exit, as in the Boc run; the Sink then tells every actor to exit (each stops itself)
//   and stops itself. The Boc run's quiescence wait also covers those W Exits; this run does not wait for them.

/// <summary>Akka.NET baseline: W actors ping random neighbours N times each, then report to a Sink.</summary>
[SavinaWorkload("Big", SavinaVariant.Akka)]
public sealed class BigAkka(SavinaSize size) : SavinaRun(size)
{
    private readonly int _pings = size switch { SavinaSize.Paper => 20_000, SavinaSize.Small => 20_000, _ => 500 };
    private readonly int _actors = size switch { SavinaSize.Paper => 120, SavinaSize.Small => 120, _ => 12 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private IActorRef[] _neighbors = null!;
    private int _exits = -1;
    private long _totalPings = -1;
    private long _wrongPongs = -1;

    protected override void Build()
    {
        ActorSystem system = AkkaHost.System;
        int actors = _actors;
        int pings = _pings;
        Action<int, long, long> onDone = OnDone;
        IActorRef sink = system.ActorOf(Props.Create(() => new SinkActor(actors, onDone)));
        _neighbors = new IActorRef[_actors];
        for (int i = 0; i < _actors; i++)
        {
            int id = i;
            _neighbors[i] = system.ActorOf(Props.Create(() => new NodeActor(id, pings, sink)));
        }

        var neighbors = new Neighbors(_neighbors);
        foreach (IActorRef actor in _neighbors)
        {
            actor.Tell(neighbors);
        }
    }

    protected override Task ExecuteAsync()
    {
        var start = new Pong(-1);
        foreach (IActorRef actor in _neighbors)
        {
            actor.Tell(start);
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_wrongPongs == 0, $"{_wrongPongs} Pongs came from an actor other than the one pinged");
        Check(_totalPings == (long)_actors * _pings, $"{_totalPings} pings sent, expected {(long)_actors * _pings}");
        Check(_exits == _actors, $"Sink received {_exits} Exits, expected {_actors}");
    }

    private void OnDone(int exits, long totalPings, long wrongPongs)
    {
        _exits = exits;
        _totalPings = totalPings;
        _wrongPongs = wrongPongs;
        _done.SetResult();
    }

    /// <summary>The neighbour refs; the array is never written after Build.</summary>
    private sealed record Neighbors(IActorRef[] All);

    private sealed record Ping(int Sender);

    private sealed record Pong(int Sender);

    /// <summary>An actor's report to the Sink.</summary>
    private sealed record Done(int NumPings, int WrongPongs);

    private sealed class Exit
    {
        public static readonly Exit Instance = new();
    }

    private sealed class NodeActor : ReceiveActor
    {
        private readonly PseudoRandom _random;
        private IActorRef[] _neighbors = [];
        private int _numPings;
        private int _expectedPinger = -1;
        private int _wrongPongs;

        public NodeActor(int id, int pings, IActorRef sink)
        {
            _random = new PseudoRandom(id);
            Receive<Neighbors>(m => _neighbors = m.All);

            // On Pong: check the sender; ping a random neighbour, or report to the Sink after N pings.
            Receive<Pong>(m =>
            {
                if (m.Sender != _expectedPinger)
                {
                    _wrongPongs++;
                }

                if (_numPings == pings)
                {
                    sink.Tell(new Done(_numPings, _wrongPongs));
                }
                else
                {
                    int target = _random.NextInt(_neighbors.Length);
                    _expectedPinger = target;
                    _neighbors[target].Tell(new Ping(id));
                    _numPings++;
                }
            });

            // On Ping: answer the pinger.
            Receive<Ping>(m => _neighbors[m.Sender].Tell(new Pong(id)));

            Receive<Exit>(_ => Context.Stop(Self));
        }
    }

    private sealed class SinkActor : ReceiveActor
    {
        private readonly List<IActorRef> _reported = [];
        private long _totalPings;
        private long _wrongPongs;

        public SinkActor(int actors, Action<int, long, long> onDone)
        {
            // On an actor's report: after W of them, tell every actor to exit, complete and stop.
            Receive<Done>(m =>
            {
                _reported.Add(Sender);
                _totalPings += m.NumPings;
                _wrongPongs += m.WrongPongs;
                if (_reported.Count == actors)
                {
                    foreach (IActorRef actor in _reported)
                    {
                        actor.Tell(Exit.Instance);
                    }

                    onDone(_reported.Count, _totalPings, _wrongPongs);
                    Context.Stop(Self);
                }
            });
        }
    }
}

/// <summary>BenchmarkDotNet entry for the Akka.NET baseline of Big.</summary>
public partial class Big
{
    private SavinaRun _akkaRun = null!;

    [IterationSetup(Target = nameof(Akka))]
    public void SetupAkka() => _akkaRun = Prepare(new BigAkka(Size));

    [Benchmark]
    public Task Akka() => _akkaRun.RunAsync();
}
