using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

// Decisions (besides the actor run's):
// - The N workers (each with its channel and reader loop) are created inside the timed run, as in the actor run; each
//   stops its own loop after its one message (Savina's exit()). The run keeps their Completion tasks and awaits them
//   after the completion event (the Boc run waits for quiescence instead), so that a failing handler surfaces.

/// <summary>Channels baseline: N fresh worker <see cref="ChannelActor{TMessage}"/>s, one message each, and a Master.</summary>
[SavinaWorkload("Fork-Join Create", SavinaVariant.Channels)]
public sealed class ForkJoinCreateChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly int _workers = size switch { SavinaSize.Paper => 40_000, SavinaSize.Small => 40_000, _ => 2_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private MasterActor _master = null!;
    private int _finished;

    protected override void Build()
    {
        _master = new MasterActor(this);
    }

    protected override async Task ExecuteAsync()
    {
        var loops = new Task[_workers + 1];
        for (int i = 0; i < _workers; i++)
        {
            var worker = new WorkerActor(this);
            worker.Send(default);
            loops[i] = worker.Completion;
        }

        await _done.Task.ConfigureAwait(false);
        _master.Stop();
        loops[_workers] = _master.Completion;
        await Task.WhenAll(loops).ConfigureAwait(false);
    }

    protected override void Validate()
    {
        Check(_finished == _workers, $"{_finished} workers finished, expected {_workers}");
    }

    private readonly record struct WorkMessage;

    private readonly record struct DoneMessage;

    // Worker, on its one message: compute, report and exit.
    private sealed class WorkerActor(ForkJoinCreateChannels run) : ChannelActor<WorkMessage>
    {
        private int _processed;

        protected override void Receive(WorkMessage message)
        {
            _processed++;
            SavinaHelpers.PerformComputation(37.2);
            run._master.Send(default);
            Stop();
        }
    }

    // Master, on Done: the N-th completes the run.
    private sealed class MasterActor(ForkJoinCreateChannels run) : ChannelActor<DoneMessage>
    {
        private int _finished;

        protected override void Receive(DoneMessage message)
        {
            _finished++;
            if (_finished == run._workers)
            {
                run._finished = _finished;
                run._done.SetResult();
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for Fork-Join Create: the Channels baseline.</summary>
public partial class ForkJoinCreate
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new ForkJoinCreateChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
