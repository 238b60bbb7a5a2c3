using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Micro;

// Savina 4.1 Ping Pong (SOURCES.md §4.1): Ping sends N pings to Pong, Pong answers each; no full-BoC variant.

/// <summary>Actor style: two cowns (Ping, Pong); every message is a one-cown behaviour on its receiver.</summary>
[SavinaWorkload("Ping Pong", SavinaVariant.Actor)]
public sealed class PingPongActor(SavinaSize size) : SavinaRun(size)
{
    private readonly int _pings = size switch { SavinaSize.Paper => 40_000, SavinaSize.Small => 40_000, _ => 2_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<PingState> _ping = null!;
    private Cown<PongState> _pong = null!;
    private int _pongCount;

    protected override void Build()
    {
        _ping = new Cown<PingState>(new PingState { PingsLeft = _pings });
        _pong = new Cown<PongState>(new PongState());
    }

    protected override Task ExecuteAsync()
    {
        // Start: Ping sends the first Ping.
        Runtime.When(_ping, static (ping, run) => run.SendPing(ping), this);
        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_pongCount == _pings, $"Pong counted {_pongCount} pings, expected {_pings}");
    }

    // Ping, on Start or Pong: send the next ping or stop.
    private void SendPing(PingState ping)
    {
        if (ping.PingsLeft == 0)
        {
            Runtime.When(_pong, static (pong, run) => run.Stop(pong), this);
            return;
        }

        ping.PingsLeft--;
        Runtime.When(_pong, static (pong, run) => run.OnPing(pong), this);
    }

    // Pong, on Ping: count and reply.
    private void OnPing(PongState pong)
    {
        pong.Count++;
        Runtime.When(_ping, static (ping, run) => run.SendPing(ping), this);
    }

    // Pong, on Stop: publish the count and complete.
    private void Stop(PongState pong)
    {
        _pongCount = pong.Count;
        _done.SetResult();
    }

    private sealed class PingState
    {
        public int PingsLeft { get; set; }
    }

    private sealed class PongState
    {
        public int Count { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Ping Pong.</summary>
public partial class PingPong : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new PingPongActor(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();
}
