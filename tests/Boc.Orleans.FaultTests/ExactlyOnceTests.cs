using System.Globalization;
using Boc.Orleans.FaultTests.Node;
using Boc.Orleans.Grains;
using Boc.TestStore;

namespace Boc.Orleans.FaultTests;

/// <summary>
/// The idempotency promises (docs/distributed.md, "Idempotency keys") against the two sequences that broke them, with
/// silos, spawners and lookups as separate processes: a lookup that answered NotCommitted while the keyed call was
/// between attempts (a caller that trusted it ran the operation twice), and a coordinator reactivated on a silo whose
/// wall clock is ahead, which dropped the key's record before the retention had passed. Seeded as ProcessFaultTests.
/// </summary>
public sealed class ExactlyOnceTests(StoreFixture stores) : IClassFixture<StoreFixture>
{
    private static readonly TimeSpan Minute = TimeSpan.FromMinutes(1);

    // One store kind (Redis where it is there, as in CI): what these scenarios test is the grains' keys and clocks, which
    // no store kind changes, and each waits out most of a retention.
    public static TheoryData<StoreKind, int> Cases()
    {
        var cases = new TheoryData<StoreKind, int>();
        StoreKind kind = StoreFixture.Kinds[^1];
        foreach (object[] row in Scenario.Cases().Where(r => (StoreKind)r[0] == kind))
        {
            cases.Add(kind, (int)row[1]);
        }

        return cases;
    }

    /// <summary>
    /// A keyed transfer whose participant's silo is paused (SIGSTOP, short of failure detection): its attempts time out
    /// there and are abandoned, giving the coordinator back between attempts, until the silo resumes. A caller in
    /// another process asks the coordinator for the key all along; when it is told NotCommitted after a Pending it runs
    /// the transfer again under a new key, as a caller who trusts the answer would. The transfer must be applied at
    /// most once, and no NotCommitted may come before a Committed: a NotCommitted is final.
    /// </summary>
    [Theory]
    [MemberData(nameof(Cases))]
    public async Task A_lookup_never_answers_NotCommitted_while_the_keyed_call_can_still_commit(StoreKind store, int seed)
    {
        var random = new Random(seed);
        using var run = new FaultRun(await stores.GetAsync(store), "lookup", seed);

        // Failure detection slower than the pause; calls to the paused silo time out within the pause.
        string[] slow = ["probe-ms=5000", "missed=3", "response-ms=1500"];
        await Task.WhenAll(Enumerable.Range(0, 2).Select(i => run.StartSiloAsync($"silo{i}", slow)));
        // Cowns on both silos: the cowns are placed once every silo of the membership is active.
        run.Start("members", "members", ["silos=2", $"journal={run.JournalPath("members")}"]);
        await run.WaitForJournalAsync("members", "silos", 2 * Minute);
        const string prefix = "p";
        await Scenario.OpenAsync(run, prefix, 8);
        Dictionary<int, string> placed = await Scenario.PlaceAsync(run, prefix, 8, slow);
        Assert.True(placed.Count == 2, $"{run.Tag}: eight cowns all live on one silo");

        // The coordinator is the first written cown in the global order: the smaller key. Its silo stays up, and both
        // clients talk through it.
        KeyValuePair<int, string>[] pair = [.. placed.OrderBy(p => p.Value, StringComparer.Ordinal)];
        (int coordinatorPid, string coordinator) = (pair[0].Key, pair[0].Value[1..]);
        (int participantPid, string participant) = (pair[1].Key, pair[1].Value[1..]);
        string key = $"op-{seed}";
        string[] operation = [$"prefix={prefix}", $"from={coordinator}", $"to={participant}", $"id={seed}", $"key={key}", $"gateway={run.ProcessOf(coordinatorPid).GatewayPort}", .. slow];

        NodeProcess paused = run.ProcessOf(participantPid);
        paused.Pause();
        try
        {
            run.Start("spawner", "keyed", [.. operation, $"journal={run.JournalPath("spawner")}"]);
            run.Start("lookup", "lookup", [.. operation, $"coordinator={coordinator}", "reissue=true", $"journal={run.JournalPath("lookup")}"]);
            await run.WaitForJournalAsync("lookup", "reached", 2 * Minute);
            await Task.Delay(TimeSpan.FromMilliseconds(random.Next(4000, 9000)));
        }
        finally
        {
            paused.Resume();
        }

        await run.WaitForJournalAsync("spawner", "done", 2 * Minute);
        await run.Db.StringSetAsync(Faults.Gate(run.Cluster, "lookup-stop"), "1");
        await run.WaitForJournalAsync("lookup", "done", 2 * Minute);
        await Scenario.AssertGrantedAgainAsync(run, prefix, 8);

        LedgerOracle.Check(run, [.. Enumerable.Range(0, 8).Select(i => $"{prefix}{i}")], 100, ["spawner", "lookup"], []);
        string[] answers = [.. run.Journal("lookup").Where(l => l.StartsWith("answer ", StringComparison.Ordinal)).Select(l => l.Split(' ')[1])];
        string said = string.Join(" → ", answers);
        Assert.True(answers.Contains(nameof(ClusterOutcome.Pending)), $"{run.Tag}: the lookup never saw the call live ({said}): the scenario did not run as named");
        int attempts = int.Parse(run.Journal("spawner").Last(l => l.StartsWith("attempts ", StringComparison.Ordinal))[9..], CultureInfo.InvariantCulture);
        Assert.True(attempts >= 2, $"{run.Tag}: the call took {attempts} attempt: no attempt was abandoned, so the scenario did not run as named");
        int notCommitted = Array.IndexOf(answers, nameof(ClusterOutcome.NotCommitted));
        Assert.True(notCommitted < 0 || !answers.Skip(notCommitted).Contains(nameof(ClusterOutcome.Committed)), $"{run.Tag}: the lookup answered {said}: NotCommitted, then the key committed");
        string outcome = run.Journal("spawner").Last(l => l.StartsWith("ok ", StringComparison.Ordinal) || l.StartsWith("nothing ", StringComparison.Ordinal) || l.StartsWith("unknown ", StringComparison.Ordinal) || l.StartsWith("error ", StringComparison.Ordinal));
        Assert.True(notCommitted < 0 || outcome.StartsWith("nothing ", StringComparison.Ordinal), $"{run.Tag}: the lookup answered {said}, and the call ended '{outcome}' instead of failing with nothing written");
    }

