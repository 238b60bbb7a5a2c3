using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Micro;

// Savina 4.5 Thread Ring (SOURCES.md §4.5): N actors in a ring pass Ping(k), decrementing k, until Ping(0); then
// Exit goes around the ring. No full-BoC variant.
//
// Decisions:
// - Each actor's successor is fixed in Build (the run keeps the ring array and each actor knows its successor's index)
//   instead of Savina's Data message: it is set-up, not what the benchmark measures.
// - The exit ring is Savina's: the Ping(0) receiver sends Exit(N) to its successor, and Exit(k>0) is forwarded as
//   Exit(k-1), so N+1 Exit deliveries reach every actor at least once; an actor exits on its first Exit. The Exit message
//   also carries the sum of the actors' ping counts and the number that exited, so that the last Exit can publish them
//   for validation without any state shared outside the cowns. [V] stops at Ping(0) instead (100,002 behaviours; here
//   R+1 pings, N+1 exits and the start).
// - Completion is the delivery of Ping(0); the exit ring finishes before validation because the run also waits for
//   quiescence.
// - Small equals Paper: a Paper run takes well under a second on the 2-core machine (about 0.01-0.3 s).

/// <summary>Actor style: N ring cowns; Ping and Exit are one-cown behaviours on the successor.</summary>
[SavinaWorkload("Thread Ring", SavinaVariant.Actor)]
public sealed class ThreadRingActor(SavinaSize size) : SavinaRun(size)
{
    private readonly int _actors = size switch { SavinaSize.Paper => 100, SavinaSize.Small => 100, _ => 10 };
    private readonly int _passes = size switch { SavinaSize.Paper => 100_000, SavinaSize.Small => 100_000, _ => 5_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<RingActor>[] _ring = null!;
    private long _pingsDelivered = -1;
    private int _exited = -1;

    protected override void Build()
    {
        _ring = new Cown<RingActor>[_actors];
        for (int i = 0; i < _actors; i++)
        {
            _ring[i] = new Cown<RingActor>(new RingActor { Next = (i + 1) % _actors });
        }
    }

    protected override Task ExecuteAsync()
    {
        SendPing(0, _passes);
        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_pingsDelivered == _passes + 1L, $"{_pingsDelivered} pings delivered, expected {_passes + 1L}");
        Check(_exited == _actors, $"{_exited} actors exited, expected {_actors}");
    }

    private void SendPing(int to, int k) =>
        Runtime.When(_ring[to], static (actor, message) => message.Run.OnPing(actor, message.K), (Run: this, K: k));

    private void SendExit(int to, ExitMessage exit) =>
        Runtime.When(_ring[to], static (actor, message) => message.Run.OnExit(actor, message.Exit), (Run: this, Exit: exit));

    private void OnPing(RingActor actor, int k)
    {
        actor.Pings++;
        if (k > 0)
        {
            SendPing(actor.Next, k - 1);
        }
        else
        {
            SendExit(actor.Next, new ExitMessage(_actors, 0, 0));
            _done.SetResult();
        }
    }

    private void OnExit(RingActor actor, ExitMessage exit)
    {
        if (!actor.Exited)
        {
            actor.Exited = true;
            exit = exit with { PingSum = exit.PingSum + actor.Pings, ExitedCount = exit.ExitedCount + 1 };
        }

        if (exit.K > 0)
        {
            SendExit(actor.Next, exit with { K = exit.K - 1 });
        }
        else
        {
            _pingsDelivered = exit.PingSum;
            _exited = exit.ExitedCount;
        }
    }

    private readonly record struct ExitMessage(int K, long PingSum, int ExitedCount);

    private sealed class RingActor
    {
        public int Next { get; init; }

        public long Pings { get; set; }

        public bool Exited { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Thread Ring.</summary>
public partial class ThreadRing : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new ThreadRingActor(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();
}
