using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

// Decisions (besides the actor run's):
// - An actor stops its own loop on Exit (Savina's exit()); the Sink sends every Exit before the completion event, and
//   the run awaits every loop's end after it (the Boc run's wait for quiescence covers those Exits).

/// <summary>Channels baseline: the actor run's W actors and Sink, each a <see cref="ChannelActor{TMessage}"/>.</summary>
[SavinaWorkload("Big", SavinaVariant.Channels)]
public sealed class BigChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly int _pings = size switch { SavinaSize.Paper => 20_000, SavinaSize.Small => 20_000, _ => 500 };
    private readonly int _actors = size switch { SavinaSize.Paper => 120, SavinaSize.Small => 120, _ => 12 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private NodeActor[] _neighbors = null!;
    private SinkActor _sink = null!;
    private int _exits = -1;
    private long _totalPings = -1;
    private long _wrongPongs = -1;

    protected override void Build()
    {
        _neighbors = new NodeActor[_actors];
        for (int i = 0; i < _actors; i++)
        {
            _neighbors[i] = new NodeActor(this, i);
        }

        _sink = new SinkActor(this);
    }

    protected override async Task ExecuteAsync()
    {
        foreach (NodeActor actor in _neighbors)
        {
            actor.Send(new NodeMessage(NodeKind.Pong, -1));
        }

        await _done.Task.ConfigureAwait(false);
        _sink.Stop();
        await Task.WhenAll(_neighbors.Select(n => n.Completion).Append(_sink.Completion)).ConfigureAwait(false);
    }

    protected override void Validate()
    {
        Check(_wrongPongs == 0, $"{_wrongPongs} Pongs came from an actor other than the one pinged");
        Check(_totalPings == (long)_actors * _pings, $"{_totalPings} pings sent, expected {(long)_actors * _pings}");
        Check(_exits == _actors, $"Sink received {_exits} Exits, expected {_actors}");
    }

    private enum NodeKind
    {
        Ping,
        Pong,
        Exit,
    }

    /// <summary>Ping(sender), Pong(sender), or Exit.</summary>
    private readonly record struct NodeMessage(NodeKind Kind, int Sender);

    /// <summary>An actor's Exit to the Sink, with its ping total and wrong-Pong count.</summary>
    private readonly record struct SinkMessage(int NumPings, int WrongPongs);

    private sealed class NodeActor(BigChannels run, int id) : ChannelActor<NodeMessage>
    {
        private readonly PseudoRandom _random = new(id);
        private int _numPings;
        private int _expectedPinger = -1;
        private int _wrongPongs;
        private bool _exited;

        public bool Exited => _exited;

        protected override void Receive(NodeMessage message)
        {
            switch (message.Kind)
            {
                case NodeKind.Ping:
                    // On Ping: answer the pinger.
                    run._neighbors[message.Sender].Send(new NodeMessage(NodeKind.Pong, id));
                    break;
                case NodeKind.Pong:
                    OnPong(message.Sender);
                    break;
                default:
                    _exited = true;
                    Stop();
                    break;
            }
        }

        // On Pong: check the sender; ping a random neighbour, or report to the Sink after N pings.
        private void OnPong(int sender)
        {
            if (sender != _expectedPinger)
            {
                _wrongPongs++;
            }

            if (_numPings == run._pings)
            {
                run._sink.Send(new SinkMessage(_numPings, _wrongPongs));
            }
            else
            {
                int target = _random.NextInt(run._actors);
                _expectedPinger = target;
                run._neighbors[target].Send(new NodeMessage(NodeKind.Ping, id));
                _numPings++;
            }
        }
    }

    // Sink, on Exit: after W of them, tell every actor to exit and complete.
    private sealed class SinkActor(BigChannels run) : ChannelActor<SinkMessage>
    {
        private int _exits;
        private long _totalPings;
        private long _wrongPongs;

        protected override void Receive(SinkMessage message)
        {
            _exits++;
            _totalPings += message.NumPings;
            _wrongPongs += message.WrongPongs;
            if (_exits == run._actors)
            {
                foreach (NodeActor actor in run._neighbors)
                {
                    actor.Send(new NodeMessage(NodeKind.Exit, -1));
                }

                run._exits = _exits;
                run._totalPings = _totalPings;
                run._wrongPongs = _wrongPongs;
                run._done.SetResult();
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for Big: the Channels baseline.</summary>
public partial class Big
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new BigChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
