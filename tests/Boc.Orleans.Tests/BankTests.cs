using Orleans.TestingHost;

namespace Boc.Orleans.Tests;

/// <summary>
/// A bank of accounts with concurrent clients making two-account transfers: the total is conserved (every transfer's
/// writes are all or nothing) and every transfer is counted exactly once, also while a silo is killed and restarted.
/// Accounts start at zero and may go negative, so the conserved total is zero.
/// </summary>
[Collection(ClusterGroup.Name)]
public sealed class BankTests(ClusterFixture fixture)
{
    private static readonly bool s_soak = Environment.GetEnvironmentVariable("BOC_ORLEANS_SOAK") == "1";

    [Fact]
    public async Task A_thousand_accounts_with_concurrent_clients_conserve_the_total()
    {
        const int seed = 38;
        string prefix = $"bank-{Guid.NewGuid():N}-";
        int transfers = s_soak ? 4000 : 400;
        BankRun run = await RunAsync(seed, prefix, accounts: 1000, transfers, clients: 4, midRun: null);
        await AssertConservedAsync(seed, prefix, 1000, run.Completed);
    }

    [Fact]
    public async Task A_silo_killed_and_restarted_mid_run_loses_nothing_and_leaves_no_cown_stuck()
    {
        const int seed = 3838;
        string prefix = $"kill-{Guid.NewGuid():N}-";
        int accounts = 200;
        int transfers = s_soak ? 3000 : 500;
        long abandonedBefore = BocCluster.Abandoned;
        TestCluster cluster = fixture.Cluster;
        const int Held = 20;
        int heldCompleted = 0;
        BankRun run = await RunAsync(seed, prefix, accounts, transfers, clients: 4, midRun: async () =>
        {
            // Twenty transfers over 40 accounts hold their cowns across the kill (their bodies wait for the gate), so
            // some behaviour surely holds a cown of the killed silo: about a third of the cowns live there.
            var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            var allEntered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            int entered = 0;
            BocCluster boc = fixture.NewSpawner();
            Task[] held = [.. Enumerable.Range(0, Held).Select(i => boc.WhenAsync(boc.Cown<Account>(prefix + (2 * i)), boc.Cown<Account>(prefix + (2 * i + 1)), async (a, b) =>
            {
                if (Interlocked.Increment(ref entered) == Held)
                {
                    allEntered.TrySetResult();
                }

                await gate.Task;
                a.Balance -= 1;
                b.Balance += 1;
                a.Ops++;
                b.Ops++;
            }))];
            // Not every one of them may get in before the gate opens: one can queue behind a client's transfer that waits
            // for a cown another held body keeps (a cycle through the gate, not through the protocol). So the kill comes
            // when all are in or after a while, whichever is first; the abandoned attempts below show it was felt.
            await Task.WhenAny(allEntered.Task, Task.Delay(TimeSpan.FromSeconds(10)));
            SiloHandle victim = cluster.SecondarySilos[0];
            await cluster.KillSiloAsync(victim);
            await cluster.StartAdditionalSiloAsync();
            gate.SetResult();
            await Task.WhenAll(held);
            heldCompleted = Held;
        });

        // Every transfer completed: retries absorbed the dead silo.
        Assert.True(run.Failures.Count == 0, $"seed {seed}: {run.Failures.Count} transfers failed; first: {run.Failures.FirstOrDefault()}");
        Assert.Equal(Held, heldCompleted);
        await AssertConservedAsync(seed, prefix, accounts, run.Completed + heldCompleted);

        // No cown stuck: a writer on every account is granted.
        IBocCluster boc = fixture.Boc;
        await Task.WhenAll(Enumerable.Range(0, accounts).Select(i => boc.WhenAsync(boc.Cown<Account>(prefix + i), a => { a.Ops += 0; })))
            .WaitAsync(TimeSpan.FromMinutes(2));

        // The kill was felt (else the test would prove nothing about failures).
        Assert.True(BocCluster.Abandoned > abandonedBefore, $"seed {seed}: no attempt was abandoned: the killed silo held none of the run's cowns?");
    }

