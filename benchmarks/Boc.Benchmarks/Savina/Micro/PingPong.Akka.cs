using Akka.Actor;
using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

/// <summary>Akka.NET baseline: the Ping and Pong actors of <see cref="PingPongActor"/>; Pong replies to its sender.</summary>
[SavinaWorkload("Ping Pong", SavinaVariant.Akka)]
public sealed class PingPongAkka(SavinaSize size) : SavinaRun(size)
{
    private readonly int _pings = size switch { SavinaSize.Paper => 40_000, SavinaSize.Small => 40_000, _ => 2_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private IActorRef _ping = ActorRefs.Nobody;
    private int _pongCount = -1;

    protected override void Build()
    {
        ActorSystem system = AkkaHost.System;
        Action<int> onStop = OnStop;
        IActorRef pong = system.ActorOf(Props.Create(() => new PongActor(onStop)));
        int pings = _pings;
        _ping = system.ActorOf(Props.Create(() => new PingActor(pings, pong)));
    }

    protected override Task ExecuteAsync()
    {
        _ping.Tell(Start.Instance);
        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_pongCount == _pings, $"Pong counted {_pongCount} pings, expected {_pings}");
    }

    // Pong, on Stop: publish the count and complete.
    private void OnStop(int count)
    {
        _pongCount = count;
        _done.SetResult();
    }

    private sealed class Start
    {
        public static readonly Start Instance = new();
    }

    private sealed class Ping
    {
        public static readonly Ping Instance = new();
    }

    private sealed class Pong
    {
        public static readonly Pong Instance = new();
    }

    private sealed class Stop
    {
        public static readonly Stop Instance = new();
    }

    private sealed class PingActor : ReceiveActor
    {
        private readonly IActorRef _pong;
        private int _pingsLeft;

        public PingActor(int pings, IActorRef pong)
        {
            _pingsLeft = pings;
            _pong = pong;
            Receive<Start>(_ => SendPing());
            Receive<Pong>(_ => SendPing());
        }

        // On Start or Pong: send the next ping, or stop Pong and this actor.
        private void SendPing()
        {
            if (_pingsLeft == 0)
            {
                _pong.Tell(Stop.Instance);
                Context.Stop(Self);
                return;
            }

            _pingsLeft--;
            _pong.Tell(Ping.Instance);
        }
    }

    private sealed class PongActor : ReceiveActor
    {
        private int _count;

        public PongActor(Action<int> onStop)
        {
            // On Ping: count and reply to the sender.
            Receive<Ping>(_ =>
            {
                _count++;
                Sender.Tell(Pong.Instance);
            });

            // On Stop: publish the count, complete and stop.
            Receive<Stop>(_ =>
            {
                onStop(_count);
                Context.Stop(Self);
            });
        }
    }
}

/// <summary>BenchmarkDotNet entry for the Akka.NET baseline of Ping Pong.</summary>
public partial class PingPong
{
    private SavinaRun _akkaRun = null!;

    [IterationSetup(Target = nameof(Akka))]
    public void SetupAkka() => _akkaRun = Prepare(new PingPongAkka(Size));

    [Benchmark]
    public Task Akka() => _akkaRun.RunAsync();
}
