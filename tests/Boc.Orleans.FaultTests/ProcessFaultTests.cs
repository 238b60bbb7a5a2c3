using Boc.Orleans.FaultTests.Node;
using Boc.TestStore;

namespace Boc.Orleans.FaultTests;

/// <summary>
/// The failures of docs/distributed.md's table, with silos, spawners and readers as separate processes on a store
/// (Garnet, and Redis where redis-server is on PATH: <see cref="StoreFixture"/>) whose chosen write can stall, fail,
/// or land late; processes killed with SIGKILL and paused with SIGSTOP. Each scenario's oracle (LedgerOracle) reads the
/// ground truth from the store. Seeded: BOC_FAULT_RUNS=N runs each with seeds 1..N (the soak; CI runs seed 1),
/// BOC_FAULT_SEED=k with seed k alone. This class: commits under killed spawners and silos. Each class has stores of
/// its own (a class fixture), so the classes run in parallel and a scenario that pauses or kills its store disturbs no
/// other class.
/// </summary>
public sealed class ProcessFaultTests(StoreFixture stores) : IClassFixture<StoreFixture>
{
    public static TheoryData<StoreKind, int> Cases() => Scenario.Cases();

    /// <summary>
    /// The coordinator's commit write stalls for three leases and fails; the spawner is killed while it stalls; a reader
    /// in another process asks for the coordinator meanwhile. Nothing may commit, and the reader may not see the
    /// unwritten debit.
    /// </summary>
    [Theory]
    [MemberData(nameof(Cases))]
    public async Task A_stalled_commit_that_fails_after_its_spawner_is_killed_commits_nothing_and_is_never_read(StoreKind store, int seed)
    {
        using var run = new FaultRun(await stores.GetAsync(store), "stall", seed);
        await run.StartSilosAsync(3);
        await Scenario.OpenAsync(run, "p", 2);
        string rule = Faults.Arm(run.Db, run.Cluster, "p0", Faults.Kind.StallThenFail, 3 * run.Lease, committing: true);
        NodeProcess spawner = run.Start("spawner", "spawner", ["prefix=p", "accounts=2", "plan=0>1:10", $"seed={seed}", $"journal={run.JournalPath("spawner")}"]);
        await run.WaitForKeyAsync(Faults.Hit(run.Cluster, rule), Scenario.Minute, "the commit write was never made");
        spawner.Kill();

        NodeProcess reader = run.Start("reader", "reader", ["prefix=p", "keys=0", $"journal={run.JournalPath("reader")}"]);
        Assert.Equal("failed", await run.WaitForKeyAsync(Faults.Outcome(run.Cluster, rule), Scenario.Minute, "the stalled write never failed"));
        await run.WaitForJournalAsync("reader", "seen ", Scenario.Minute);
        await Scenario.AssertGrantedAgainAsync(run, "p", 2);
        reader.Kill();

        LedgerOracle.Check(run, ["p0", "p1"], 100, ["spawner", "probe"], ["reader"]);
        Assert.True(run.Stored()["p0"].Value!.Transfers.Count == 0, $"{run.Tag}: the transfer committed although its commit write failed");
    }

    /// <summary>
    /// Chaos: two spawners and a reader over twelve accounts, while silos and spawners are killed and restarted and
    /// silos paused and resumed at seeded moments. The oracle checks every transfer, every snapshot and the total.
    /// </summary>
    [Theory]
    [MemberData(nameof(Cases))]
    public async Task Transfers_under_kills_and_pauses_of_silos_and_spawners_stay_all_or_nothing(StoreKind store, int seed)
    {
        const int Accounts = 12;
        var random = new Random(seed);
        using var run = new FaultRun(await stores.GetAsync(store), "chaos", seed);
        await run.StartSilosAsync(3);
        await Scenario.OpenAsync(run, "p", Accounts);
        string keys = string.Join(",", Enumerable.Range(0, Accounts));
        string[] spawners = ["spawner-a", "spawner-b"];
        var journals = new List<string>();
        NodeProcess StartSpawner(string name, int generation)
        {
            string journal = $"{name}-{generation}";
            journals.Add(journal);
            return run.Start(journal, "spawner", ["prefix=p", $"accounts={Accounts}", "transfers=400", "in-flight=4", $"seed={(seed * 100) + journals.Count}", $"journal={run.JournalPath(journal)}"]);
        }

        var running = spawners.ToDictionary(s => s, s => StartSpawner(s, 0));
        run.Start("reader", "reader", ["prefix=p", $"keys={keys}", "interval-ms=200", $"journal={run.JournalPath("reader")}"]);
        var silos = run.Silos.ToList();
        int generation = 0;
        long end = Environment.TickCount64 + (long)TimeSpan.FromSeconds(25).TotalMilliseconds;
        while (Environment.TickCount64 < end)
        {
            await Task.Delay(TimeSpan.FromMilliseconds(random.Next(1500, 4000)));
            switch (random.Next(3))
            {
                case 0:
                    // Kill a silo (never the last one) and start a new one.
                    NodeProcess victim = silos[random.Next(silos.Count)];
                    victim.Kill();
                    silos.Remove(victim);
                    silos.Add(await run.StartSiloAsync($"silo-r{++generation}"));
                    break;
                case 1:
                    // Pause a silo past failure detection, then resume it.
                    NodeProcess paused = silos[random.Next(silos.Count)];
                    paused.Pause();
                    await Task.Delay(TimeSpan.FromMilliseconds(random.Next(1000, 5000)));
                    paused.Resume();
                    break;
                default:
                    // Kill a spawner mid-transfer and start another in its place.
                    string name = spawners[random.Next(spawners.Length)];
                    running[name].Kill();
                    running[name] = StartSpawner(name, ++generation);
                    break;
            }
        }

        foreach (NodeProcess spawner in running.Values)
        {
            spawner.Kill();
        }

        await Scenario.AssertGrantedAgainAsync(run, "p", Accounts);
        LedgerOracle.Check(run, [.. Enumerable.Range(0, Accounts).Select(i => $"p{i}")], 100, journals, ["reader"]);
    }
}
