using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Savina;

namespace Boc.Benchmarks.Experiments;

/// <summary>
/// ReasonableBanking with threads and mutexes: each Teller is a dedicated thread that takes the two accounts'
/// <see cref="Lock"/>s in index order (which rules out deadlock) around each transfer. Issue order per Teller is
/// program order. The BoC runtime is not used.
/// </summary>
[SavinaWorkload("ReasonableBanking", SavinaVariant.Locks)]
public sealed class ReasonableBankingLocks(SavinaSize size) : SavinaRun(size)
{
    private readonly ReasonableBankingParameters _p = ReasonableBankingParameters.For(size);
    private Account[] _accounts = null!;
    private ReasonableBankingReference _reference = null!;
    private long _committed;
    private long _aborted;

    protected override void Build()
    {
        _accounts = new Account[_p.Accounts];
        for (int i = 0; i < _p.Accounts; i++)
        {
            _accounts[i] = new Account(_p.InitialBalance);
        }

        _reference = new ReasonableBankingReference(_p);
    }

    protected override Task ExecuteAsync()
    {
        var tellers = new Task[ReasonableBankingParameters.Tellers];
        for (int t = 0; t < tellers.Length; t++)
        {
            tellers[t] = Task.Factory.StartNew(Teller, CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        }

        return Task.WhenAll(tellers);
    }

    protected override void Validate()
    {
        ReasonableBankingTotals[] totals = _accounts.Select(a => a.Totals).ToArray();
        string? error = _reference.Compare(_committed, _aborted, totals);
        Check(error is null, error ?? "");
    }

    private void Teller()
    {
        var random = new PseudoRandom(ReasonableBankingParameters.TellerSeed);
        long committed = 0;
        long aborted = 0;
        for (int k = 0; k < _p.TransactionsPerTeller; k++)
        {
            (int source, int dest, double amount) = _p.NextTransfer(random);
            Account src = _accounts[source];
            Account dst = _accounts[dest];
            lock (_accounts[Math.Min(source, dest)].Lock)
            {
                lock (_accounts[Math.Max(source, dest)].Lock)
                {
                    if (src.Balance >= amount)
                    {
                        src.Balance -= amount;
                        src.Totals.RecordPaid(amount);
                        dst.Balance += amount;
                        dst.Totals.RecordReceived(amount);
                        committed++;
                    }
                    else
                    {
                        aborted++;
                    }
                }
            }
        }

        Interlocked.Add(ref _committed, committed);
        Interlocked.Add(ref _aborted, aborted);
    }

    private sealed class Account(double balance)
    {
        public ReasonableBankingTotals Totals;

        public Lock Lock { get; } = new();

        public double Balance { get; set; } = balance;
    }
}

/// <summary>BenchmarkDotNet entry for ReasonableBanking: threads and ordered locks.</summary>
public partial class ReasonableBanking
{
    private SavinaRun _locksRun = null!;

    [IterationSetup(Target = nameof(Locks))]
    public void SetupLocks() => _locksRun = Prepare(new ReasonableBankingLocks(Size));

    [Benchmark]
    public Task Locks() => _locksRun.RunAsync();
}
