using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Parallel;

/// <summary>
/// Channels baseline of <see cref="RecursiveMatrixMultiplicationActor"/>: the same Master and W Workers, each a
/// <see cref="ChannelActor{TMessage}"/>; Work, Done and Stop are messages, and the W-th Stop echo completes the run.
/// As there, C is written only by the one worker its block origin routes to, and read after completion.
/// </summary>
[SavinaWorkload("Recursive Matrix Multiplication", SavinaVariant.Channels)]
public sealed class RecursiveMatrixMultiplicationChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly int _workerCount = 20;
    private readonly int _n = size switch { SavinaSize.Paper => 1024, SavinaSize.Small => 512, _ => 64 };
    private readonly int _threshold = size switch { SavinaSize.Test => 256, _ => 16_384 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private double[][] _a = null!;
    private double[][] _b = null!;
    private double[][] _c = null!;
    private Master _master = null!;
    private Worker[] _workers = null!;
    private int _workSent;
    private int _workCompleted;
    private int _leaves;

    private enum MasterKind
    {
        Work,
        Done,
        Stopped,
    }

    protected override void Build()
    {
        _a = new double[_n][];
        _b = new double[_n][];
        _c = new double[_n][];
        for (int i = 0; i < _n; i++)
        {
            _a[i] = new double[_n];
            _b[i] = new double[_n];
            _c[i] = new double[_n];
            for (int j = 0; j < _n; j++)
            {
                _a[i][j] = i;
                _b[i][j] = j;
            }
        }

        _master = new Master(this);
        _workers = new Worker[_workerCount];
        for (int i = 0; i < _workers.Length; i++)
        {
            _workers[i] = new Worker(this);
        }
    }

    protected override async Task ExecuteAsync()
    {
        _master.Send(new MasterMessage(MasterKind.Work, new Work(0, 0, 0, 0, 0, 0, _n * _n, _n), 0));
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
        string? error = RecursiveMatrixMultiplicationCheck.Find(_n, _threshold, _workSent, _workCompleted, _leaves, _c);
        Check(error is null, error!);
    }

    private readonly record struct Work(int SrA, int ScA, int SrB, int ScB, int SrC, int ScC, int NumBlocks, int Dim);

    // Work (to route), Done, or a Stop echo carrying the worker's leaf count.
    private readonly record struct MasterMessage(MasterKind Kind, Work Work, int Leaves);

    // Work, or Stop.
    private readonly record struct WorkerMessage(bool IsStop, Work Work);

    private sealed class Master(RecursiveMatrixMultiplicationChannels run) : ChannelActor<MasterMessage>
    {
        private int _workSent;
        private int _workCompleted;
        private int _workersTerminated;
        private int _leaves;

        protected override void Receive(MasterMessage message)
        {
            switch (message.Kind)
            {
                // Route a work item by its C-block origin.
                case MasterKind.Work:
                    Worker[] workers = run._workers;
                    workers[(message.Work.SrC + message.Work.ScC) % workers.Length].Send(new WorkerMessage(false, message.Work));
                    _workSent++;
                    break;

                // Done: when every item sent is done, stop the workers.
                case MasterKind.Done:
                    _workCompleted++;
                    if (_workCompleted == _workSent)
                    {
                        foreach (Worker worker in run._workers)
                        {
                            worker.Send(new WorkerMessage(true, default));
                        }
                    }

                    break;

                // A Stop echo: the W-th completes the run.
                case MasterKind.Stopped:
                    _workersTerminated++;
                    _leaves += message.Leaves;
                    if (_workersTerminated == run._workers.Length)
                    {
                        run._workSent = _workSent;
                        run._workCompleted = _workCompleted;
                        run._leaves = _leaves;
                        run._done.SetResult();
                    }

                    break;
            }
        }
    }

    private sealed class Worker(RecursiveMatrixMultiplicationChannels run) : ChannelActor<WorkerMessage>
    {
        private int _leaves;

        protected override void Receive(WorkerMessage message)
        {
            if (message.IsStop)
            {
                // Stop: echo it to the Master, with this worker's leaf count.
                run._master.Send(new MasterMessage(MasterKind.Stopped, default, _leaves));
            }
            else
            {
                OnWork(message.Work);
            }
        }

        // Work: split into 8 items for the Master, or multiply the block; then Done.
        private void OnWork(Work w)
        {
            if (w.NumBlocks > run._threshold)
            {
                int d = w.Dim / 2;
                int blocks = w.NumBlocks / 4;
                ToMaster(new Work(w.SrA, w.ScA, w.SrB, w.ScB, w.SrC, w.ScC, blocks, d));
                ToMaster(new Work(w.SrA, w.ScA + d, w.SrB + d, w.ScB, w.SrC, w.ScC, blocks, d));
                ToMaster(new Work(w.SrA, w.ScA, w.SrB, w.ScB + d, w.SrC, w.ScC + d, blocks, d));
                ToMaster(new Work(w.SrA, w.ScA + d, w.SrB + d, w.ScB + d, w.SrC, w.ScC + d, blocks, d));
                ToMaster(new Work(w.SrA + d, w.ScA, w.SrB, w.ScB, w.SrC + d, w.ScC, blocks, d));
                ToMaster(new Work(w.SrA + d, w.ScA + d, w.SrB + d, w.ScB, w.SrC + d, w.ScC, blocks, d));
                ToMaster(new Work(w.SrA + d, w.ScA, w.SrB, w.ScB + d, w.SrC + d, w.ScC + d, blocks, d));
                ToMaster(new Work(w.SrA + d, w.ScA + d, w.SrB + d, w.ScB + d, w.SrC + d, w.ScC + d, blocks, d));
            }
            else
            {
                Multiply(w);
                _leaves++;
            }

            run._master.Send(new MasterMessage(MasterKind.Done, default, 0));
        }

        private void ToMaster(Work work) => run._master.Send(new MasterMessage(MasterKind.Work, work, 0));

        private void Multiply(Work w) =>
            RecursiveMatrixMultiplicationKernel.AccumulateBlock(run._a, run._b, run._c, w.SrA, w.ScA, w.SrB, w.SrC, w.ScC, w.Dim);
    }
}

/// <summary>BenchmarkDotNet entry for Recursive Matrix Multiplication: the Channels baseline.</summary>
public partial class RecursiveMatrixMultiplication
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new RecursiveMatrixMultiplicationChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
