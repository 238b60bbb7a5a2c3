using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Concurrency;

// Savina 4.16 Banking (SOURCES.md §4.16, the ManualStash variant): a Teller with PseudoRandom(123456) generates N
// transactions src -> dst (src < dst) over A accounts in one behaviour. Savina's names are inverted: Credit removes
// money from src, which sends Debit to dst and stashes everything until dst's Reply; then it replies to the Teller.
//
// Decisions:
// - Validation does not use the total balance: the initial balance (about 3.6e300) absorbs every amount, so it would
//   prove nothing. Each account keeps a delta and Credit/Debit counts; Build replays the transaction stream (not
//   timed) and Validate compares each account's counts exactly and its delta within 1e-9 relative (the order of an
//   account's debits varies), checks that the deltas sum to 0, and compares the Teller's sum of amounts exactly (it
//   is generated sequentially). At Paper size the amounts sum to 9384.081749525749 (spec §6, confirmed by the replay).
// - Savina's Stop to every account is kept and, in the full variant too, a one-cown Stop per account after the last
//   transaction publishes the account's counters for Validate (the same 1000 behaviours in both variants).
// - Full BoC follows [V] without its bugs: one when(src, dst) per transaction, then when(teller){ completed++ }.
//   dst is accounts[src + d] (not accounts[d]), and d = 0 becomes 1, so src < dst always; Build checks it for the
//   whole stream, so src == dst can never reach a two-cown behaviour.

/// <summary>Banking parameters and Savina's transaction generator, shared by every variant and the replay.</summary>
internal readonly record struct BankingParameters(int Accounts, int Transactions)
{
    public const long TellerSeed = 123456;

    public static BankingParameters For(SavinaSize size) => size switch
    {
        SavinaSize.Paper => new(1_000, 50_000),
        SavinaSize.Small => new(1_000, 50_000),
        _ => new(100, 1_000),
    };

    public double InitialBalance => double.MaxValue / ((double)Accounts * Transactions) / 1000 * 1000;

    public (int Src, int Dst, double Amount) NextTransaction(PseudoRandom random)
    {
        int src = random.NextInt(Accounts / 10 * 8);
        int d = random.NextInt(Accounts - src);
        if (d == 0)
        {
            d = 1;
        }

        return (src, src + d, Math.Abs(random.NextDouble()) * 1000);
    }
}

/// <summary>What the replay expects of one account, and what the account published on Stop.</summary>
internal struct BankingAccountTotals
{
    public long Credits;
    public long Debits;
    public double Delta;
    public double Volume;
}

/// <summary>An account of the variants whose transfer touches both accounts at once (full BoC and locks).</summary>
internal sealed class BankingAccount(int id, double balance)
{
    public BankingAccountTotals Totals;

    public int Id { get; } = id;

    public double Balance { get; set; } = balance;

    /// <summary>Moves <paramref name="amount"/> from <paramref name="src"/> to <paramref name="dst"/>; the caller holds both.</summary>
    public static void Transfer(BankingAccount src, BankingAccount dst, double amount)
    {
        src.Balance -= amount;
        src.Totals.Delta -= amount;
        src.Totals.Credits++;
        dst.Balance += amount;
        dst.Totals.Delta += amount;
        dst.Totals.Debits++;
    }
}

/// <summary>The sequential replay of the Teller's stream and the checks every variant shares.</summary>
internal sealed class BankingReference
{
    private readonly BankingParameters _p;
    private readonly BankingAccountTotals[] _expected;

    public BankingReference(BankingParameters p)
    {
        _p = p;
        _expected = new BankingAccountTotals[p.Accounts];
        var random = new PseudoRandom(BankingParameters.TellerSeed);
        for (int k = 0; k < p.Transactions; k++)
        {
            (int src, int dst, double amount) = p.NextTransaction(random);
            if (src >= dst || dst >= p.Accounts)
            {
                throw new SavinaValidationException($"transaction {k} is {src} -> {dst}: the generator must give src < dst < A");
            }

            AmountSum += amount;
            _expected[src].Credits++;
            _expected[src].Delta -= amount;
            _expected[src].Volume += amount;
            _expected[dst].Debits++;
            _expected[dst].Delta += amount;
            _expected[dst].Volume += amount;
        }
    }

    public double AmountSum { get; }

