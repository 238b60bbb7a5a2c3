using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

// Decisions (besides the actor run's):
// - A worker stops its own loop after its N-th message (Savina's exit()); the Master is stopped after the completion
//   event, and the run awaits every loop's end (the Boc run waits for quiescence instead).

/// <summary>Channels baseline: the actor run's A workers and Master, each a <see cref="ChannelActor{TMessage}"/>.</summary>
[SavinaWorkload("Fork-Join Throughput", SavinaVariant.Channels)]
public sealed class ForkJoinThroughputChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly int _messages = size switch { SavinaSize.Paper => 10_000, SavinaSize.Small => 10_000, _ => 200 };
    private readonly int _actors = size switch { SavinaSize.Paper => 60, SavinaSize.Small => 60, _ => 12 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private WorkerActor[] _workers = null!;
    private MasterActor _master = null!;
    private int _doneCount;
    private long _total;

    protected override void Build()
    {
        _workers = new WorkerActor[_actors];
        for (int i = 0; i < _actors; i++)
        {
            _workers[i] = new WorkerActor(this);
        }

        _master = new MasterActor(this);
    }

    protected override async Task ExecuteAsync()
    {
        for (int m = 0; m < _messages; m++)
        {
            foreach (WorkerActor worker in _workers)
            {
                worker.Send(default);
            }
        }

        await _done.Task.ConfigureAwait(false);
        _master.Stop();
        await Task.WhenAll(_workers.Select(w => w.Completion).Append(_master.Completion)).ConfigureAwait(false);
    }

    protected override void Validate()
    {
        Check(_doneCount == _actors, $"{_doneCount} workers finished, expected {_actors}");
        Check(_total == (long)_actors * _messages, $"Workers processed {_total} messages, expected {(long)_actors * _messages}");
    }

    private readonly record struct WorkMessage;

    private readonly record struct DoneMessage(int Processed);

    // Worker, on a message: compute; after the N-th, tell the Master and exit.
    private sealed class WorkerActor(ForkJoinThroughputChannels run) : ChannelActor<WorkMessage>
    {
        private int _processed;

        protected override void Receive(WorkMessage message)
        {
            _processed++;
            SavinaHelpers.PerformComputation(37.2);
            if (_processed == run._messages)
            {
                run._master.Send(new DoneMessage(_processed));
                Stop();
            }
        }
    }

    // Master, on Done: count; the last one completes the run.
    private sealed class MasterActor(ForkJoinThroughputChannels run) : ChannelActor<DoneMessage>
    {
        private int _finished;
        private long _total;

        protected override void Receive(DoneMessage message)
        {
            _finished++;
            _total += message.Processed;
            if (_finished == run._actors)
            {
                run._doneCount = _finished;
                run._total = _total;
                run._done.SetResult();
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for Fork-Join Throughput: the Channels baseline.</summary>
public partial class ForkJoinThroughput
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new ForkJoinThroughputChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
