using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Micro;

// Savina 4.7 Big (SOURCES.md §4.7): W actors each ping a random neighbour (possibly itself) N times, one ping in
// flight at a time, and check that every Pong comes from the actor they pinged; then they tell a Sink, which tells them
// all to exit. No full-BoC variant.
//
// Decisions:
// - Neighbours are the run's array of actor cowns, fixed in Build, instead of Savina's NeighborMessage (set-up, not what
//   the benchmark measures; [V]'s 4,800,481 behaviours include those 121 messages, this run has 4,800,360).
// - Actor i draws targets from PseudoRandom(i), as Savina does (the shared helper: the Savina sequence, not [V]'s).
// - A Pong from the wrong actor is counted per actor (Savina prints ERROR); the counts and each actor's ping total
//   travel to the Sink in its Exit message, so validation needs no state shared outside the cowns.
// - Completion: the Sink has received W Exits (it then sends Exit to every actor, as Savina does; the run's wait for
//   quiescence covers those).
// - Small equals Paper: a Paper run takes well under a second on the 2-core machine (about 0.01-0.3 s).

/// <summary>Actor style: W actor cowns and a Sink; Ping, Pong and Exit are one-cown behaviours.</summary>
[SavinaWorkload("Big", SavinaVariant.Actor)]
public sealed class BigActor(SavinaSize size) : SavinaRun(size)
{
    private readonly int _pings = size switch { SavinaSize.Paper => 20_000, SavinaSize.Small => 20_000, _ => 500 };
    private readonly int _actors = size switch { SavinaSize.Paper => 120, SavinaSize.Small => 120, _ => 12 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<Node>[] _neighbors = null!;
    private Cown<Sink> _sink = null!;
    private int _exits = -1;
    private long _totalPings = -1;
    private long _wrongPongs = -1;

    protected override void Build()
    {
        _neighbors = new Cown<Node>[_actors];
        for (int i = 0; i < _actors; i++)
        {
            _neighbors[i] = new Cown<Node>(new Node(i));
        }

        _sink = new Cown<Sink>(new Sink());
    }

    protected override Task ExecuteAsync()
    {
        foreach (Cown<Node> actor in _neighbors)
        {
            SendPong(actor, -1);
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_wrongPongs == 0, $"{_wrongPongs} Pongs came from an actor other than the one pinged");
        Check(_totalPings == (long)_actors * _pings, $"{_totalPings} pings sent, expected {(long)_actors * _pings}");
        Check(_exits == _actors, $"Sink received {_exits} Exits, expected {_actors}");
    }

    private void SendPong(Cown<Node> to, int sender) =>
        Runtime.When(to, static (actor, m) => m.Run.OnPong(actor, m.Sender), (Run: this, Sender: sender));

    // Actor, on Pong: check the sender; ping a random neighbour, or report to the Sink after N pings.
    private void OnPong(Node actor, int sender)
    {
        if (sender != actor.ExpectedPinger)
        {
            actor.WrongPongs++;
        }

        if (actor.NumPings == _pings)
        {
            Runtime.When(
                _sink,
                static (sink, m) => m.Run.SinkOnExit(sink, m.NumPings, m.WrongPongs),
                (Run: this, actor.NumPings, actor.WrongPongs));
        }
        else
        {
            int target = actor.Random.NextInt(_actors);
            actor.ExpectedPinger = target;
            Runtime.When(_neighbors[target], static (a, m) => m.Run.OnPing(a, m.Sender), (Run: this, Sender: actor.Id));
            actor.NumPings++;
        }
    }

    // Actor, on Ping: answer the pinger.
    private void OnPing(Node actor, int sender) => SendPong(_neighbors[sender], actor.Id);

    // Sink, on Exit: after W of them, tell every actor to exit and complete.
    private void SinkOnExit(Sink sink, int numPings, int wrongPongs)
    {
        sink.Exits++;
        sink.TotalPings += numPings;
        sink.WrongPongs += wrongPongs;
        if (sink.Exits == _actors)
        {
            foreach (Cown<Node> actor in _neighbors)
            {
                Runtime.When(actor, static a => a.Exited = true);
            }

            _exits = sink.Exits;
            _totalPings = sink.TotalPings;
            _wrongPongs = sink.WrongPongs;
            _done.SetResult();
        }
    }

    private sealed class Node(int id)
    {
        public int Id { get; } = id;

        public PseudoRandom Random { get; } = new(id);

        public int NumPings { get; set; }

        public int ExpectedPinger { get; set; } = -1;

        public int WrongPongs { get; set; }

        public bool Exited { get; set; }
    }

    private sealed class Sink
    {
        public int Exits { get; set; }

        public long TotalPings { get; set; }

        public long WrongPongs { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Big.</summary>
public partial class Big : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new BigActor(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();
}
