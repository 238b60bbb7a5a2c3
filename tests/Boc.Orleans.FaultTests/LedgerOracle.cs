using System.Globalization;
using Boc.Orleans.FaultTests.Node;
using Boc.Orleans.Grains;

namespace Boc.Orleans.FaultTests;

/// <summary>
/// The oracle over a run's ground truth (Redis) and its journals: every transfer on both of its accounts or on
/// neither, at most once; every balance its opening plus the transfers it holds; the total conserved; no prepared
/// value left; a journaled "ok" is in storage, a journaled "nothing" is not; and every snapshot a reader was granted
/// is a state storage held: each account's transfers a prefix of its final list, and the snapshot's total conserved.
/// </summary>
internal static class LedgerOracle
{
    public static void Check(FaultRun run, string[] accounts, long opening, IEnumerable<string> spawnerJournals, IEnumerable<string> readerJournals)
    {
        Dictionary<string, CownRecord<LedgerAccount>> stored = run.Stored();
        var transfers = new Dictionary<int, (string From, string To, long Amount)>();
        var outcomes = new Dictionary<int, string>();
        foreach (string journal in spawnerJournals)
        {
            foreach (string line in run.Journal(journal))
            {
                string[] p = line.Split(' ');
                switch (p[0])
                {
                    case "start":
                        transfers[Int(p[1])] = (p[2], p[3], long.Parse(p[4], CultureInfo.InvariantCulture));
                        break;
                    case "ok" or "nothing" or "unknown" or "error" when p.Length > 1 && int.TryParse(p[1], out int id):
                        outcomes[id] = p[0];
                        break;
                }
            }
        }

        long total = 0;
        foreach (string account in accounts)
        {
            Assert.True(stored.TryGetValue(account, out CownRecord<LedgerAccount>? record), $"{run.Tag}: account {account} is not in storage");
            Assert.True(record!.Prepared is null, $"{run.Tag}: account {account} still holds the prepared value of {record.Prepared?.Behaviour}");
            LedgerAccount value = record.Value!;
            Assert.True(value.Transfers.Distinct().Count() == value.Transfers.Count, $"{run.Tag}: account {account} holds a transfer twice: {string.Join(",", value.Transfers)}");
            long expected = opening;
            foreach (int id in value.Transfers)
            {
                Assert.True(transfers.TryGetValue(id, out var t), $"{run.Tag}: account {account} holds transfer {id}, which no spawner started");
                expected += t.To == account ? t.Amount : -t.Amount;
            }

            Assert.True(value.Balance == expected, $"{run.Tag}: account {account} holds {value.Balance}, its transfers say {expected}");
            total += value.Balance;
        }

        Assert.True(total == opening * accounts.Length, $"{run.Tag}: the total is {total}, not {opening * accounts.Length}");
        foreach ((int id, (string from, string to, _)) in transfers)
        {
            bool onFrom = stored[from].Value!.Transfers.Contains(id);
            bool onTo = stored[to].Value!.Transfers.Contains(id);
            Assert.True(onFrom == onTo, $"{run.Tag}: transfer {id} is on {(onFrom ? from : to)} only: half a transfer committed");
            string outcome = outcomes.GetValueOrDefault(id, "none");
            Assert.False(outcome == "ok" && !onFrom, $"{run.Tag}: transfer {id} was reported committed but storage does not hold it");
            Assert.False(outcome == "nothing" && onFrom, $"{run.Tag}: transfer {id} was reported as 'nothing was written' but storage holds it");
        }

        foreach (string journal in readerJournals)
        {
            foreach (string line in run.Journal(journal).Where(l => l.StartsWith("seen ", StringComparison.Ordinal)))
            {
                CheckSnapshot(run, line, stored, opening, accounts.Length);
            }
        }
    }

    private static void CheckSnapshot(FaultRun run, string line, Dictionary<string, CownRecord<LedgerAccount>> stored, long opening, int accounts)
    {
        long total = 0;
        string[] parts = line[5..].Split(';', StringSplitOptions.RemoveEmptyEntries);
        foreach (string part in parts)
        {
            string account = part[..part.IndexOf('=', StringComparison.Ordinal)];
            string rest = part[(part.IndexOf('=', StringComparison.Ordinal) + 1)..];
            long balance = long.Parse(rest[..rest.IndexOf(':', StringComparison.Ordinal)], CultureInfo.InvariantCulture);
            string list = rest[(rest.IndexOf(':', StringComparison.Ordinal) + 1)..];
            int[] seen = list.Length == 0 ? [] : [.. list.Split(',').Select(Int)];
            List<int> final = stored[account].Value!.Transfers;
            Assert.True(seen.Length <= final.Count && seen.SequenceEqual(final.Take(seen.Length)),
                $"{run.Tag}: a reader saw {account} with transfers [{list}], which is not a prefix of what storage holds [{string.Join(",", final)}]: it saw a state that was rolled back");
            total += balance;
        }

        // A snapshot of every account of the run must conserve the total.
        if (parts.Length == accounts)
        {
            Assert.True(total == opening * parts.Length, $"{run.Tag}: a reader's snapshot totals {total}, not {opening * parts.Length}: '{line}'");
        }
    }

    private static int Int(string s) => int.Parse(s, CultureInfo.InvariantCulture);
}
