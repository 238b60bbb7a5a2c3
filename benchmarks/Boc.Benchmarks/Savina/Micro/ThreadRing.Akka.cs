using Akka.Actor;
using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

// Akka.NET baseline of Thread Ring: the actors and messages of ThreadRingActor.
//
// Decisions:
// - Each actor learns its successor from a Neighbor message sent in Build (Savina's Data message; the Boc run fixes the
//   successor index in Build instead). Build is not timed, and mailbox order delivers it before any Ping.
// - Akka has no quiescence wait, so the run completes when both Ping(0) has been delivered (the Boc completion event)
//   and the exit ring has ended (which the Boc run's quiescence wait covers): the timed work is the same.
// - Every actor but the one that receives Exit(N) receives exactly one Exit; that one also receives the closing Exit(0).
//   Each actor stops itself on its last Exit, so no message goes to a stopped actor.

/// <summary>Akka.NET baseline: N ring actors pass Ping(k), then Exit goes around the ring.</summary>
[SavinaWorkload("Thread Ring", SavinaVariant.Akka)]
public sealed class ThreadRingAkka(SavinaSize size) : SavinaRun(size)
{
    private readonly int _actors = size switch { SavinaSize.Paper => 100, SavinaSize.Small => 100, _ => 10 };
    private readonly int _passes = size switch { SavinaSize.Paper => 100_000, SavinaSize.Small => 100_000, _ => 5_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _exitsDone = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private IActorRef[] _ring = null!;
    private long _pingsDelivered = -1;
    private int _exited = -1;

    protected override void Build()
    {
        ActorSystem system = AkkaHost.System;
        int actors = _actors;
        Action pingZero = OnPingZero;
        Action<long, int> exitRingDone = OnExitRingDone;
        _ring = new IActorRef[_actors];
        for (int i = 0; i < _actors; i++)
        {
            _ring[i] = system.ActorOf(Props.Create(() => new RingActor(actors, pingZero, exitRingDone)));
        }

        for (int i = 0; i < _actors; i++)
        {
            _ring[i].Tell(new Neighbor(_ring[(i + 1) % _actors]));
        }
    }

    protected override Task ExecuteAsync()
    {
        _ring[0].Tell(new Ping(_passes));
        return Task.WhenAll(_done.Task, _exitsDone.Task);
    }

    protected override void Validate()
    {
        Check(_pingsDelivered == _passes + 1L, $"{_pingsDelivered} pings delivered, expected {_passes + 1L}");
        Check(_exited == _actors, $"{_exited} actors exited, expected {_actors}");
    }

    private void OnPingZero() => _done.SetResult();

    private void OnExitRingDone(long pingSum, int exitedCount)
    {
        _pingsDelivered = pingSum;
        _exited = exitedCount;
        _exitsDone.SetResult();
    }

    private sealed record Neighbor(IActorRef Next);

    private sealed record Ping(int K);

    private sealed record Exit(int K, long PingSum, int ExitedCount);

    private sealed class RingActor : ReceiveActor
    {
        private IActorRef _next = ActorRefs.Nobody;
        private long _pings;
        private bool _exited;

        public RingActor(int actors, Action pingZero, Action<long, int> exitRingDone)
        {
            Receive<Neighbor>(m => _next = m.Next);

            // On Ping: count; pass Ping(k-1), or at Ping(0) start the exit ring and signal completion.
            Receive<Ping>(m =>
            {
                _pings++;
                if (m.K > 0)
                {
                    _next.Tell(new Ping(m.K - 1));
                }
                else
                {
                    _next.Tell(new Exit(actors, 0, 0));
                    pingZero();
                }
            });

            // On Exit: add this actor's count on its first Exit, forward Exit(k-1) or publish at Exit(0); stop on the last.
            Receive<Exit>(m =>
            {
                Exit exit = m;
                if (!_exited)
                {
                    _exited = true;
                    exit = exit with { PingSum = exit.PingSum + _pings, ExitedCount = exit.ExitedCount + 1 };
                }

                if (exit.K > 0)
                {
                    _next.Tell(exit with { K = exit.K - 1 });
                }
                else
                {
                    exitRingDone(exit.PingSum, exit.ExitedCount);
                }

                if (exit.K != actors)
                {
                    Context.Stop(Self);
                }
            });
        }
    }
}

/// <summary>BenchmarkDotNet entry for the Akka.NET baseline of Thread Ring.</summary>
public partial class ThreadRing
{
    private SavinaRun _akkaRun = null!;

    [IterationSetup(Target = nameof(Akka))]
    public void SetupAkka() => _akkaRun = Prepare(new ThreadRingAkka(Size));

    [Benchmark]
    public Task Akka() => _akkaRun.RunAsync();
}