    private async Task<BankRun> RunAsync(int seed, string prefix, int accounts, int transfers, int clients, Func<Task>? midRun)
    {
        var run = new BankRun();
        int started = 0;
        int completed = 0;
        var midRunTriggered = new TaskCompletionSource();
        Task? midRunTask = null;
        var random = new Random(seed);
        // The plan is drawn up front, so a seed names the same transfers whatever the interleaving.
        (int From, int To, int Amount)[] plan = [.. Enumerable.Range(0, transfers).Select(_ =>
        {
            int from = random.Next(accounts);
            int to = (from + 1 + random.Next(accounts - 1)) % accounts;
            return (from, to, random.Next(1, 50));
        })];

        async Task Client()
        {
            BocCluster boc = fixture.NewSpawner();
            while (true)
            {
                int n = Interlocked.Increment(ref started) - 1;
                if (n >= plan.Length)
                {
                    return;
                }

                if (midRun is not null && n >= plan.Length / 2)
                {
                    // The second half starts only once the silo is dead: transfers in flight during the kill test the
                    // mid-behaviour failures, and the later ones surely meet cowns whose silo is gone.
                    await midRunTriggered.Task;
                    await midRunTask!;
                }

                (int from, int to, int amount) = plan[n];
                try
                {
                    await boc.WhenAsync(boc.Cown<Account>(prefix + from), boc.Cown<Account>(prefix + to), (a, b) =>
                    {
                        a.Balance -= amount;
                        b.Balance += amount;
                        a.Ops++;
                        b.Ops++;
                    });
                    if (Interlocked.Increment(ref completed) == plan.Length / 3 && midRun is not null)
                    {
                        midRunTask = midRun();
                        midRunTriggered.TrySetResult();
                    }
                }
                catch (BocClusterException e)
                {
                    lock (run.Failures)
                    {
                        run.Failures.Add(e.ToString());
                    }
                }
            }
        }

        // Several transfers in flight per client: a client is many callers of one spawner.
        Task all = Task.WhenAll(Enumerable.Range(0, clients * 8).Select(_ => Client()));
        try
        {
            await all.WaitAsync(TimeSpan.FromMinutes(4));
            if (midRunTask is not null)
            {
                await midRunTask;
            }
        }
        catch (TimeoutException)
        {
            Assert.Fail($"seed {seed}: transfers did not all complete ({completed} of {plan.Length}); {await DescribeBusyAsync(prefix, accounts)}");
        }

        run.Completed = completed;
        return run;
    }

    /// <summary>What the cowns still hold, for a failure message: the accounts with requests or pending write-backs.</summary>
    private async Task<string> DescribeBusyAsync(string prefix, int accounts)
    {
        var busy = new List<string>();
        foreach (int i in Enumerable.Range(0, accounts))
        {
            CownInspection c = await fixture.Boc.InspectAsync(fixture.Boc.Cown<Account>(prefix + i));
            if (c.Requests.Count > 0 || c.PendingWriteBacks > 0)
            {
                busy.Add($"{i}: {c.PendingWriteBacks} pending (first {c.PreparedBy} by {c.PreparedCoordinator}), requests [{string.Join(" ", c.Requests.Select(r => $"{r.Behaviour.ToString()[..8]}{(r.Write ? "w" : "r")}{(r.Granted ? "G" : "")}{(r.Scheduled ? "S" : "")}"))}]");
            }
        }

        return $"busy cowns: {string.Join("; ", busy.Take(12))}";
    }

    private async Task AssertConservedAsync(int seed, string prefix, int accounts, int completed)
    {
        IBocCluster boc = fixture.Boc;
        (long Total, long Ops) sums = await boc.WhenAsync(
            [.. Enumerable.Range(0, accounts).Select(i => (ClusterAcquirable<Account>)BocCluster.Read(boc.Cown<Account>(prefix + i)))],
            states => (states.Sum(s => s.Balance), states.Sum(s => s.Ops)));
        Assert.True(sums.Total == 0, $"seed {seed}: total {sums.Total}, not conserved");
        Assert.True(sums.Ops == 2L * completed, $"seed {seed}: {sums.Ops} account updates for {completed} completed transfers (expected {2L * completed})");
    }

    private sealed class BankRun
    {
        public List<string> Failures { get; } = [];

        public int Completed { get; set; }
    }
}
