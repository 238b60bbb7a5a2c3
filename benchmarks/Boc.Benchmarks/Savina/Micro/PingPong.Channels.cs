using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

/// <summary>Channels baseline: the actor run's Ping and Pong, each a <see cref="ChannelActor{TMessage}"/>.</summary>
[SavinaWorkload("Ping Pong", SavinaVariant.Channels)]
public sealed class PingPongChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly int _pings = size switch { SavinaSize.Paper => 40_000, SavinaSize.Small => 40_000, _ => 2_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private PingActor _ping = null!;
    private PongActor _pong = null!;
    private int _pongCount;

    protected override void Build()
    {
        _ping = new PingActor(this, _pings);
        _pong = new PongActor(this);
    }

    protected override async Task ExecuteAsync()
    {
        // Start: Ping sends the first Ping.
        _ping.Send(new PingMessage(PingKind.Start));
        await _done.Task.ConfigureAwait(false);
        _ping.Stop();
        _pong.Stop();
        await Task.WhenAll(_ping.Completion, _pong.Completion).ConfigureAwait(false);
    }

    protected override void Validate()
    {
        Check(_pongCount == _pings, $"Pong counted {_pongCount} pings, expected {_pings}");
    }

    private enum PingKind
    {
        Start,
        Pong,
    }

    private enum PongKind
    {
        Ping,
        Stop,
    }

    private readonly record struct PingMessage(PingKind Kind);

    private readonly record struct PongMessage(PongKind Kind);

    // Ping, on Start or Pong: send the next ping or stop.
    private sealed class PingActor(PingPongChannels run, int pings) : ChannelActor<PingMessage>
    {
        private int _pingsLeft = pings;

        protected override void Receive(PingMessage message)
        {
            if (_pingsLeft == 0)
            {
                run._pong.Send(new PongMessage(PongKind.Stop));
                return;
            }

            _pingsLeft--;
            run._pong.Send(new PongMessage(PongKind.Ping));
        }
    }

    // Pong, on Ping: count and reply; on Stop: publish the count and complete.
    private sealed class PongActor(PingPongChannels run) : ChannelActor<PongMessage>
    {
        private int _count;

        protected override void Receive(PongMessage message)
        {
            if (message.Kind == PongKind.Ping)
            {
                _count++;
                run._ping.Send(new PingMessage(PingKind.Pong));
            }
            else
            {
                run._pongCount = _count;
                run._done.SetResult();
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for Ping Pong: the Channels baseline.</summary>
public partial class PingPong
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new PingPongChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
