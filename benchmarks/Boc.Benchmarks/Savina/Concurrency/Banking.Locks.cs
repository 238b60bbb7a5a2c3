using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Concurrency;

// Threads-and-locks baseline of Savina 4.16 Banking (SOURCES.md §4.16).
//
// Decisions:
// - One thread of control, as Savina has one Teller: the teller thread draws the same stream
//   (BankingParameters.NextTransaction, PseudoRandom(123456)) and performs each transfer itself, holding the two
//   accounts' System.Threading.Lock. That is what a lock-based developer writes for a single issuer; there is no one
//   to hand a transfer to. So every lock is taken uncontended, and this measures uncontended locking plus the
//   transfer, not a concurrent protocol: it is the floor a message- or behaviour-based Banking is compared with.
// - Locks are taken in index order, src first: the generator guarantees src < dst (BankingReference checks the whole
//   stream), which is the global order that keeps the locking deadlock-free once there is more than one teller.
// - The teller runs on a dedicated thread started in the timed part (DedicatedThreads), like the other locks
//   baselines; the thread start is a few tens of microseconds against a run of milliseconds.
// - Validation is BankingReference.Compare, as for every variant: the completed count, the exact amount sum, and each
//   account's credit/debit counts and delta. The totals are read after the teller thread has finished.

/// <summary>Threads and locks: the teller thread performs every transfer under both accounts' locks.</summary>
[SavinaWorkload("Banking", SavinaVariant.Locks)]
public sealed class BankingLocks(SavinaSize size) : SavinaRun(size)
{
    private readonly BankingParameters _p = BankingParameters.For(size);
    private BankingAccount[] _accounts = [];
    private Lock[] _locks = [];
    private BankingReference _reference = null!;

    // Written by the teller thread, read after it has finished.
    private long _completed;
    private double _amountSum;

    protected override void Build()
    {
        _accounts = new BankingAccount[_p.Accounts];
        _locks = new Lock[_p.Accounts];
        for (int i = 0; i < _p.Accounts; i++)
        {
            _accounts[i] = new BankingAccount(i, _p.InitialBalance);
            _locks[i] = new Lock();
        }

        _reference = new BankingReference(_p);
    }

    protected override Task ExecuteAsync() => DedicatedThreads.RunAsync([0], _ => Teller(), "Banking teller");

    protected override void Validate()
    {
        string? error = _reference.Compare(_completed, _amountSum, [.. _accounts.Select(a => a.Totals)]);
        Check(error is null, error ?? "");
    }

    private void Teller()
    {
        var random = new PseudoRandom(BankingParameters.TellerSeed);
        for (int k = 0; k < _p.Transactions; k++)
        {
            (int src, int dst, double amount) = _p.NextTransaction(random);
            _amountSum += amount;
            lock (_locks[src])
            {
                lock (_locks[dst])
                {
                    BankingAccount.Transfer(_accounts[src], _accounts[dst], amount);
                }
            }

            _completed++;
        }
    }
}

/// <summary>BenchmarkDotNet entry for Banking: the threads-and-locks baseline.</summary>
public partial class Banking
{
    private SavinaRun _locksRun = null!;

    [IterationSetup(Target = nameof(Locks))]
    public void SetupLocks() => _locksRun = Prepare(new BankingLocks(Size));

    [Benchmark]
    public Task Locks() => _locksRun.RunAsync();
}
