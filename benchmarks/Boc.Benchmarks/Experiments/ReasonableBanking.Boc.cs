using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Savina;

namespace Boc.Benchmarks.Experiments;

/// <summary>
/// ReasonableBanking in BoC: each Teller is a behaviour that spawns one <c>When(source, dest)</c> per transfer. The
/// two-cown behaviour makes the transfer atomic, and BoC's spawn order makes a Teller's transfers on a shared account
/// take effect in issue order: no locks, no 2PC, no stash.
/// </summary>
[SavinaWorkload("ReasonableBanking", SavinaVariant.Full)]
public sealed class ReasonableBankingBoc(SavinaSize size) : SavinaRun(size)
{
    private readonly ReasonableBankingParameters _p = ReasonableBankingParameters.For(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<PseudoRandom>[] _tellers = null!;
    private Cown<Coordinator> _coordinator = null!;
    private Cown<Account>[] _accounts = null!;
    private ReasonableBankingReference _reference = null!;

    // Published by each account's last behaviour.
    private ReasonableBankingTotals[] _totals = [];
    private long[] _aborted = [];

    protected override void Build()
    {
        _tellers = new Cown<PseudoRandom>[ReasonableBankingParameters.Tellers];
        for (int t = 0; t < _tellers.Length; t++)
        {
            _tellers[t] = new Cown<PseudoRandom>(new PseudoRandom(ReasonableBankingParameters.TellerSeed));
        }

        _coordinator = new Cown<Coordinator>(new Coordinator());
        _accounts = new Cown<Account>[_p.Accounts];
        for (int i = 0; i < _p.Accounts; i++)
        {
            _accounts[i] = new Cown<Account>(new Account(i, _p.InitialBalance));
        }

        _totals = new ReasonableBankingTotals[_p.Accounts];
        _aborted = new long[_p.Accounts];
        _reference = new ReasonableBankingReference(_p);
    }

    // The transfers finish on the runtime's quiescence, which RunAsync awaits after this.
    protected override Task ExecuteAsync()
    {
        foreach (Cown<PseudoRandom> teller in _tellers)
        {
            Runtime.When(teller, static (random, run) => run.Teller(random), this);
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        long committed = 0;
        foreach (ReasonableBankingTotals totals in _totals)
        {
            committed += totals.Paid;
        }

        string? error = _reference.Compare(committed, _aborted.Sum(), _totals);
        Check(error is null, error ?? "");
    }

    private void Teller(PseudoRandom random)
    {
        for (int k = 0; k < _p.TransactionsPerTeller; k++)
        {
            (int source, int dest, double amount) = _p.NextTransfer(random);
            Runtime.When(_accounts[source], _accounts[dest], static (src, dst, amount) => Transfer(src, dst, amount), amount);
        }

        Runtime.When(_coordinator, static (c, run) => run.TellerSpawned(c), this);
    }

    private static void Transfer(Account src, Account dst, double amount)
    {
        if (src.Balance >= amount)
        {
            src.Balance -= amount;
            src.Totals.RecordPaid(amount);
            dst.Balance += amount;
            dst.Totals.RecordReceived(amount);
        }
        else
        {
            src.Aborted++;
        }
    }

    // Once both Tellers have spawned everything, one behaviour per account publishes its totals; spawn order puts it
    // after every transfer on that account.
    private void TellerSpawned(Coordinator coordinator)
    {
        coordinator.TellersSpawned++;
        if (coordinator.TellersSpawned == ReasonableBankingParameters.Tellers)
        {
            foreach (Cown<Account> account in _accounts)
            {
                Runtime.When(account, static (a, run) => run.Publish(a), this);
            }

            _done.SetResult();
        }
    }

    private void Publish(Account account)
    {
        _totals[account.Id] = account.Totals;
        _aborted[account.Id] = account.Aborted;
    }

    private sealed class Coordinator
    {
        public int TellersSpawned { get; set; }
    }

    private sealed class Account(int id, double balance)
    {
        public ReasonableBankingTotals Totals;

        public int Id { get; } = id;

        public double Balance { get; set; } = balance;

        public long Aborted { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for ReasonableBanking: BoC, the baseline.</summary>
public partial class ReasonableBanking
{
    private SavinaRun _bocRun = null!;

    [IterationSetup(Target = nameof(Boc))]
    public void SetupBoc() => _bocRun = Prepare(new ReasonableBankingBoc(Size));

    [Benchmark(Baseline = true)]
    public Task Boc() => _bocRun.RunAsync();
}
