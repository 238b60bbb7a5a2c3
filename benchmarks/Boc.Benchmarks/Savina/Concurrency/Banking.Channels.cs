using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Concurrency;

/// <summary>
/// Channels baseline of <see cref="BankingActor"/>: the same Teller and A Accounts with Savina's manual stash, each a
/// <see cref="ChannelActor{TMessage}"/>; stashed messages are recycled by sending them to self, as in the actor version.
/// </summary>
[SavinaWorkload("Banking", SavinaVariant.Channels)]
public sealed class BankingChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly BankingParameters _p = BankingParameters.For(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Teller _teller = null!;
    private Account[] _accounts = null!;
    private BankingReference _reference = null!;

    // Published at completion: by the Teller, and by each account on Stop.
    private long _completed;
    private double _amountSum;
    private BankingAccountTotals[] _totals = [];

    private enum Kind
    {
        Credit,
        Debit,
        Reply,
        Stop,
    }

    private enum TellerKind
    {
        Start,
        Reply,
    }

    protected override void Build()
    {
        _teller = new Teller(this);
        _accounts = new Account[_p.Accounts];
        for (int i = 0; i < _p.Accounts; i++)
        {
            _accounts[i] = new Account(this, i, _p.InitialBalance);
        }

        _totals = new BankingAccountTotals[_p.Accounts];
        _reference = new BankingReference(_p);
    }

    protected override async Task ExecuteAsync()
    {
        _teller.Send(TellerKind.Start);
        await _done.Task.ConfigureAwait(false);
        await _teller.Completion.ConfigureAwait(false);
        await Task.WhenAll(_accounts.Select(a => a.Completion)).ConfigureAwait(false);
    }

    protected override void Validate()
    {
        string? error = _reference.Compare(_completed, _amountSum, _totals);
        Check(error is null, error ?? "");
    }

    private readonly record struct Message(Kind Kind, double Amount, Account? Other);

    private sealed class Teller(BankingChannels run) : ChannelActor<TellerKind>
    {
        private readonly PseudoRandom _random = new(BankingParameters.TellerSeed);
        private long _completed;
        private double _amountSum;

        protected override void Receive(TellerKind message)
        {
            switch (message)
            {
                case TellerKind.Start:
                    OnStart();
                    break;
                case TellerKind.Reply:
                    OnReply();
                    break;
                default:
                    throw new InvalidOperationException($"the Teller got an unexpected {message}");
            }
        }

        // On Start: generate the N transactions, each a Credit to its source account.
        private void OnStart()
        {
            for (int k = 0; k < run._p.Transactions; k++)
            {
                (int src, int dst, double amount) = run._p.NextTransaction(_random);
                _amountSum += amount;
                run._accounts[src].Send(new Message(Kind.Credit, amount, run._accounts[dst]));
            }
        }

        // On Reply: after N of them, publish, stop every account and complete.
        private void OnReply()
        {
            _completed++;
            if (_completed == run._p.Transactions)
            {
                run._completed = _completed;
                run._amountSum = _amountSum;
                foreach (Account account in run._accounts)
                {
                    account.Send(new Message(Kind.Stop, 0, null));
                    account.Stop();
                }

                Stop();
                run._done.SetResult();
            }
        }
    }

    // Savina's ManualStash process().
    private sealed class Account(BankingChannels run, int id, double balance) : ChannelActor<Message>
    {
        private readonly Queue<Message> _stash = new();
        private BankingAccountTotals _totals;
        private double _balance = balance;
        private bool _inReplyMode;

        protected override void Receive(Message message)
        {
            if (_inReplyMode)
            {
                if (message.Kind == Kind.Reply)
                {
                    _inReplyMode = false;
                    run._teller.Send(TellerKind.Reply);
                    if (_stash.Count > 0)
                    {
                        Send(_stash.Dequeue());
                    }
                }
                else
                {
                    _stash.Enqueue(message);
                }

                return;
            }

            switch (message.Kind)
            {
                case Kind.Debit:
                    _balance += message.Amount;
                    _totals.Delta += message.Amount;
                    _totals.Debits++;
                    message.Other!.Send(new Message(Kind.Reply, 0, null));
                    break;
                case Kind.Credit:
                    _balance -= message.Amount;
                    _totals.Delta -= message.Amount;
                    _totals.Credits++;
                    message.Other!.Send(new Message(Kind.Debit, message.Amount, this));
                    _inReplyMode = true;
                    break;
                case Kind.Stop:
                    run._totals[id] = _totals;
                    break;
                default:
                    throw new InvalidOperationException($"account {id} got an unexpected {message.Kind}");
            }

            // Recycle one stashed message by sending it to self.
            if (!_inReplyMode && _stash.Count > 0)
            {
                Send(_stash.Dequeue());
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for Banking: the Channels baseline.</summary>
public partial class Banking
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new BankingChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
