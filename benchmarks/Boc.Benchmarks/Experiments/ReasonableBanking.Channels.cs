using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;
using Boc.Benchmarks.Savina;

namespace Boc.Benchmarks.Experiments;

/// <summary>
/// ReasonableBanking on <see cref="ChannelActor{TMessage}"/>: Pony's "Banking 2PC" protocol. A Teller runs one
/// transfer at a time: it acquires both accounts in index order (acquire/yes; an account queues waiting Tellers),
/// creates a 2PC Manager actor for the transfer and sends Debit to the source and Credit to the dest. Each account
/// votes, hands its acquire lock on, and stashes everything until the Manager's Commit or Abort. A Coordinator
/// completes the run when both Tellers have finished.
/// </summary>
[SavinaWorkload("ReasonableBanking", SavinaVariant.Channels)]
public sealed class ReasonableBankingChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly ReasonableBankingParameters _p = ReasonableBankingParameters.For(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Teller[] _tellers = null!;
    private Coordinator _coordinator = null!;
    private Account[] _accounts = null!;
    private ReasonableBankingReference _reference = null!;

    // Published by the Coordinator, and by each account on Report.
    private long _committed;
    private long _aborted;
    private ReasonableBankingTotals[] _totals = [];

    private enum AccountKind
    {
        Acquire,
        Debit,
        Credit,
        Commit,
        Abort,
        Report,
    }

    private enum TellerKind
    {
        Start,
        Yes,
        Committed,
        Aborted,
    }

    protected override void Build()
    {
        _accounts = new Account[_p.Accounts];
        for (int i = 0; i < _p.Accounts; i++)
        {
            _accounts[i] = new Account(this, i, _p.InitialBalance);
        }

        _coordinator = new Coordinator(this);
        _tellers = new Teller[ReasonableBankingParameters.Tellers];
        for (int t = 0; t < _tellers.Length; t++)
        {
            _tellers[t] = new Teller(this);
        }

        _totals = new ReasonableBankingTotals[_p.Accounts];
        _reference = new ReasonableBankingReference(_p);
    }

    protected override async Task ExecuteAsync()
    {
        foreach (Teller teller in _tellers)
        {
            teller.Send(TellerKind.Start);
        }

        // Managers are not awaited: each stops itself after its decision, which the Teller needs before it goes on.
        await _done.Task.ConfigureAwait(false);
        await Task.WhenAll(_tellers.Select(t => t.Completion).Append(_coordinator.Completion)).ConfigureAwait(false);
        await Task.WhenAll(_accounts.Select(a => a.Completion)).ConfigureAwait(false);
    }

    protected override void Validate()
    {
        string? error = _reference.Compare(_committed, _aborted, _totals);
        Check(error is null, error ?? "");
    }

    private readonly record struct AccountMessage(AccountKind Kind, double Amount, Teller? Teller, Manager? Manager);

    private readonly record struct TellerDone(long Committed, long Aborted);

    private sealed class Teller(ReasonableBankingChannels run) : ChannelActor<TellerKind>
    {
        private readonly PseudoRandom _random = new(ReasonableBankingParameters.TellerSeed);
        private int _issued;
        private long _committed;
        private long _aborted;
        private int _source;
        private int _dest;
        private double _amount;
        private bool _holdsFirst;

        protected override void Receive(TellerKind message)
        {
            switch (message)
            {
                case TellerKind.Start:
                    Next();
                    break;
                case TellerKind.Yes when !_holdsFirst:
                    _holdsFirst = true;
                    run._accounts[Math.Max(_source, _dest)].Send(new AccountMessage(AccountKind.Acquire, 0, this, null));
                    break;
                case TellerKind.Yes:
                    _holdsFirst = false;
                    var manager = new Manager(this, run._accounts[_source], run._accounts[_dest]);
                    run._accounts[_source].Send(new AccountMessage(AccountKind.Debit, _amount, null, manager));
                    run._accounts[_dest].Send(new AccountMessage(AccountKind.Credit, _amount, null, manager));
                    break;
                case TellerKind.Committed:
                    _committed++;
                    Next();
                    break;
                case TellerKind.Aborted:
                    _aborted++;
                    Next();
                    break;
                default:
                    throw new InvalidOperationException($"a Teller got an unexpected {message}");
            }
        }

        // Starts the next transfer by acquiring the lower-indexed account, or reports to the Coordinator after N.
        private void Next()
        {
            if (_issued == run._p.TransactionsPerTeller)
            {
                run._coordinator.Send(new TellerDone(_committed, _aborted));
                Stop();
                return;
            }

            _issued++;
            (_source, _dest, _amount) = run._p.NextTransfer(_random);
            run._accounts[Math.Min(_source, _dest)].Send(new AccountMessage(AccountKind.Acquire, 0, this, null));
        }
    }

    /// <summary>The 2PC coordinator of one transfer; its messages are the two accounts' votes.</summary>
    private sealed class Manager(Teller teller, Account source, Account dest) : ChannelActor<bool>
    {
        private int _votes;
        private bool _allYes = true;

        protected override void Receive(bool yes)
        {
            _votes++;
            _allYes &= yes;
            if (_votes == 2)
            {
                var decision = new AccountMessage(_allYes ? AccountKind.Commit : AccountKind.Abort, 0, null, null);
                source.Send(decision);
                dest.Send(decision);
                teller.Send(_allYes ? TellerKind.Committed : TellerKind.Aborted);
                Stop();
            }
        }
    }

    private sealed class Account(ReasonableBankingChannels run, int id, double balance) : ChannelActor<AccountMessage>
    {
        private readonly Queue<Teller> _waiting = new();
        private readonly Queue<AccountMessage> _stash = new();
        private ReasonableBankingTotals _totals;
        private double _balance = balance;
        private bool _locked;
        private bool _inTransaction;

        // The tentative change of the transaction in progress: negative when paying; undone on Abort.
        private double _pending;

        protected override void Receive(AccountMessage message)
        {
            Handle(message);

            // Leaving a transaction replays the stash, until a stashed Debit or Credit starts the next one.
            while (!_inTransaction && _stash.Count > 0)
            {
                Handle(_stash.Dequeue());
            }
        }

        private void Handle(AccountMessage message)
        {
            if (_inTransaction && message.Kind is not (AccountKind.Commit or AccountKind.Abort))
            {
                _stash.Enqueue(message);
                return;
            }

            switch (message.Kind)
            {
                case AccountKind.Acquire when _locked:
                    _waiting.Enqueue(message.Teller!);
                    break;
                case AccountKind.Acquire:
                    _locked = true;
                    message.Teller!.Send(TellerKind.Yes);
                    break;
                case AccountKind.Debit:
                    bool covered = _balance >= message.Amount;
                    _pending = covered ? -message.Amount : 0;
                    _balance += _pending;
                    VoteAndRelease(message.Manager!, covered);
                    break;
                case AccountKind.Credit:
                    _pending = message.Amount;
                    _balance += _pending;
                    VoteAndRelease(message.Manager!, true);
                    break;
                case AccountKind.Commit when _inTransaction:
                    if (_pending < 0)
                    {
                        _totals.RecordPaid(-_pending);
                    }
                    else
                    {
                        _totals.RecordReceived(_pending);
                    }

                    _inTransaction = false;
                    break;
                case AccountKind.Abort when _inTransaction:
                    _balance -= _pending;
                    _inTransaction = false;
                    break;
                case AccountKind.Report:
                    run._totals[id] = _totals;
                    break;
                default:
                    throw new InvalidOperationException($"account {id} got an unexpected {message.Kind}");
            }
        }

        // The acquire lock goes to the next waiting Teller now; its Debit or Credit will wait in the stash.
        private void VoteAndRelease(Manager manager, bool yes)
        {
            manager.Send(yes);
            if (_waiting.Count > 0)
            {
                _waiting.Dequeue().Send(TellerKind.Yes);
            }
            else
            {
                _locked = false;
            }

            _inTransaction = true;
        }
    }

    private sealed class Coordinator(ReasonableBankingChannels run) : ChannelActor<TellerDone>
    {
        private int _finished;
        private long _committed;
        private long _aborted;

        // When both Tellers have finished: publish, have every account publish its totals, and stop everything.
        protected override void Receive(TellerDone message)
        {
            _committed += message.Committed;
            _aborted += message.Aborted;
            if (++_finished == ReasonableBankingParameters.Tellers)
            {
                run._committed = _committed;
                run._aborted = _aborted;
                foreach (Account account in run._accounts)
                {
                    account.Send(new AccountMessage(AccountKind.Report, 0, null, null));
                    account.Stop();
                }

                Stop();
                run._done.SetResult();
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for ReasonableBanking: the Channels baseline.</summary>
public partial class ReasonableBanking
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new ReasonableBankingChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
