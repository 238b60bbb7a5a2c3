using Boc.Benchmarks.Savina;

namespace Boc.Benchmarks.Experiments;

// ReasonableBanking (SOURCES.md §5.1): the Pony artifact's "Banking 2PC" (Table 4). Two Tellers each do N
// transfers over the same A accounts; every transfer must be atomic over its two accounts, and two transfers of one
// Teller that share an account must take effect in issue order. Four implementations, one file each, so that their
// line counts compare the protocols (benchmarks/tools/count-loc.sh):
// - ReasonableBanking.Boc.cs: one two-cown behaviour per transfer; BoC gives both requirements for free.
// - ReasonableBanking.Channels.cs and ReasonableBanking.Akka.cs: the Pony protocol (per-account acquire locks taken in
//   index order, a per-transaction 2PC Manager actor, accounts stashing while in a transaction).
// - ReasonableBanking.Locks.cs: two threads taking the two accounts' locks in index order.
// This file holds what they share: parameters, the transfer generator, the sequential replay and the checks, and the
// BenchmarkDotNet class (each implementation file adds its own method to it).
//
// Decisions:
// - Both Tellers use PseudoRandom(123456), so they draw the same stream of transfers; the Pony artifact does that, and
//   keeping it keeps the contention pattern it measured (the two Tellers chase each other over the same accounts).
// - Per transfer: source = nextInt(A - 1), dest = nextInt(A - 1) re-drawn until it differs from source, amount =
//   nextDouble() * 1000 (Banking's formula). As in Pony, account A - 1 is never drawn; it stays in the run (idle).
// - Money moves from source to dest in all four implementations. The source is the paying account and the only one
//   whose vote can fail (balance >= amount); the dest always accepts. Spec §5.1 names the messages credit (to source)
//   and debit (to dest, with the balance check); the Pony source was not available to settle which account its names
//   refer to, so the 2PC files name them by effect (Debit takes money out of the source, Credit puts it into the dest),
//   which matches the Boc and Locks check if (src.Balance >= amount). Which account checks does not change the
//   protocol's message count or cost.
// - initial balance = double.MaxValue / (A * N), the Pony formula (§5.1; Banking additionally does /1000*1000).
// - Validation does not use the total balance: at about 3.6e300 every balance +/- amount rounds back to the balance,
//   so it would prove nothing (§4.16). Build replays both Tellers' streams sequentially (not timed); transfers commute,
//   so the interleaving does not matter. Validate requires committed == 2N and aborted == 0, each account's paid and
//   received counts exactly, its delta within 1e-9 relative to its volume (the order of its transfers varies), and the
//   deltas to sum to 0. aborted == 0 is a real check: there are 2N transfers of at most 1000 each, so no balance can
//   fall below the initial balance minus 2N * 1000 (1e8), which in double precision is still the initial balance and
//   far above 1000; a run that aborts any transfer has a wrong balance check or a wrong balance.
// - Boc completes on the runtime's quiescence, the 2PC implementations on their Coordinator (Pony's completion), the
//   Locks implementation when both threads have returned. All then publish per-account totals for Validate.

/// <summary>ReasonableBanking parameters and the Tellers' transfer generator, shared by every implementation.</summary>
internal readonly record struct ReasonableBankingParameters(int Accounts, int TransactionsPerTeller)
{
    public const int Tellers = 2;
    public const long TellerSeed = 123456;

    public static ReasonableBankingParameters For(SavinaSize size) => size switch
    {
        SavinaSize.Paper => new(1_000, 50_000),
        SavinaSize.Small => new(1_000, 50_000),
        _ => new(100, 1_000),
    };

    public double InitialBalance => double.MaxValue / ((double)Accounts * TransactionsPerTeller);

    public (int Source, int Dest, double Amount) NextTransfer(PseudoRandom random)
    {
        int source = random.NextInt(Accounts - 1);
        int dest = random.NextInt(Accounts - 1);
        while (dest == source)
        {
            dest = random.NextInt(Accounts - 1);
        }

        return (source, dest, random.NextDouble() * 1000);
    }
}

/// <summary>What one account did (committed transfers only), as the replay expects it and as a run publishes it.</summary>
internal struct ReasonableBankingTotals
{
    public long Paid;
    public long Received;
    public double Delta;
    public double Volume;

    public void RecordPaid(double amount)
    {
        Paid++;
        Delta -= amount;
        Volume += amount;
    }

    public void RecordReceived(double amount)
    {
        Received++;
        Delta += amount;
        Volume += amount;
    }
}

/// <summary>The sequential replay of both Tellers' streams, and the checks every implementation shares.</summary>
internal sealed class ReasonableBankingReference
{
    private readonly ReasonableBankingParameters _p;
    private readonly ReasonableBankingTotals[] _expected;

    public ReasonableBankingReference(ReasonableBankingParameters p)
    {
        _p = p;
        _expected = new ReasonableBankingTotals[p.Accounts];
        for (int teller = 0; teller < ReasonableBankingParameters.Tellers; teller++)
        {
            var random = new PseudoRandom(ReasonableBankingParameters.TellerSeed);
            for (int k = 0; k < p.TransactionsPerTeller; k++)
            {
                (int source, int dest, double amount) = p.NextTransfer(random);
                _expected[source].RecordPaid(amount);
                _expected[dest].RecordReceived(amount);
            }
        }
    }

    public long Transfers => (long)ReasonableBankingParameters.Tellers * _p.TransactionsPerTeller;

    /// <summary>Returns null if the run matches the replay, else what is wrong.</summary>
    public string? Compare(long committed, long aborted, ReasonableBankingTotals[] actual)
    {
        if (committed != Transfers || aborted != 0)
        {
            return $"{committed} transfers committed and {aborted} aborted, expected {Transfers} and 0";
        }

        double deltaSum = 0;
        double volume = 0;
        for (int i = 0; i < _p.Accounts; i++)
        {
            ReasonableBankingTotals e = _expected[i];
            ReasonableBankingTotals a = actual[i];
            if (a.Paid != e.Paid || a.Received != e.Received)
            {
                return $"account {i} paid {a.Paid} / received {a.Received} times, expected {e.Paid} / {e.Received}";
            }

            if (Math.Abs(a.Delta - e.Delta) > 1e-9 * (e.Volume + 1))
            {
                return $"account {i} delta {a.Delta:R}, expected {e.Delta:R}";
            }

            deltaSum += a.Delta;
            volume += e.Volume;
        }

        return Math.Abs(deltaSum) > 1e-9 * (volume + 1) ? $"account deltas sum to {deltaSum:R}, expected 0" : null;
    }
}

/// <summary>
/// BenchmarkDotNet entry for ReasonableBanking (SOURCES.md §5.1); each implementation file adds its method.
/// Throughput is 2N transfers per run.
/// </summary>
public partial class ReasonableBanking : SavinaBenchmarkBase
{
    /// <summary>Transfers in one run at <paramref name="size"/> (all Tellers together), for throughput reports.</summary>
    public static int Transfers(SavinaSize size) =>
        ReasonableBankingParameters.Tellers * ReasonableBankingParameters.For(size).TransactionsPerTeller;
}
