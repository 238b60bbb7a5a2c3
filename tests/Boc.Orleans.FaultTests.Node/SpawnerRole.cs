using System.Globalization;

namespace Boc.Orleans.FaultTests.Node;

/// <summary>
/// Transfers between ledger accounts, several in flight, each journaled before it starts and when its outcome is
/// known. The plan is drawn from the seed (or given), so a seed names the same transfers whatever the interleaving.
/// </summary>
internal static class SpawnerRole
{
    public static async Task<int> RunAsync(Settings settings)
    {
        string prefix = settings.Get("prefix");
        int accounts = settings.Number("accounts", 2);
        int seed = settings.Number("seed", 1);
        TimeSpan hold = settings.Millis("hold-ms", 0);
        using var journal = new Journal(settings.Get("journal"));
        await using Client client = await Client.StartAsync(settings);
        IBocCluster boc = client.Boc;
        journal.Write("connected");

        if (settings.Get("open", "false") == "true")
        {
            await Task.WhenAll(Enumerable.Range(0, accounts).Select(i => boc.WhenAsync(boc.Cown<LedgerAccount>(prefix + i), a => { a.Balance = 100; })));
            journal.Write("opened");
        }

        if (settings.Get("probe", "false") == "true")
        {
            // Progress after faults: a writer granted on every account.
            await Task.WhenAll(Enumerable.Range(0, accounts).Select(i => boc.WhenAsync(boc.Cown<LedgerAccount>(prefix + i), a => { a.Balance += 0; })));
            journal.Write("granted");
        }

        (int Id, int From, int To, long Amount)[] plan = Plan(settings, seed, accounts);
        int next = -1;
        async Task Worker()
        {
            int n;
            while ((n = Interlocked.Increment(ref next)) < plan.Length)
            {
                (int id, int from, int to, long amount) = plan[n];
                journal.Write(FormattableString.Invariant($"start {id} {prefix}{from} {prefix}{to} {amount}"));
                try
                {
                    await boc.WhenAsync(boc.Cown<LedgerAccount>(prefix + from), boc.Cown<LedgerAccount>(prefix + to), async (f, t) =>
                    {
                        if (hold > TimeSpan.Zero)
                        {
                            await Task.Delay(hold);
                        }

                        f.Balance -= amount;
                        t.Balance += amount;
                        f.Transfers.Add(id);
                        t.Transfers.Add(id);
                    });
                    journal.Write(FormattableString.Invariant($"ok {id}"));
                }
                catch (BocClusterException)
                {
                    journal.Write(FormattableString.Invariant($"nothing {id}"));
                }
#pragma warning disable CA1031 // Every other outcome is journaled for the oracle.
                catch (Exception e)
#pragma warning restore CA1031
                {
                    // By name: the harness also runs against builds without the type.
                    journal.Write(e.GetType().Name == "BocClusterOutcomeUnknownException"
                        ? FormattableString.Invariant($"unknown {id}")
                        : FormattableString.Invariant($"error {id} {e.GetType().Name}"));
                }
            }
        }

        await Task.WhenAll(Enumerable.Range(0, settings.Number("in-flight", 4)).Select(_ => Worker()));
        journal.Write("done");
        return 0;
    }

    private static (int, int, int, long)[] Plan(Settings settings, int seed, int accounts)
    {
        string given = settings.Get("plan", "");
        if (given.Length > 0)
        {
            // FROM>TO:AMOUNT,… with ids seed*100000 + index.
            return [.. given.Split(',').Select((p, i) =>
            {
                string[] parts = p.Split('>', ':');
                return ((seed * 100_000) + i, int.Parse(parts[0], CultureInfo.InvariantCulture), int.Parse(parts[1], CultureInfo.InvariantCulture), long.Parse(parts[2], CultureInfo.InvariantCulture));
            })];
        }

        var random = new Random(seed);
        return [.. Enumerable.Range(0, settings.Number("transfers", 10)).Select(i =>
        {
            int from = random.Next(accounts);
            int to = (from + 1 + random.Next(accounts - 1)) % accounts;
            return ((seed * 100_000) + i, from, to, (long)random.Next(1, 20));
        })];
    }
}
