using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Parallel;

/// <summary>
/// Channels baseline of <see cref="TrapezoidActor"/>: the same Master and W Workers, each a <see cref="ChannelActor{TMessage}"/>;
/// Work goes Master → Workers, Result goes Workers → Master, and the W-th Result completes the run.
/// </summary>
[SavinaWorkload("Trapezoid", SavinaVariant.Channels)]
public sealed class TrapezoidChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly (int Pieces, int Workers, double Left, double Right) _p = TrapezoidModel.Parameters(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Master _master = null!;
    private Worker[] _workers = null!;
    private double _expected;
    private double _area;
    private int _results;

    protected override void Build()
    {
        _expected = TrapezoidModel.ExpectedArea(Size);
        _master = new Master(this);
        _workers = new Worker[_p.Workers];
        for (int i = 0; i < _workers.Length; i++)
        {
            _workers[i] = new Worker(_master, i);
        }
    }

    protected override async Task ExecuteAsync()
    {
        double h = (_p.Right - _p.Left) / _p.Pieces;
        _master.Send(new Work(_p.Left, _p.Right, h));
        await _done.Task.ConfigureAwait(false);

        _master.Stop();
        foreach (Worker worker in _workers)
        {
            worker.Stop();
        }

        await _master.Completion.ConfigureAwait(false);
        foreach (Worker worker in _workers)
        {
            await worker.Completion.ConfigureAwait(false);
        }
    }

    protected override void Validate()
    {
        Check(_results == _p.Workers, $"Master received {_results} results, expected {_p.Workers}");
        Check(TrapezoidModel.Close(_area, _expected), $"area {_area:R}, expected {_expected:R} (relative tolerance 1e-9)");
    }

    private abstract record MasterMessage;

    private sealed record Work(double Left, double Right, double H) : MasterMessage;

    private sealed record Result(double Area, int WorkerId) : MasterMessage;

    private sealed class Master(TrapezoidChannels run) : ChannelActor<MasterMessage>
    {
        private int _termsReceived;
        private double _area;

        protected override void Receive(MasterMessage message)
        {
            switch (message)
            {
                // Work(L, R, h): one Work per worker.
                case Work work:
                    Worker[] workers = run._workers;
                    for (int i = 0; i < workers.Length; i++)
                    {
                        (double wl, double wr) = TrapezoidModel.WorkerRange(work.Left, work.Right, workers.Length, i);
                        workers[i].Send(new Work(wl, wr, work.H));
                    }

                    break;

                // Result: accumulate; the W-th result completes the run.
                case Result result:
                    _termsReceived++;
                    _area += result.Area;
                    if (_termsReceived == run._workers.Length)
                    {
                        run._results = _termsReceived;
                        run._area = _area;
                        run._done.SetResult();
                    }

                    break;
            }
        }
    }

    // Worker, on Work: integrate and reply.
    private sealed class Worker(Master master, int id) : ChannelActor<Work>
    {
        protected override void Receive(Work message) =>
            master.Send(new Result(TrapezoidModel.Integrate(message.Left, message.Right, message.H), id));
    }
}

/// <summary>BenchmarkDotNet entry for Trapezoid: the Channels baseline.</summary>
public partial class Trapezoid
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new TrapezoidChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
