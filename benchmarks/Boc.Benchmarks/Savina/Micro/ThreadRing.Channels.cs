using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

// Decisions (besides the actor run's):
// - The Boc run's wait for quiescence covers the exit ring that follows Ping(0); here the last Exit (Exit(0)) sets a
//   second signal that the run awaits after the completion event, before stopping the actors. An actor cannot stop its
//   own loop on its first Exit, because the ring's last Exit reaches one actor a second time.

/// <summary>Channels baseline: the actor run's N ring actors, each a <see cref="ChannelActor{TMessage}"/>.</summary>
[SavinaWorkload("Thread Ring", SavinaVariant.Channels)]
public sealed class ThreadRingChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly int _actors = size switch { SavinaSize.Paper => 100, SavinaSize.Small => 100, _ => 10 };
    private readonly int _passes = size switch { SavinaSize.Paper => 100_000, SavinaSize.Small => 100_000, _ => 5_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _exitRingDone = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private RingActor[] _ring = null!;
    private long _pingsDelivered = -1;
    private int _exited = -1;

    protected override void Build()
    {
        _ring = new RingActor[_actors];
        for (int i = 0; i < _actors; i++)
        {
            _ring[i] = new RingActor(this, (i + 1) % _actors);
        }
    }

    protected override async Task ExecuteAsync()
    {
        _ring[0].Send(RingMessage.Ping(_passes));
        await _done.Task.ConfigureAwait(false);
        await _exitRingDone.Task.ConfigureAwait(false);
        foreach (RingActor actor in _ring)
        {
            actor.Stop();
        }

        await Task.WhenAll(_ring.Select(a => a.Completion)).ConfigureAwait(false);
    }

    protected override void Validate()
    {
        Check(_pingsDelivered == _passes + 1L, $"{_pingsDelivered} pings delivered, expected {_passes + 1L}");
        Check(_exited == _actors, $"{_exited} actors exited, expected {_actors}");
    }

    /// <summary>Ping(K), or Exit(K) carrying the ping sum and exit count gathered so far.</summary>
    private readonly record struct RingMessage(bool IsExit, int K, long PingSum, int ExitedCount)
    {
        public static RingMessage Ping(int k) => new(false, k, 0, 0);
    }

    private sealed class RingActor(ThreadRingChannels run, int next) : ChannelActor<RingMessage>
    {
        private long _pings;
        private bool _exited;

        protected override void Receive(RingMessage message)
        {
            if (message.IsExit)
            {
                OnExit(message);
            }
            else
            {
                OnPing(message.K);
            }
        }

        private void OnPing(int k)
        {
            _pings++;
            if (k > 0)
            {
                run._ring[next].Send(RingMessage.Ping(k - 1));
            }
            else
            {
                run._ring[next].Send(new RingMessage(true, run._actors, 0, 0));
                run._done.SetResult();
            }
        }

        private void OnExit(RingMessage exit)
        {
            if (!_exited)
            {
                _exited = true;
                exit = exit with { PingSum = exit.PingSum + _pings, ExitedCount = exit.ExitedCount + 1 };
            }

            if (exit.K > 0)
            {
                run._ring[next].Send(exit with { K = exit.K - 1 });
            }
            else
            {
                run._pingsDelivered = exit.PingSum;
                run._exited = exit.ExitedCount;
                run._exitRingDone.SetResult();
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for Thread Ring: the Channels baseline.</summary>
public partial class ThreadRing
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new ThreadRingChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
