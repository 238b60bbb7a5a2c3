using Akka.Actor;
using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;
using Boc.Benchmarks.Savina;

namespace Boc.Benchmarks.Experiments;

// Akka.NET baseline of ReasonableBanking: Pony's "Banking 2PC" protocol, the same actors and messages as
// ReasonableBankingChannels (see there and ReasonableBanking.cs).
//
// Decisions:
// - Messages carry the actor to answer (Acquire: the Teller; Debit/Credit: the Manager) instead of relying on Sender:
//   an account replays stashed messages inside a later OnReceive, where Sender names someone else.
// - Each transfer's Manager is a child of its Teller, created with Props.Create<T>(args): the expression overload
//   Props.Create(() => new T(...)) compiles an expression tree per call, which Akka's maintainers advise against for
//   short-lived actors (akkadotnet/akka.net#4698).
// - Akka has no quiescence wait, so the run completes when the Coordinator has heard from both Tellers and every
//   account has published its totals on Report. Every actor stops itself.

/// <summary>Akka.NET baseline of ReasonableBanking: Tellers, Accounts, a Manager per transfer and a Coordinator.</summary>
[SavinaWorkload("ReasonableBanking", SavinaVariant.Akka)]
public sealed class ReasonableBankingAkka(SavinaSize size) : SavinaRun(size)
{
    private readonly ReasonableBankingParameters _p = ReasonableBankingParameters.For(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _accountsReported = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private IActorRef[] _tellers = [];
    private ReasonableBankingReference _reference = null!;
    private int _accountsRunning;

    // Published by the Coordinator, and by each account on Report.
    private long _committed;
    private long _aborted;
    private ReasonableBankingTotals[] _totals = [];

    protected override void Build()
    {
        ActorSystem system = AkkaHost.System;
        ReasonableBankingParameters p = _p;
        Action<int, ReasonableBankingTotals> onReported = OnAccountReported;
        Action<long, long> onDone = OnDone;
        var accounts = new IActorRef[_p.Accounts];
        for (int i = 0; i < _p.Accounts; i++)
        {
            int id = i;
            accounts[i] = system.ActorOf(Props.Create(() => new AccountActor(id, p.InitialBalance, onReported)));
        }

        IActorRef coordinator = system.ActorOf(Props.Create(() => new CoordinatorActor(accounts, onDone)));
        _tellers = new IActorRef[ReasonableBankingParameters.Tellers];
        for (int t = 0; t < _tellers.Length; t++)
        {
            _tellers[t] = system.ActorOf(Props.Create(() => new TellerActor(p, accounts, coordinator)));
        }

        _accountsRunning = _p.Accounts;
        _totals = new ReasonableBankingTotals[_p.Accounts];
        _reference = new ReasonableBankingReference(_p);
    }

    protected override Task ExecuteAsync()
    {
        foreach (IActorRef teller in _tellers)
        {
            teller.Tell(Start.Instance);
        }

        return Task.WhenAll(_done.Task, _accountsReported.Task);
    }

    protected override void Validate()
    {
        string? error = _reference.Compare(_committed, _aborted, _totals);
        Check(error is null, error ?? "");
    }

    private void OnDone(long committed, long aborted)
    {
        _committed = committed;
        _aborted = aborted;
        _done.SetResult();
    }

    private void OnAccountReported(int id, ReasonableBankingTotals totals)
    {
        _totals[id] = totals;
        if (Interlocked.Decrement(ref _accountsRunning) == 0)
        {
            _accountsReported.SetResult();
        }
    }

    private sealed class Start
    {
        public static readonly Start Instance = new();
    }

    private sealed class Yes
    {
        public static readonly Yes Instance = new();
    }

    /// <summary>To the Teller: the Manager's outcome.</summary>
    private sealed class Outcome
    {
        public static readonly Outcome Committed = new();
        public static readonly Outcome Aborted = new();
    }

    private sealed record Acquire(IActorRef Teller);

    private sealed record Debit(double Amount, IActorRef Manager);

    private sealed record Credit(double Amount, IActorRef Manager);

    private sealed class Vote
    {
        public static readonly Vote Yes = new();
        public static readonly Vote No = new();
    }

    /// <summary>To both accounts: the Manager's decision.</summary>
    private sealed class Decision
    {
        public static readonly Decision Commit = new();
        public static readonly Decision Abort = new();
    }

    private sealed class Report
    {
        public static readonly Report Instance = new();
    }

    private sealed record TellerDone(long Committed, long Aborted);

    private sealed class TellerActor(ReasonableBankingParameters p, IActorRef[] accounts, IActorRef coordinator) : UntypedActor
    {
        private readonly PseudoRandom _random = new(ReasonableBankingParameters.TellerSeed);
        private int _issued;
        private long _committed;
        private long _aborted;
        private int _source;
        private int _dest;
        private double _amount;
        private bool _holdsFirst;

        protected override void OnReceive(object message)
        {
            switch (message)
            {
                case Start:
                    Next();
                    break;
                case Yes when !_holdsFirst:
                    _holdsFirst = true;
                    accounts[Math.Max(_source, _dest)].Tell(new Acquire(Self));
                    break;
                case Yes:
                    _holdsFirst = false;
                    IActorRef manager = Context.ActorOf(Props.Create<ManagerActor>(Self, accounts[_source], accounts[_dest]));
                    accounts[_source].Tell(new Debit(_amount, manager));
                    accounts[_dest].Tell(new Credit(_amount, manager));
                    break;
                case Outcome outcome:
                    if (outcome == Outcome.Committed)
                    {
                        _committed++;
                    }
                    else
                    {
                        _aborted++;
                    }

                    Next();
                    break;
                default:
                    Unhandled(message);
                    break;
            }
        }

        // Starts the next transfer by acquiring the lower-indexed account, or reports to the Coordinator after N.
        private void Next()
        {
            if (_issued == p.TransactionsPerTeller)
            {
                coordinator.Tell(new TellerDone(_committed, _aborted));
                Context.Stop(Self);
                return;
            }

            _issued++;
            (_source, _dest, _amount) = p.NextTransfer(_random);
            accounts[Math.Min(_source, _dest)].Tell(new Acquire(Self));
        }
    }

    /// <summary>The 2PC coordinator of one transfer.</summary>
    private sealed class ManagerActor(IActorRef teller, IActorRef source, IActorRef dest) : UntypedActor
    {
        private int _votes;
        private bool _allYes = true;

        protected override void OnReceive(object message)
        {
            if (message is not Vote vote)
            {
                Unhandled(message);
                return;
            }

            _votes++;
            _allYes &= vote == Vote.Yes;
            if (_votes == 2)
            {
                Decision decision = _allYes ? Decision.Commit : Decision.Abort;
                source.Tell(decision);
                dest.Tell(decision);
                teller.Tell(_allYes ? Outcome.Committed : Outcome.Aborted);
                Context.Stop(Self);
            }
        }
    }

    private sealed class AccountActor(int id, double balance, Action<int, ReasonableBankingTotals> onReported) : UntypedActor
    {
        private readonly Queue<IActorRef> _waiting = new();
        private readonly Queue<object> _stash = new();
        private ReasonableBankingTotals _totals;
        private double _balance = balance;
        private bool _locked;
        private bool _inTransaction;

        // The tentative change of the transaction in progress: negative when paying; undone on Abort.
        private double _pending;

        protected override void OnReceive(object message)
        {
            Handle(message);

            // Leaving a transaction replays the stash, until a stashed Debit or Credit starts the next one.
            while (!_inTransaction && _stash.Count > 0)
            {
                Handle(_stash.Dequeue());
            }
        }

        private void Handle(object message)
        {
            if (_inTransaction && message is not Decision)
            {
                _stash.Enqueue(message);
                return;
            }

            switch (message)
            {
                case Acquire acquire when _locked:
                    _waiting.Enqueue(acquire.Teller);
                    break;
                case Acquire acquire:
                    _locked = true;
                    acquire.Teller.Tell(Yes.Instance);
                    break;
                case Debit debit:
                    bool covered = _balance >= debit.Amount;
                    _pending = covered ? -debit.Amount : 0;
                    _balance += _pending;
                    VoteAndRelease(debit.Manager, covered);
                    break;
                case Credit credit:
                    _pending = credit.Amount;
                    _balance += _pending;
                    VoteAndRelease(credit.Manager, true);
                    break;
                case Decision decision when _inTransaction:
                    if (decision == Decision.Abort)
                    {
                        _balance -= _pending;
                    }
                    else if (_pending < 0)
                    {
                        _totals.RecordPaid(-_pending);
                    }
                    else
                    {
                        _totals.RecordReceived(_pending);
                    }

                    _inTransaction = false;
                    break;
                case Report:
                    onReported(id, _totals);
                    Context.Stop(Self);
                    break;
                default:
                    throw new InvalidOperationException($"account {id} got an unexpected {message}");
            }
        }

        // The acquire lock goes to the next waiting Teller now; its Debit or Credit will wait in the stash.
        private void VoteAndRelease(IActorRef manager, bool yes)
        {
            manager.Tell(yes ? Vote.Yes : Vote.No);
            if (_waiting.Count > 0)
            {
                _waiting.Dequeue().Tell(Yes.Instance);
            }
            else
            {
                _locked = false;
            }

            _inTransaction = true;
        }
    }

    private sealed class CoordinatorActor(IActorRef[] accounts, Action<long, long> onDone) : UntypedActor
    {
        private int _finished;
        private long _committed;
        private long _aborted;

        // When both Tellers have finished: publish, have every account publish its totals, and stop.
        protected override void OnReceive(object message)
        {
            if (message is not TellerDone done)
            {
                Unhandled(message);
                return;
            }

            _committed += done.Committed;
            _aborted += done.Aborted;
            if (++_finished == ReasonableBankingParameters.Tellers)
            {
                onDone(_committed, _aborted);
                foreach (IActorRef account in accounts)
                {
                    account.Tell(Report.Instance);
                }

                Context.Stop(Self);
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for ReasonableBanking: the Akka.NET baseline.</summary>
public partial class ReasonableBanking
{
    private SavinaRun _akkaRun = null!;

    [IterationSetup(Target = nameof(Akka))]
    public void SetupAkka() => _akkaRun = Prepare(new ReasonableBankingAkka(Size));

    [Benchmark]
    public Task Akka() => _akkaRun.RunAsync();
}
