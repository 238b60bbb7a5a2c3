using Boc.Orleans.FaultTests.Node;
using Boc.TestStore;

namespace Boc.Orleans.FaultTests;

/// <summary>
/// The failures of docs/distributed.md's table, with silos, spawners and readers as separate processes on a store
/// (Garnet, and Redis where redis-server is on PATH: <see cref="StoreFixture"/>) whose chosen write can stall, fail,
/// or land late; processes killed with SIGKILL and paused with SIGSTOP. Each scenario's oracle (LedgerOracle) reads the
/// ground truth from the store. Seeded: BOC_FAULT_RUNS=N runs each with seeds 1..N (the soak; CI runs seed 1),
/// BOC_FAULT_SEED=k with seed k alone. Waits are budgets on an idle machine, stretched by the load (<see cref="Patience"/>).
/// </summary>
[Collection(StoreGroup.Name)]
public sealed class ProcessFaultTests(StoreFixture stores)
{
    private static readonly TimeSpan Minute = TimeSpan.FromMinutes(1);

    // Every store kind with every seed. BOC_FAULT_SEED=k runs seed k alone: a soak that loops over seeds runs every
    // scenario once per seed, so stopping it early leaves no scenario with fewer runs than another.
    public static TheoryData<StoreKind, int> Cases()
    {
        int[] seeds = int.TryParse(Environment.GetEnvironmentVariable("BOC_FAULT_SEED"), out int seed)
            ? [seed]
            : [.. Enumerable.Range(1, int.TryParse(Environment.GetEnvironmentVariable("BOC_FAULT_RUNS"), out int n) ? n : 1)];
        var cases = new TheoryData<StoreKind, int>();
        foreach (StoreKind kind in StoreFixture.Kinds)
        {
            foreach (int s in seeds)
            {
                cases.Add(kind, s);
            }
        }

        return cases;
    }

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
        await OpenAsync(run, "p", 2);
        string rule = Faults.Arm(run.Db, run.Cluster, "p0", Faults.Kind.StallThenFail, 3 * run.Lease, committing: true);
        NodeProcess spawner = run.Start("spawner", "spawner", ["prefix=p", "accounts=2", "plan=0>1:10", $"seed={seed}", $"journal={run.JournalPath("spawner")}"]);
        await run.WaitForKeyAsync(Faults.Hit(run.Cluster, rule), Minute, "the commit write was never made");
        spawner.Kill();

        NodeProcess reader = run.Start("reader", "reader", ["prefix=p", "keys=0", $"journal={run.JournalPath("reader")}"]);
        Assert.Equal("failed", await run.WaitForKeyAsync(Faults.Outcome(run.Cluster, rule), Minute, "the stalled write never failed"));
        await run.WaitForJournalAsync("reader", "seen ", Minute);
        await AssertGrantedAgainAsync(run, "p", 2);
        reader.Kill();