    /// <summary>Returns null if the run matches the replay, else what is wrong.</summary>
    public string? Compare(long completed, double tellerAmountSum, BankingAccountTotals[] actual)
    {
        if (completed != _p.Transactions)
        {
            return $"the Teller counted {completed} completed transactions, expected {_p.Transactions}";
        }

        if (tellerAmountSum != AmountSum)
        {
            return $"the Teller's amounts sum to {tellerAmountSum:R}, the replay to {AmountSum:R}";
        }

        double deltaSum = 0;
        for (int i = 0; i < _p.Accounts; i++)
        {
            BankingAccountTotals e = _expected[i];
            BankingAccountTotals a = actual[i];
            if (a.Credits != e.Credits || a.Debits != e.Debits)
            {
                return $"account {i} saw {a.Credits} credits / {a.Debits} debits, expected {e.Credits} / {e.Debits}";
            }

            if (Math.Abs(a.Delta - e.Delta) > 1e-9 * (e.Volume + 1))
            {
                return $"account {i} delta {a.Delta:R}, expected {e.Delta:R}";
            }

            deltaSum += a.Delta;
        }

        return Math.Abs(deltaSum) > 1e-9 * (AmountSum + 1) ? $"account deltas sum to {deltaSum:R}, expected 0" : null;
    }
}

/// <summary>Actor style with Savina's manual stash: a Teller and A Accounts, one cown each.</summary>
[SavinaWorkload("Banking", SavinaVariant.Actor)]
public sealed class BankingActor(SavinaSize size) : SavinaRun(size)
{
    private readonly BankingParameters _p = BankingParameters.For(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<TellerState> _teller = null!;
    private Cown<AccountState>[] _accounts = null!;
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

    protected override void Build()
    {
        _teller = new Cown<TellerState>(new TellerState());
        _accounts = new Cown<AccountState>[_p.Accounts];
        for (int i = 0; i < _p.Accounts; i++)
        {
            var account = new AccountState(i, _p.InitialBalance);
            _accounts[i] = new Cown<AccountState>(account);
            account.Self = _accounts[i];
        }

        _totals = new BankingAccountTotals[_p.Accounts];
        _reference = new BankingReference(_p);
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(_teller, static (t, run) => run.OnStart(t), this);
        return _done.Task;
    }

    protected override void Validate()
    {
        string? error = _reference.Compare(_completed, _amountSum, _totals);
        Check(error is null, error ?? "");
    }

    // Teller, on Start: generate the N transactions, each a Credit to its source account.
    private void OnStart(TellerState teller)
    {
        for (int k = 0; k < _p.Transactions; k++)
        {
            (int src, int dst, double amount) = _p.NextTransaction(teller.Random);
            teller.AmountSum += amount;
            Send(_accounts[src], new Message(Kind.Credit, amount, _accounts[dst]));
        }
    }

    private void Send(Cown<AccountState> account, Message message) =>
        Runtime.When(account, static (a, m) => m.Run.OnAccountMessage(a, m.Message), (Run: this, Message: message));

    // Account: Savina's ManualStash process().
    private void OnAccountMessage(AccountState account, Message message)
    {
        if (account.InReplyMode)
        {
            if (message.Kind == Kind.Reply)
            {
                account.InReplyMode = false;
                Runtime.When(_teller, static (t, run) => run.OnReply(t), this);
                if (account.Stash.Count > 0)
                {
                    Send(account.Self, account.Stash.Dequeue());
                }
            }
            else
            {
                account.Stash.Enqueue(message);
            }

            return;
        }

        switch (message.Kind)
        {
            case Kind.Debit:
                account.Balance += message.Amount;
                account.Totals.Delta += message.Amount;
                account.Totals.Debits++;
                Send(message.Other!, new Message(Kind.Reply, 0, null));
                break;
            case Kind.Credit:
                account.Balance -= message.Amount;
                account.Totals.Delta -= message.Amount;
                account.Totals.Credits++;
                Send(message.Other!, new Message(Kind.Debit, message.Amount, account.Self));
                account.InReplyMode = true;
                break;
            case Kind.Stop:
                _totals[account.Id] = account.Totals;
                break;
            default:
                throw new InvalidOperationException($"account {account.Id} got an unexpected {message.Kind}");
        }

        // Recycle one stashed message by sending it to self.
        if (!account.InReplyMode && account.Stash.Count > 0)
        {
            Send(account.Self, account.Stash.Dequeue());
        }
    }

    // Teller, on Reply: after N of them, publish, stop every account and complete.
    private void OnReply(TellerState teller)
    {
        teller.Completed++;
        if (teller.Completed == _p.Transactions)
        {
            _completed = teller.Completed;
            _amountSum = teller.AmountSum;
            foreach (Cown<AccountState> account in _accounts)
            {
                Send(account, new Message(Kind.Stop, 0, null));
            }

            _done.SetResult();
        }
    }

    private readonly record struct Message(Kind Kind, double Amount, Cown<AccountState>? Other);

    private sealed class TellerState
    {
        public PseudoRandom Random { get; } = new(BankingParameters.TellerSeed);

        public long Completed { get; set; }

        public double AmountSum { get; set; }
    }

    private sealed class AccountState(int id, double balance)
    {
        public BankingAccountTotals Totals;

        public int Id { get; } = id;

        public Cown<AccountState> Self { get; set; } = null!;

        public double Balance { get; set; } = balance;

        public bool InReplyMode { get; set; }

        public Queue<Message> Stash { get; } = new();
    }
}

/// <summary>Full BoC ([V], fixed): one two-cown behaviour per transaction; no stash, no 2-phase protocol.</summary>
/// <remarks>
/// Not sealed: BusyBanking (SOURCES.md §5.2) is this run with a busy loop in every transfer, so it derives from
/// it rather than copying it.
/// </remarks>
[SavinaWorkload("Banking", SavinaVariant.Full)]
public class BankingFull : SavinaRun
{
    private readonly BankingParameters _p;
    private readonly int _busyMicroseconds;
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<TellerState> _teller = null!;
    private Cown<BankingAccount>[] _accounts = null!;
    private BankingReference _reference = null!;

