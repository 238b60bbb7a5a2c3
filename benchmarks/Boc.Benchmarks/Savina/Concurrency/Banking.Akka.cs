using Akka.Actor;
using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Concurrency;

// Akka.NET baseline of Banking: the Teller, Accounts and messages of BankingActor, with Savina's manual stash (the
// ManualStash variant the Boc run ports): an account that sent a Debit stashes everything until the Reply, then
// recycles one stashed message at a time by sending it to itself.
//
// Decisions:
// - Credit and Debit carry the account to talk to (Credit: the destination; Debit: the source to reply to), as Savina's
//   messages do: a recycled message is re-sent by the account itself, so Akka's Sender would no longer name it.
// - The Teller gets the account refs in its Start message (Start is sent by the main thread, as in the Boc run).
// - Akka has no quiescence wait, so the run completes when both the Teller has counted N Replies (the Boc completion
//   event) and every account has handled its Stop and published its counters (which the Boc run's quiescence wait
//   covers): Validate reads the same counters after the same work. Each account stops itself on Stop; the Teller stops
//   itself after sending the Stops.

/// <summary>Akka.NET baseline with Savina's manual stash: a Teller and A Accounts.</summary>
[SavinaWorkload("Banking", SavinaVariant.Akka)]
public sealed class BankingAkka(SavinaSize size) : SavinaRun(size)
{
    private readonly BankingParameters _p = BankingParameters.For(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly TaskCompletionSource _accountsStopped = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private IActorRef _teller = ActorRefs.Nobody;
    private IActorRef[] _accounts = null!;
    private BankingReference _reference = null!;
    private int _accountsRunning;

    // Published at completion: by the Teller, and by each account on Stop.
    private long _completed;
    private double _amountSum;
    private BankingAccountTotals[] _totals = [];

    protected override void Build()
    {
        ActorSystem system = AkkaHost.System;
        BankingParameters p = _p;
        Action<long, double> onTellerDone = OnTellerDone;
        Action<int, BankingAccountTotals> onAccountStopped = OnAccountStopped;
        _teller = system.ActorOf(Props.Create(() => new TellerActor(p, onTellerDone)));
        IActorRef teller = _teller;
        _accounts = new IActorRef[_p.Accounts];
        for (int i = 0; i < _p.Accounts; i++)
        {
            int id = i;
            _accounts[i] = system.ActorOf(Props.Create(() => new AccountActor(id, p.InitialBalance, teller, onAccountStopped)));
        }

        _accountsRunning = _p.Accounts;
        _totals = new BankingAccountTotals[_p.Accounts];
        _reference = new BankingReference(_p);
    }

    protected override Task ExecuteAsync()
    {
        _teller.Tell(new Start(_accounts));
        return Task.WhenAll(_done.Task, _accountsStopped.Task);
    }

    protected override void Validate()
    {
        string? error = _reference.Compare(_completed, _amountSum, _totals);
        Check(error is null, error ?? "");
    }

    private void OnTellerDone(long completed, double amountSum)
    {
        _completed = completed;
        _amountSum = amountSum;
        _done.SetResult();
    }

    // Runs on each account's Stop; the last one to publish completes the second half of the run.
    private void OnAccountStopped(int id, BankingAccountTotals totals)
    {
        _totals[id] = totals;
        if (Interlocked.Decrement(ref _accountsRunning) == 0)
        {
            _accountsStopped.SetResult();
        }
    }

    /// <summary>Starts the Teller; the account array is never written after Build.</summary>
    private sealed record Start(IActorRef[] Accounts);

    /// <summary>To the source account: take <see cref="Amount"/> out and send it to <see cref="Destination"/>.</summary>
    private sealed record Credit(double Amount, IActorRef Destination);

    /// <summary>To the destination account: put <see cref="Amount"/> in and reply to <see cref="Source"/>.</summary>
    private sealed record Debit(double Amount, IActorRef Source);

    private sealed class Reply
    {
        public static readonly Reply Instance = new();
    }

    private sealed class Stop
    {
        public static readonly Stop Instance = new();
    }

    private sealed class TellerActor : ReceiveActor
    {
        private readonly PseudoRandom _random = new(BankingParameters.TellerSeed);
        private IActorRef[] _accounts = [];
        private long _completed;
        private double _amountSum;

        public TellerActor(BankingParameters p, Action<long, double> onDone)
        {
            // On Start: generate the N transactions, each a Credit to its source account.
            Receive<Start>(m =>
            {
                _accounts = m.Accounts;
                for (int k = 0; k < p.Transactions; k++)
                {
                    (int src, int dst, double amount) = p.NextTransaction(_random);
                    _amountSum += amount;
                    _accounts[src].Tell(new Credit(amount, _accounts[dst]));
                }
            });

            // On Reply: after N of them, publish, stop every account, complete and stop.
            Receive<Reply>(_ =>
            {
                _completed++;
                if (_completed == p.Transactions)
                {
                    foreach (IActorRef account in _accounts)
                    {
                        account.Tell(Stop.Instance);
                    }

                    onDone(_completed, _amountSum);
                    Context.Stop(Self);
                }
            });
        }
    }

    /// <summary>An account: Savina's ManualStash process().</summary>
    private sealed class AccountActor(int id, double balance, IActorRef teller, Action<int, BankingAccountTotals> onStopped) : UntypedActor
    {
        private readonly Queue<object> _stash = new();
        private BankingAccountTotals _totals;
        private double _balance = balance;
        private bool _inReplyMode;

        protected override void OnReceive(object message)
        {
            if (_inReplyMode)
            {
                if (message is Reply)
                {
                    _inReplyMode = false;
                    teller.Tell(Reply.Instance);
                    if (_stash.Count > 0)
                    {
                        Self.Tell(_stash.Dequeue());
                    }
                }
                else
                {
                    _stash.Enqueue(message);
                }

                return;
            }

            switch (message)
            {
                case Debit debit:
                    _balance += debit.Amount;
                    _totals.Delta += debit.Amount;
                    _totals.Debits++;
                    debit.Source.Tell(Reply.Instance);
                    break;
                case Credit credit:
                    _balance -= credit.Amount;
                    _totals.Delta -= credit.Amount;
                    _totals.Credits++;
                    credit.Destination.Tell(new Debit(credit.Amount, Self));
                    _inReplyMode = true;
                    break;
                case Stop:
                    onStopped(id, _totals);
                    Context.Stop(Self);
                    break;
                default:
                    Unhandled(message);
                    return;
            }

            // Recycle one stashed message by sending it to self.
            if (!_inReplyMode && _stash.Count > 0)
            {
                Self.Tell(_stash.Dequeue());
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for the Akka.NET baseline of Banking.</summary>
public partial class Banking
{
    private SavinaRun _akkaRun = null!;

    [IterationSetup(Target = nameof(Akka))]
    public void SetupAkka() => _akkaRun = Prepare(new BankingAkka(Size));

    [Benchmark]
    public Task Akka() => _akkaRun.RunAsync();
}