        LedgerOracle.Check(run, ["p0", "p1"], 100, ["spawner", "probe"], ["reader"]);
        Assert.True(run.Stored()["p0"].Value!.Transfers.Count == 0, $"{run.Tag}: the transfer committed although its commit write failed");
    }

    /// <summary>
    /// The coordinator's silo is paused (SIGSTOP) with its commit write in flight and declared dead; the spawner (one
    /// attempt) gives up, the prepared cown on another silo learns the decision from the coordinator's new activation
    /// and drops its value. Only then does the paused silo resume and its held write reach Redis: it must not land.
    /// </summary>
    [Theory]
    [MemberData(nameof(Cases))]
    public async Task A_paused_coordinators_write_cannot_land_after_its_successor_aborted_the_behaviour(StoreKind store, int seed)
    {
        using var run = new FaultRun(await stores.GetAsync(store), "pause", seed);
        await run.StartSilosAsync(3);
        await OpenAsync(run, "p", 8);
        Dictionary<int, string> placed = await PlaceAsync(run, "p", 8);
        Assert.True(placed.Count >= 2, $"{run.Tag}: eight cowns all live on one silo");
        string[] pair = [.. placed.Values.Take(2).Order(StringComparer.Ordinal)];
        string coordinatorKey = pair[0], participantKey = pair[1];
        string rule = Faults.Arm(run.Db, run.Cluster, coordinatorKey, Faults.Kind.Hold, TimeSpan.Zero, committing: true);
        run.Start("spawner", "spawner", ["prefix=p", "accounts=8", $"plan={coordinatorKey[1..]}>{participantKey[1..]}:10", "max-attempts=1", $"seed={seed}", $"journal={run.JournalPath("spawner")}"]);
        string pid = await run.WaitForKeyAsync(Faults.Hit(run.Cluster, rule), Minute, "the coordinator's commit write was never made");
        NodeProcess coordinator = run.ProcessOf(int.Parse(pid, System.Globalization.CultureInfo.InvariantCulture));
        coordinator.Pause();
        try
        {
            await run.WaitForJournalAsync("spawner", "done", 2 * Minute);

            // The participant resolves through the coordinator's successor: its prepared value is dropped.
            await Patience.UntilAsync(
                () => Task.FromResult(run.Stored()[participantKey].Prepared is null ? participantKey : null),
                2 * Minute,
                () => $"{run.Tag}: {participantKey} never learned the decision while the coordinator's silo was paused",
                TimeSpan.FromMilliseconds(200));
        }
        finally
        {
            coordinator.Resume();
        }

        await run.Db.StringSetAsync(Faults.Release(run.Cluster, rule), "1");
        string outcome = await run.WaitForKeyAsync(Faults.Outcome(run.Cluster, rule), Minute, "the held write never reached the store");
        await AssertGrantedAgainAsync(run, "p", 8);

        LedgerOracle.Check(run, [.. Enumerable.Range(0, 8).Select(i => $"p{i}")], 100, ["spawner"], []);
        Assert.True(outcome != "landed", $"{run.Tag}: the paused coordinator's commit write landed after its successor had decided");
    }

    /// <summary>
    /// A reader holds a cown in a long body while every idle activation is collected; a writer in another process must
    /// not run until the reader has left its body.
    /// </summary>
    [Theory]
    [MemberData(nameof(Cases))]
    public async Task A_read_grant_survives_activation_collection_so_no_writer_runs_inside_the_readers_body(StoreKind store, int seed)
    {
        using var run = new FaultRun(await stores.GetAsync(store), "collect", seed);
        await run.StartSilosAsync(2);
        await OpenAsync(run, "p", 1);
        run.Start("reader", "reader", ["prefix=p", "inside=0", "gate=leave", $"journal={run.JournalPath("reader")}"]);
        await run.WaitForJournalAsync("reader", "inside", Minute);
        NodeProcess collect = run.Start("collect", "collect", []);
        await collect.WaitForExitAsync(Minute);
        run.Start("writer", "writer", ["prefix=p", "key=0", $"journal={run.JournalPath("writer")}"]);
        await Task.Delay(3 * run.Lease);
        await run.Db.StringSetAsync(Faults.Gate(run.Cluster, "leave"), "1");
        await run.WaitForJournalAsync("writer", "done", Minute);

        Assert.DoesNotContain("overlap", run.Journal("writer"));
    }

    /// <summary>
    /// A reader holds two cowns on different silos; one silo is paused for longer than a lease but less than failure
    /// detection. The other cown's lease must still be renewed, so a writer waiting for it never runs inside the body.
    /// </summary>
    [Theory]
    [MemberData(nameof(Cases))]
    public async Task A_paused_silo_does_not_hold_back_the_renewal_of_the_other_cowns_leases(StoreKind store, int seed)
    {
        // Slow failure detection (the pause must not be a death) and a response timeout longer than the pause.
        using var run = new FaultRun(await stores.GetAsync(store), "renew", seed, leaseMs: 3000);
        string[] slow = ["probe-ms=5000", "missed=3", "response-ms=30000", "log=trace"];
        await Task.WhenAll(Enumerable.Range(0, 2).Select(i => run.StartSiloAsync($"silo{i}", slow)));
        await OpenAsync(run, "p", 16);

        Dictionary<int, string> silos = await PlaceAsync(run, "p", 16, slow);
        Assert.True(silos.Count == 2, $"{run.Tag}: sixteen cowns all live on one silo");
        (int pausedPid, string pausedKey) = (silos.First().Key, silos.First().Value[1..]);
        (int otherPid, string otherKey) = (silos.Last().Key, silos.Last().Value[1..]);

        // Reader and writer connect through the silo that stays up: only the renewal of the paused silo's cown waits.
        string gateway = $"gateway={run.ProcessOf(otherPid).GatewayPort}";
        run.Start("reader", "reader", ["prefix=p", $"inside={pausedKey},{otherKey}", "gate=leave", $"journal={run.JournalPath("reader")}", gateway, .. slow]);
        await run.WaitForJournalAsync("reader", "inside", Minute);
        run.Start("writer", "writer", ["prefix=p", $"key={otherKey}", $"journal={run.JournalPath("writer")}", gateway, .. slow]);

        NodeProcess paused = run.ProcessOf(pausedPid);
        paused.Pause();
        await Task.Delay(2 * run.Lease);
        paused.Resume();
        await Task.Delay(run.Lease);
        await run.Db.StringSetAsync(Faults.Gate(run.Cluster, "leave"), "1");
        await run.WaitForJournalAsync("writer", "done", 2 * Minute);

        Assert.DoesNotContain("overlap", run.Journal("writer"));
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
        await OpenAsync(run, "p", Accounts);
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

        await AssertGrantedAgainAsync(run, "p", Accounts);
        LedgerOracle.Check(run, [.. Enumerable.Range(0, Accounts).Select(i => $"p{i}")], 100, journals, ["reader"]);
    }

    /// <summary>
    /// Where the cowns live: writes each of the first <paramref name="accounts"/> once (one process, one behaviour per
    /// cown), with an observing fault that records the writing silo's pid, and returns one cown key per silo (pid to
    /// key), at most one key per silo.
    /// </summary>
    private static async Task<Dictionary<int, string>> PlaceAsync(FaultRun run, string prefix, int accounts, params string[] args)
    {
        string[] rules = [.. Enumerable.Range(0, accounts).Select(i => Faults.Arm(run.Db, run.Cluster, $"{prefix}{i}", Faults.Kind.Observe, TimeSpan.Zero))];
        NodeProcess touch = run.Start("touch", "touch", [$"prefix={prefix}", $"keys={string.Join(",", Enumerable.Range(0, accounts))}", $"journal={run.JournalPath("touch")}", .. args]);
        var silos = new Dictionary<int, string>();
        for (int i = 0; i < accounts; i++)
        {
            string pid = await run.WaitForKeyAsync(Faults.Hit(run.Cluster, rules[i]), Minute, $"{prefix}{i} was never written");
            silos.TryAdd(int.Parse(pid, System.Globalization.CultureInfo.InvariantCulture), $"{prefix}{i}");
        }

        await touch.WaitForExitAsync(Minute);
        return silos;
    }

    private static async Task OpenAsync(FaultRun run, string prefix, int accounts)
    {
        NodeProcess opener = run.Start("opener", "spawner", [$"prefix={prefix}", $"accounts={accounts}", "open=true", "transfers=0", $"journal={run.JournalPath("opener")}"]);
        await run.WaitForJournalAsync("opener", "done", Minute);
        opener.Kill();
    }

    /// <summary>
    /// Progress: a writer is granted on every account within a bound (a lease after the last spawner's last message,
    /// plus failure detection and a slow machine, stretched by the load), and every write-back has been applied or
    /// dropped by then.
    /// </summary>
    private static async Task AssertGrantedAgainAsync(FaultRun run, string prefix, int accounts)
    {
        TimeSpan bound = (10 * run.Lease) + TimeSpan.FromSeconds(20);
        string journal = $"probe-{Guid.NewGuid().ToString("N")[..4]}";
        NodeProcess probe = run.Start(journal, "spawner", [$"prefix={prefix}", $"accounts={accounts}", "open=false", "transfers=0", $"journal={run.JournalPath(journal)}", "probe=true"]);
        await run.WaitForJournalAsync(journal, "done", bound);
        probe.Kill();
        await Patience.UntilAsync(
            () => Task.FromResult(run.Stored().Values.Any(r => r.Prepared is not null) ? null : prefix),
            bound,
            () => $"{run.Tag}: a prepared value was neither applied nor dropped",
            TimeSpan.FromMilliseconds(200));
    }
}
