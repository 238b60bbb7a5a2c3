using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Concurrency;

/// <summary>
/// Channels baseline of <see cref="LogisticMapActor"/>: the same Master, S SeriesWorkers (with Savina's manual stash,
/// replayed in place) and S RateComputers, each a <see cref="ChannelActor{TMessage}"/>.
/// </summary>
[SavinaWorkload("Logistic Map Series", SavinaVariant.Channels)]
public sealed class LogisticMapChannels(SavinaSize size, double startRate) : SavinaRun(size)
{
    private readonly LogisticMapParameters _p = LogisticMapParameters.For(size, startRate);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Master _master = null!;
    private Computer[] _computers = null!;
    private Worker[] _workers = null!;
    private double _expectedSum;

    // Published at completion: by the Master, and by each worker on Stop.
    private double _termsSum = double.NaN;
    private int _results;
    private long[] _computedTerms = [];

    public LogisticMapChannels(SavinaSize size)
        : this(size, LogisticMapParameters.DefaultStartRate)
    {
    }

    private enum Kind
    {
        NextTerm,
        GetTerm,
        Result,
        Stop,
    }

    protected override void Build()
    {
        _master = new Master(this);
        _computers = new Computer[_p.Series];
        _workers = new Worker[_p.Series];
        for (int i = 0; i < _p.Series; i++)
        {
            _computers[i] = new Computer(_p.Rate(i));
            _workers[i] = new Worker(this, i, _computers[i], _p.StartTerm(i));
        }

        _computedTerms = new long[_p.Series];
        _expectedSum = _p.ReferenceSum();
    }

    protected override async Task ExecuteAsync()
    {
        _master.Send(new MasterMessage(IsStart: true, 0));
        await _done.Task.ConfigureAwait(false);
        await _master.Completion.ConfigureAwait(false);
        await Task.WhenAll(_computers.Select(c => c.Completion)).ConfigureAwait(false);
        await Task.WhenAll(_workers.Select(w => w.Completion)).ConfigureAwait(false);
    }

    protected override void Validate()
    {
        Check(_results == _p.Series, $"the Master received {_results} results, expected {_p.Series}");
        Check(
            Math.Abs(_termsSum - _expectedSum) <= 1e-12 * Math.Abs(_expectedSum),
            $"termsSum {_termsSum:R}, expected {_expectedSum:R}");
        for (int i = 0; i < _p.Series; i++)
        {
            Check(_computedTerms[i] == _p.Terms, $"series {i} computed {_computedTerms[i]} terms, expected {_p.Terms}");
        }
    }

    /// <summary>Start, or Result with a worker's term.</summary>
    private readonly record struct MasterMessage(bool IsStart, double Term);

    private readonly record struct Message(Kind Kind, double Term);

    /// <summary>Compute (with the worker to reply to), or Stop when <see cref="Worker"/> is null.</summary>
    private readonly record struct ComputerMessage(Worker? Worker, double Term);

    private sealed class Master(LogisticMapChannels run) : ChannelActor<MasterMessage>
    {
        private int _requested;
        private int _received;
        private double _termsSum;

        protected override void Receive(MasterMessage message)
        {
            if (message.IsStart)
            {
                OnStart();
            }
            else
            {
                OnResult(message.Term);
            }
        }

        // On Start: T rounds of NextTerm to every worker, then GetTerm to every worker.
        private void OnStart()
        {
            for (int k = 0; k < run._p.Terms; k++)
            {
                foreach (Worker worker in run._workers)
                {
                    worker.Send(new Message(Kind.NextTerm, 0));
                }
            }

            foreach (Worker worker in run._workers)
            {
                worker.Send(new Message(Kind.GetTerm, 0));
                _requested++;
            }
        }

        // On Result: sum; after S results publish, stop everyone and complete.
        private void OnResult(double term)
        {
            _termsSum += term;
            _received++;
            if (_received == _requested)
            {
                run._termsSum = _termsSum;
                run._results = _received;

                foreach (Computer computer in run._computers)
                {
                    computer.Send(new ComputerMessage(null, 0));
                    computer.Stop();
                }

                foreach (Worker worker in run._workers)
                {
                    worker.Send(new Message(Kind.Stop, 0));
                    worker.Stop();
                }

                Stop();
                run._done.SetResult();
            }
        }
    }

    // RateComputer, on Compute: reply with the next term.
    private sealed class Computer(double rate) : ChannelActor<ComputerMessage>
    {
        private bool _stopped;

        protected override void Receive(ComputerMessage message)
        {
            if (message.Worker is null)
            {
                _stopped = true;
                return;
            }

            if (_stopped)
            {
                throw new InvalidOperationException("a stopped RateComputer got Compute");
            }

            message.Worker.Send(new Message(Kind.Result, LogisticMapParameters.NextTerm(message.Term, rate)));
        }
    }

    // SeriesWorker: Savina's ManualStash process(), replaying the stash in place as the actor variant does.
    private sealed class Worker(LogisticMapChannels run, int id, Computer computer, double startTerm) : ChannelActor<Message>
    {
        private readonly PooledQueue<Kind> _stash = new();
        private double _term = startTerm;
        private bool _inReplyMode;
        private long _computedTerms;

        protected override void Receive(Message message)
        {
            if (!_inReplyMode)
            {
                Handle(message);
            }
            else if (message.Kind == Kind.Result)
            {
                _inReplyMode = false;
                _term = message.Term;
                _computedTerms++;

                // The stash in order, until one enters reply mode again (each message once a pass: LogisticMapActor).
                for (int left = _stash.Count; left > 0 && !_inReplyMode; left--)
                {
                    Handle(new Message(_stash.Dequeue(), 0));
                }
            }
            else
            {
                // Only the kind is kept, as in LogisticMapActor.
                _stash.Enqueue(message.Kind);
            }
        }

        private void Handle(Message message)
        {
            switch (message.Kind)
            {
                case Kind.NextTerm:
                    computer.Send(new ComputerMessage(this, _term));
                    _inReplyMode = true;
                    break;
                case Kind.GetTerm:
                    if (_stash.Count == 0)
                    {
                        run._master.Send(new MasterMessage(IsStart: false, _term));
                    }
                    else
                    {
                        _stash.Enqueue(message.Kind);
                    }

                    break;
                case Kind.Stop:
                    run._computedTerms[id] = _computedTerms;
                    _stash.Release();
                    break;
                default:
                    throw new InvalidOperationException($"worker {id} got an unexpected {message.Kind}");
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for Logistic Map Series: the Channels baseline.</summary>
public partial class LogisticMap
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new LogisticMapChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
