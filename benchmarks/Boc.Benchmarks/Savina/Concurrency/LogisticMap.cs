using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Concurrency;

// Savina 4.15 Logistic Map Series (SOURCES.md §4.15, the ManualStash variant): S series workers, each paired
// with a rate computer (rate = startRate + i*inc, start term = i*inc). The Master sends T NextTerm messages to every
// worker, then GetTerm; it sums the S final terms.
//
// Decisions:
// - startRate is 3.64 ([V]/[P], the BoC paper), not Savina's 3.46 (spec §7.2). It is the public constant
//   DefaultStartRate; a second constructor takes another rate.
// - The stash holds message kinds (NextTerm, GetTerm: their terms are unused) in a queue on pooled storage, as [V]'s
//   std::deque of kinds, whose blocks its allocator recycles (PooledQueue says why; both variants).
// - The actor variant implements Savina's manual stash: a worker waiting for its computer's Result stashes every
//   other message. Out of reply mode it replays the stash in place, in order, until a NextTerm enters reply mode
//   again, as [V]'s unstash does (savina-spec §4.15: "then it replays stashed messages in order"; the split into
//   behaviours follows [V]: 3 behaviours a term, [V]'s 750,022 in all). Savina's Java re-sends the first stashed
//   message to itself instead, a fourth behaviour a term (1,000,022 in all); this port did so until the side-by-side
//   rows were compared (docs/performance/decisions.md, "Logistic Map actor replays its stash in place"). GetTerm is
//   answered only with an empty stash.
// - Savina's Stop to every computer and worker is kept; the workers' Stop behaviours publish how many terms each
//   computed, for Validate.
// - Validation: termsSum against a sequential computation in Build ((rate*term)*(1-term), as Savina; relative
//   tolerance 1e-12 because the Master's summation order varies), plus T computed terms per series. At Paper size
//   the reference is 6.964599481489831 (startRate 3.64), equal to the spec's value.
// - Full BoC follows [V]: per term and series one when(worker, computer){ term = rate*term*(1-term) }, spawned by
//   the driver, then when(master, worker){ sum += term } per series; no stash.

/// <summary>Logistic Map parameters: T terms, S series, the start rate and the increment.</summary>
internal readonly record struct LogisticMapParameters(int Terms, int Series, double StartRate, double Increment)
{
    public const double DefaultStartRate = 3.64;

    public static LogisticMapParameters For(SavinaSize size, double startRate) => size switch
    {
        SavinaSize.Paper => new(25_000, 10, startRate, 0.0025),
        SavinaSize.Small => new(25_000, 10, startRate, 0.0025),
        _ => new(200, 10, startRate, 0.0025),
    };

    public double Rate(int series) => StartRate + (series * Increment);

    public double StartTerm(int series) => series * Increment;

    public static double NextTerm(double term, double rate) => rate * term * (1 - term);

    /// <summary>The sequential reference: the sum of the S series' T-th terms, in series order.</summary>
    public double ReferenceSum()
    {
        double sum = 0;
        for (int i = 0; i < Series; i++)
        {
            double term = StartTerm(i);
            for (int k = 0; k < Terms; k++)
            {
                term = NextTerm(term, Rate(i));
            }

            sum += term;
        }

        return sum;
    }
}

/// <summary>Actor style with Savina's manual stash: Master, S SeriesWorkers, S RateComputers, one cown each.</summary>
[SavinaWorkload("Logistic Map Series", SavinaVariant.Actor)]
public sealed class LogisticMapActor(SavinaSize size, double startRate) : SavinaRun(size)
{
    private readonly LogisticMapParameters _p = LogisticMapParameters.For(size, startRate);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<MasterState> _master = null!;
    private Cown<ComputerState>[] _computers = null!;
    private Cown<WorkerState>[] _workers = null!;
    private double _expectedSum;

    // Published at completion: by the Master, and by each worker on Stop.
    private double _termsSum = double.NaN;
    private int _results;
    private long[] _computedTerms = [];

