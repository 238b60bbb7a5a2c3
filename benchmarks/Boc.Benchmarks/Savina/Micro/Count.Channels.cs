using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

// Decisions (besides the actor run's):
// - Retrieve runs after every Increment because a channel is FIFO and the Producer sends them all from one handler.

/// <summary>Channels baseline: the actor run's Producer and Counter, each a <see cref="ChannelActor{TMessage}"/>.</summary>
[SavinaWorkload("Count", SavinaVariant.Channels)]
public sealed class CountChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly int _n = size switch { SavinaSize.Paper => 1_000_000, SavinaSize.Small => 1_000_000, _ => 20_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private ProducerActor _producer = null!;
    private CounterActor _counter = null!;
    private int _result = -1;

    protected override void Build()
    {
        _producer = new ProducerActor(this);
        _counter = new CounterActor(this);
    }

    protected override async Task ExecuteAsync()
    {
        _producer.Send(new ProducerMessage(IsResult: false, 0));
        await _done.Task.ConfigureAwait(false);
        _producer.Stop();
        _counter.Stop();
        await Task.WhenAll(_producer.Completion, _counter.Completion).ConfigureAwait(false);
    }

    protected override void Validate()
    {
        Check(_result == _n, $"Counter returned {_result}, expected {_n}");
    }

    /// <summary>Start, or Result(count).</summary>
    private readonly record struct ProducerMessage(bool IsResult, int Count);

    /// <summary>Increment, or Retrieve.</summary>
    private readonly record struct CounterMessage(bool IsRetrieve);

    private sealed class ProducerActor(CountChannels run) : ChannelActor<ProducerMessage>
    {
        private int _result;

        protected override void Receive(ProducerMessage message)
        {
            if (message.IsResult)
            {
                // On Result: publish and complete.
                _result = message.Count;
                run._result = _result;
                run._done.SetResult();
                return;
            }

            // On Start: N Increments, then Retrieve.
            CounterActor counter = run._counter;
            for (int i = 0; i < run._n; i++)
            {
                counter.Send(new CounterMessage(IsRetrieve: false));
            }

            counter.Send(new CounterMessage(IsRetrieve: true));
        }
    }

    private sealed class CounterActor(CountChannels run) : ChannelActor<CounterMessage>
    {
        private int _count;

        protected override void Receive(CounterMessage message)
        {
            if (message.IsRetrieve)
            {
                // On Retrieve: reply with the count.
                run._producer.Send(new ProducerMessage(IsResult: true, _count));
            }
            else
            {
                _count++;
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for Count: the Channels baseline.</summary>
public partial class Count
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new CountChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