    /// <summary>
    /// A keyed deposit commits on a silo with a correct clock; that silo is killed, and the account's next activation is
    /// on a silo whose wall clock is ahead by a seeded skew (injected into its cowns' clock, not the machine's). A retry
    /// with the same key, inside the retention but later than the retention minus the skew, must still be refused as a
    /// duplicate: the balance is the opening plus one deposit.
    /// </summary>
    [Theory]
    [MemberData(nameof(Cases))]
    public async Task A_keyed_deposit_stays_a_duplicate_for_the_whole_retention_when_its_coordinator_reactivates_on_a_clock_ahead(StoreKind store, int seed)
    {
        var random = new Random(seed);
        TimeSpan retention = TimeSpan.FromSeconds(30);
        TimeSpan skew = TimeSpan.FromSeconds(random.Next(6, 15));
        using var run = new FaultRun(await stores.GetAsync(store), "skew", seed);
        string[] common = [$"retention-ms={(int)retention.TotalMilliseconds}"];
        NodeProcess first = await run.StartSiloAsync("silo0", common);
        await Scenario.OpenAsync(run, "d", 1);
        string key = $"deposit-{seed}";
        string[] deposit = ["prefix=d", "from=0", $"id={seed}", $"key={key}", .. common];

        run.Start("deposit", "keyed", [.. deposit, $"journal={run.JournalPath("deposit")}"]);
        await run.WaitForJournalAsync("deposit", "done", 2 * Minute);
        long committed = Environment.TickCount64;
        Assert.Contains($"ok {seed}", run.Journal("deposit"));

        // The account's next activation is on the skewed silo: the retry's process waits until the killed silo is declared
        // dead, activates the account there (an inspection), and spawns the retry when the gate opens.
        await run.StartSiloAsync("silo1", [.. common, $"skew-ms={(int)skew.TotalMilliseconds}"]);
        first.Kill();
        long retryStarted = Environment.TickCount64;
        run.Start("retry", "keyed", [.. deposit, "gate=retry", "silos=1", "activate=true", $"journal={run.JournalPath("retry")}"]);
        await run.WaitForJournalAsync("retry", "activated", 2 * Minute);
        TimeSpan retryAt = retention - skew + TimeSpan.FromSeconds(2);
        await Task.Delay(TimeSpan.FromMilliseconds(Math.Max(0, (long)retryAt.TotalMilliseconds - (Environment.TickCount64 - committed))));
        await run.Db.StringSetAsync(Faults.Gate(run.Cluster, "retry"), "1");
        await run.WaitForJournalAsync("retry", "done", 2 * Minute);
        TimeSpan answered = TimeSpan.FromMilliseconds(Environment.TickCount64 - committed);
        string[] retry = run.Journal("retry");
        CownRecord<LedgerAccount> stored = run.Stored()["d0"];
        string tag = string.Create(CultureInfo.InvariantCulture, $"{run.Tag}, skew {skew.TotalSeconds} s, retry answered {answered.TotalSeconds:F1} s after the commit");
        Assert.True(stored.Value!.Transfers.Count(t => t == seed) <= 1 && stored.Value.Balance <= 110, $"{tag}: the deposit was applied twice (balance {stored.Value.Balance}, deposits {string.Join(",", stored.Value.Transfers)})");

        // The record is kept a retention after the skewed activation read it (docs/distributed.md, "Retention and clocks"),
        // which is after the retry's process started: a retry answered within a retention of that start must have been
        // told it is a duplicate. One answered later proves nothing (a slow machine: failure detection, the activation).
        TimeSpan sinceRetryStarted = TimeSpan.FromMilliseconds(Environment.TickCount64 - retryStarted);
        Assert.True(sinceRetryStarted < retention, $"{tag}: the retry was answered {sinceRetryStarted.TotalSeconds:F1} s after its process started, later than the retention, so the scenario is inconclusive");
        Assert.Contains($"duplicate {seed}", retry);
        Assert.Equal(110, stored.Value.Balance);
    }
}