    public LogisticMapActor(SavinaSize size)
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
        _master = new Cown<MasterState>(new MasterState());
        _computers = new Cown<ComputerState>[_p.Series];
        _workers = new Cown<WorkerState>[_p.Series];
        for (int i = 0; i < _p.Series; i++)
        {
            _computers[i] = new Cown<ComputerState>(new ComputerState(_p.Rate(i)));
            var worker = new WorkerState(i, _computers[i], _p.StartTerm(i));
            _workers[i] = new Cown<WorkerState>(worker);
            worker.Self = _workers[i];
        }

        _computedTerms = new long[_p.Series];
        _expectedSum = _p.ReferenceSum();
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(_master, static (m, run) => run.OnStart(m), this);
        return _done.Task;
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

    // Master, on Start: T rounds of NextTerm to every worker, then GetTerm to every worker.
    private void OnStart(MasterState master)
    {
        for (int k = 0; k < _p.Terms; k++)
        {
            foreach (Cown<WorkerState> worker in _workers)
            {
                Send(worker, Kind.NextTerm, 0);
            }
        }

        foreach (Cown<WorkerState> worker in _workers)
        {
            Send(worker, Kind.GetTerm, 0);
            master.Requested++;
        }
    }

    private void Send(Cown<WorkerState> worker, Kind kind, double term) =>
        Runtime.When(worker, static (w, m) => m.Run.OnWorkerMessage(w, m.Message), (Run: this, Message: new Message(kind, term)));

    // SeriesWorker: Savina's ManualStash process(), replaying the stash in place as [V] does.
    private void OnWorkerMessage(WorkerState worker, Message message)
    {
        if (!worker.InReplyMode)
        {
            Handle(worker, message);
        }
        else if (message.Kind == Kind.Result)
        {
            worker.InReplyMode = false;
            worker.Term = message.Term;
            worker.ComputedTerms++;
            ReplayStash(worker);
        }
        else
        {
            // Only the kind is kept: a stashed message is a NextTerm or a GetTerm, whose term is unused (a Result is
            // never stashed), as the reference's stash of message kinds.
            worker.Stash.Enqueue(message.Kind);
        }
    }

    // Out of reply mode: the stashed messages, in order, until one enters reply mode again. A pass takes each message
    // once: what is left after it is a GetTerm put back behind others, which waits for the stash to empty.
    private void ReplayStash(WorkerState worker)
    {
        for (int left = worker.Stash.Count; left > 0 && !worker.InReplyMode; left--)
        {
            Handle(worker, new Message(worker.Stash.Dequeue(), 0));
        }
    }

    // A message to a worker that is not waiting for its computer.
    private void Handle(WorkerState worker, Message message)
    {
        switch (message.Kind)
        {
            case Kind.NextTerm:
                Runtime.When(
                    worker.Computer,
                    static (c, m) => m.Run.OnCompute(c, m.Worker, m.Term),
                    (Run: this, Worker: worker.Self, worker.Term));
                worker.InReplyMode = true;
                break;
            case Kind.GetTerm:
                if (worker.Stash.Count == 0)
                {
                    Runtime.When(_master, static (m, msg) => msg.Run.OnResult(m, msg.Term), (Run: this, worker.Term));
                }
                else
                {
                    worker.Stash.Enqueue(message.Kind);
                }

                break;
            case Kind.Stop:
                _computedTerms[worker.Id] = worker.ComputedTerms;
                worker.Stash.Release();
                break;
            default:
                throw new InvalidOperationException($"worker {worker.Id} got an unexpected {message.Kind}");
        }
    }

    // RateComputer, on Compute: reply with the next term.
    private void OnCompute(ComputerState computer, Cown<WorkerState> worker, double term) =>
        Send(worker, Kind.Result, LogisticMapParameters.NextTerm(term, computer.Rate));

    // Master, on Result: sum; after S results publish, stop everyone and complete.
    private void OnResult(MasterState master, double term)
    {
        master.TermsSum += term;
        master.Received++;
        if (master.Received == master.Requested)
        {
            _termsSum = master.TermsSum;
            _results = master.Received;

            foreach (Cown<ComputerState> computer in _computers)
            {
                Runtime.When(computer, static (c, _) => c.Stopped = true, this);
            }

            foreach (Cown<WorkerState> worker in _workers)
            {
                Send(worker, Kind.Stop, 0);
            }

            _done.SetResult();
        }
    }