    // Published at completion: by the Teller, and by each account on Stop.
    private long _completed;
    private double _amountSum;
    private BankingAccountTotals[] _totals = [];

    public BankingFull(SavinaSize size)
        : this(size, 0)
    {
    }

    /// <summary>Creates the run with <paramref name="busyMicroseconds"/> of wall-clock spinning in every transfer.</summary>
    private protected BankingFull(SavinaSize size, int busyMicroseconds)
        : base(size)
    {
        _p = BankingParameters.For(size);
        _busyMicroseconds = busyMicroseconds;
    }

    protected override void Build()
    {
        _teller = new Cown<TellerState>(new TellerState());
        _accounts = new Cown<BankingAccount>[_p.Accounts];
        for (int i = 0; i < _p.Accounts; i++)
        {
            _accounts[i] = new Cown<BankingAccount>(new BankingAccount(i, _p.InitialBalance));
        }

        _totals = new BankingAccountTotals[_p.Accounts];
        _reference = new BankingReference(_p);
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(_teller, static (t, run) => run.OnStart(t), this);
        return _done.Task;
    }

    protected override void Validate()
    {
        string? error = _reference.Compare(_completed, _amountSum, _totals);
        Check(error is null, error ?? "");
    }

    private void OnStart(TellerState teller)
    {
        for (int k = 0; k < _p.Transactions; k++)
        {
            (int src, int dst, double amount) = _p.NextTransaction(teller.Random);
            teller.AmountSum += amount;
            Runtime.When(
                _accounts[src],
                _accounts[dst],
                static (s, d, m) => m.Run.Transfer(s, d, m.Amount),
                (Run: this, Amount: amount));
        }
    }

    private void Transfer(BankingAccount src, BankingAccount dst, double amount)
    {
        BankingAccount.Transfer(src, dst, amount);
        if (_busyMicroseconds > 0)
        {
            // BusyBanking: the work a real transfer would do while it holds both accounts.
            SavinaHelpers.BusyLoop(_busyMicroseconds);
        }

        Runtime.When(_teller, static (t, run) => run.OnCompleted(t), this);
    }

    private void OnCompleted(TellerState teller)
    {
        teller.Completed++;
        if (teller.Completed == _p.Transactions)
        {
            _completed = teller.Completed;
            _amountSum = teller.AmountSum;
            foreach (Cown<BankingAccount> account in _accounts)
            {
                Runtime.When(account, static (a, run) => run._totals[a.Id] = a.Totals, this);
            }

            _done.SetResult();
        }
    }

    private sealed class TellerState
    {
        public PseudoRandom Random { get; } = new(BankingParameters.TellerSeed);

        public long Completed { get; set; }

        public double AmountSum { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Banking.</summary>
public partial class Banking : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new BankingActor(Size));

    [IterationSetup(Target = nameof(Full))]
    public void SetupFull() => _run = Prepare(new BankingFull(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();

    [Benchmark]
    public Task Full() => _run.RunAsync();
}