    private readonly record struct Message(Kind Kind, double Term);

    private sealed class MasterState
    {
        public int Requested { get; set; }

        public int Received { get; set; }

        public double TermsSum { get; set; }
    }

    private sealed class ComputerState(double rate)
    {
        public double Rate { get; } = rate;

        public bool Stopped { get; set; }
    }

    private sealed class WorkerState(int id, Cown<ComputerState> computer, double startTerm)
    {
        public int Id { get; } = id;

        public Cown<ComputerState> Computer { get; } = computer;

        public Cown<WorkerState> Self { get; set; } = null!;

        public double Term { get; set; } = startTerm;

        public bool InReplyMode { get; set; }

        public PooledQueue<Kind> Stash { get; } = new();

        public long ComputedTerms { get; set; }
    }
}

/// <summary>Full BoC ([V]): one two-cown behaviour per term and series; no stash, no reply messages.</summary>
[SavinaWorkload("Logistic Map Series", SavinaVariant.Full)]
public sealed class LogisticMapFull(SavinaSize size, double startRate) : SavinaRun(size)
{
    private readonly LogisticMapParameters _p = LogisticMapParameters.For(size, startRate);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<MasterState> _master = null!;
    private Cown<ComputerState>[] _computers = null!;
    private Cown<WorkerState>[] _workers = null!;
    private double _expectedSum;

    // Published at completion by the Master.
    private double _termsSum = double.NaN;
    private int _results;
    private long _computedTerms;

    public LogisticMapFull(SavinaSize size)
        : this(size, LogisticMapParameters.DefaultStartRate)
    {
    }

    protected override void Build()
    {
        _master = new Cown<MasterState>(new MasterState());
        _computers = new Cown<ComputerState>[_p.Series];
        _workers = new Cown<WorkerState>[_p.Series];
        for (int i = 0; i < _p.Series; i++)
        {
            _computers[i] = new Cown<ComputerState>(new ComputerState(_p.Rate(i)));
            _workers[i] = new Cown<WorkerState>(new WorkerState(_p.StartTerm(i)));
        }

        _expectedSum = _p.ReferenceSum();
    }

    protected override Task ExecuteAsync()
    {
        for (int k = 0; k < _p.Terms; k++)
        {
            for (int j = 0; j < _p.Series; j++)
            {
                Runtime.When(_workers[j], _computers[j], static (w, c) =>
                {
                    w.Term = LogisticMapParameters.NextTerm(w.Term, c.Rate);
                    w.ComputedTerms++;
                });
            }
        }

        foreach (Cown<WorkerState> worker in _workers)
        {
            Runtime.When(_master, worker, static (m, w, run) => run.OnCollect(m, w), this);
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_results == _p.Series, $"the Master collected {_results} terms, expected {_p.Series}");
        long expectedTerms = (long)_p.Series * _p.Terms;
        Check(_computedTerms == expectedTerms, $"{_computedTerms} terms computed, expected {expectedTerms}");
        Check(
            Math.Abs(_termsSum - _expectedSum) <= 1e-12 * Math.Abs(_expectedSum),
            $"termsSum {_termsSum:R}, expected {_expectedSum:R}");
    }

    private void OnCollect(MasterState master, WorkerState worker)
    {
        master.TermsSum += worker.Term;
        master.ComputedTerms += worker.ComputedTerms;
        master.Received++;
        if (master.Received == _p.Series)
        {
            _termsSum = master.TermsSum;
            _results = master.Received;
            _computedTerms = master.ComputedTerms;
            _done.SetResult();
        }
    }

    private sealed class MasterState
    {
        public int Received { get; set; }

        public double TermsSum { get; set; }

        public long ComputedTerms { get; set; }
    }

    private sealed class ComputerState(double rate)
    {
        public double Rate { get; } = rate;
    }

    private sealed class WorkerState(double startTerm)
    {
        public double Term { get; set; } = startTerm;

        public long ComputedTerms { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Logistic Map Series.</summary>
public partial class LogisticMap : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new LogisticMapActor(Size));

    [IterationSetup(Target = nameof(Full))]
    public void SetupFull() => _run = Prepare(new LogisticMapFull(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();

    [Benchmark]
    public Task Full() => _run.RunAsync();
}
