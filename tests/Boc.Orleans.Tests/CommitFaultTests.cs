using Boc.Orleans.Grains;
using Orleans.TestingHost;

namespace Boc.Orleans.Tests;

/// <summary>
/// The commit under faults (docs/distributed.md, "Failures"): storage writes that stall, fail, or time out and land
/// anyway; a spawner that dies at each step; a coordinator whose commit write is still in flight when its silo is
/// declared dead. Each oracle reads the ground truth from storage: a transfer is on both accounts or neither, at most
/// once, the balances agree with the transfers, no prepared value is left, and every cown is granted again.
/// </summary>
[Collection(FaultGroup.Name)]
public sealed class CommitFaultTests(FaultClusterFixture fixture)
{
    private TimeSpan Lease => fixture.Lease;

    /// <summary>Granted again within a lease after the spawner's last message, plus failure detection and a slow machine.</summary>
    private TimeSpan Bound => (8 * Lease) + TimeSpan.FromSeconds(10);

    [Fact]
    public async Task A_commit_write_that_stalls_and_fails_while_its_spawner_dies_commits_nothing_and_no_reader_sees_it()
    {
        const string Scenario = "stalled-failed commit, spawner dead";
        var ledger = new Ledger(fixture, $"stall-{Guid.NewGuid():N}-", 100);
        await ledger.OpenAsync("a", "b");
        WriteFault fault = StoreFaults.Arm(fixture.GrainOf(ledger.Key("a")), StoreFaults.HasCommit, FaultKind.StallThenFail, 3 * Lease);

        BocCluster spawner = fixture.NewSpawner();
        spawner.FaultHook = (step, _) => step == SpawnerStep.CommitSent ? throw new SpawnerCrashException(step) : Task.CompletedTask;
        await Assert.ThrowsAsync<SpawnerCrashException>(() => ledger.TransferAsync(spawner, 1, "a", "b", 10));
        await fault.Hit.Task.WaitAsync(Bound);

        // A reader in another spawner while the write is in flight: it must never be granted the unwritten 90.
        BocCluster reader = fixture.NewSpawner();
        Task<List<int>> read = reader.WhenAsync(BocCluster.Read(reader.Cown<LedgerAccount>(ledger.Key("a"))), a => a.Transfers.ToList());
        Assert.Equal("failed", await fault.Outcome.Task.WaitAsync(Bound));
        List<int> seen = await read.WaitAsync(Bound);

        await ledger.AssertGrantedAgainAsync(Scenario, Bound, "a", "b");
        ledger.AssertConsistent(Scenario, "a", "b");
        Assert.False(ledger.Committed(1, Scenario), $"{Scenario}: the transfer committed although its commit write failed");
        Assert.True(seen.Count == 0, $"{Scenario}: a reader saw transfer {string.Join(",", seen)} that storage never held");
    }

    [Fact]
    public async Task A_commit_write_that_times_out_but_lands_is_applied_exactly_once_and_the_spawner_completes()
    {
        const string Scenario = "commit write timed out but landed";
        var ledger = new Ledger(fixture, $"ambiguous-{Guid.NewGuid():N}-", 100);
        await ledger.OpenAsync("a", "b");
        WriteFault fault = StoreFaults.Arm(fixture.GrainOf(ledger.Key("a")), StoreFaults.HasCommit, FaultKind.TimeOutButLand, 2 * Lease);

        await ledger.TransferAsync(fixture.NewSpawner(), 1, "a", "b", 10);
        string outcome = await fault.Outcome.Task.WaitAsync(Bound);

        await ledger.AssertGrantedAgainAsync(Scenario, Bound, "a", "b");
        ledger.AssertConsistent(Scenario, "a", "b");
        Assert.True(ledger.Committed(1, Scenario), $"{Scenario}: the transfer completed but storage does not hold it (the late write was {outcome})");
    }

    // The steps by name: SpawnerStep is internal, and xunit's theory data must be public.
    public static TheoryData<string> Steps() => [.. Enum.GetNames<SpawnerStep>()];

    [Theory]
    [MemberData(nameof(Steps))]
    public async Task A_spawner_that_dies_at_any_step_leaves_the_transfer_whole_or_absent_and_every_cown_free(string stepName)
    {
        SpawnerStep step = Enum.Parse<SpawnerStep>(stepName);
        string scenario = $"spawner dies at {step}";
        var ledger = new Ledger(fixture, $"crash-{step}-{Guid.NewGuid():N}-", 100);
        await ledger.OpenAsync("a", "b");
        BocCluster spawner = fixture.NewSpawner();
        spawner.FaultHook = (s, _) => s == step ? throw new SpawnerCrashException(s) : Task.CompletedTask;
        await Assert.ThrowsAsync<SpawnerCrashException>(() => ledger.TransferAsync(spawner, 1, "a", "b", 10));

        await ledger.AssertGrantedAgainAsync(scenario, Bound, "a", "b");
        ledger.AssertConsistent(scenario, "a", "b");
        bool committed = ledger.Committed(1, scenario);
        if (step < SpawnerStep.CommitSent)
        {
            Assert.False(committed, $"{scenario}: the transfer committed although its commit was never sent");
        }
        else if (step > SpawnerStep.CommitSent)
        {
            Assert.True(committed, $"{scenario}: the coordinator answered Committed but storage does not hold the transfer");
        }

        if (step is SpawnerStep.CommitSent or SpawnerStep.Committed)
        {
            // The spawner died before saying it had its answer: a committed record stays (bounded: this one only) for
            // the retention, in case the spawner retries its commit; its participants have applied (checked above).
            await ledger.AssertRecordsDrainAsync(scenario, Bound, "a", remaining: committed ? 1 : 0);
        }
        else
        {
            await ledger.AssertRecordsDrainAsync(scenario, Bound, "a");
        }
    }

    [Fact]
    public async Task A_prepare_write_that_fails_abandons_the_attempt_and_the_retry_commits_once()
    {
        const string Scenario = "failed prepare";
        var ledger = new Ledger(fixture, $"prepare-{Guid.NewGuid():N}-", 100);
        await ledger.OpenAsync("a", "b");
        WriteFault fault = StoreFaults.Arm(fixture.GrainOf(ledger.Key("b")), r => r is CownRecord<LedgerAccount> { Prepared: not null }, FaultKind.StallThenFail, Lease / 2);

        await ledger.TransferAsync(fixture.NewSpawner(), 1, "a", "b", 10);
        Assert.Equal("failed", await fault.Outcome.Task.WaitAsync(Bound));

        await ledger.AssertGrantedAgainAsync(Scenario, Bound, "a", "b");
        ledger.AssertConsistent(Scenario, "a", "b");
        Assert.True(ledger.Committed(1, Scenario));
        await ledger.AssertRecordsDrainAsync(Scenario, Bound, "a");
    }

    [Fact]
    public async Task An_apply_write_that_fails_after_the_commit_is_applied_by_recovery_and_the_record_settled()
    {
        const string Scenario = "failed apply";
        var ledger = new Ledger(fixture, $"apply-{Guid.NewGuid():N}-", 100);
        await ledger.OpenAsync("a", "b");
        WriteFault fault = StoreFaults.Arm(
            fixture.GrainOf(ledger.Key("b")),
            r => r is CownRecord<LedgerAccount> { Prepared: null, Value.Transfers.Count: > 0 },
            FaultKind.StallThenFail,
            Lease / 2);

        // The commit succeeded, so the spawner completes even though the apply at b failed: b applies by itself.
        await ledger.TransferAsync(fixture.NewSpawner(), 1, "a", "b", 10);
        Assert.Equal("failed", await fault.Outcome.Task.WaitAsync(Bound));

        await ledger.AssertGrantedAgainAsync(Scenario, Bound, "a", "b");
        ledger.AssertConsistent(Scenario, "a", "b");
        Assert.True(ledger.Committed(1, Scenario));
        await ledger.AssertRecordsDrainAsync(Scenario, Bound, "a");
    }

    [Fact]
    public async Task A_commit_write_that_stalls_and_lands_while_its_spawner_is_dead_is_seen_whole_by_a_reader_of_both_accounts()
    {
        const string Scenario = "stalled-landed commit, spawner dead, reader of both";
        var ledger = new Ledger(fixture, $"landing-{Guid.NewGuid():N}-", 100);
        await ledger.OpenAsync("a", "b");
        WriteFault fault = StoreFaults.Arm(fixture.GrainOf(ledger.Key("a")), StoreFaults.HasCommit, FaultKind.StallThenLand, 3 * Lease);
        BocCluster spawner = fixture.NewSpawner();
        spawner.FaultHook = (step, _) => step == SpawnerStep.CommitSent ? throw new SpawnerCrashException(step) : Task.CompletedTask;
        await Assert.ThrowsAsync<SpawnerCrashException>(() => ledger.TransferAsync(spawner, 1, "a", "b", 10));
        await fault.Hit.Task.WaitAsync(Bound);

        // While the write stalls past the dead spawner's lease, a reader of both accounts must see the transfer on
        // both or on neither.
        BocCluster reader = fixture.NewSpawner();
        Task<(bool OnA, bool OnB, long Total)> read = reader.WhenAsync(
            BocCluster.Read(reader.Cown<LedgerAccount>(ledger.Key("a"))),
            BocCluster.Read(reader.Cown<LedgerAccount>(ledger.Key("b"))),
            (a, b) => (a.Transfers.Contains(1), b.Transfers.Contains(1), a.Balance + b.Balance));
        Assert.Equal("landed", await fault.Outcome.Task.WaitAsync(Bound));
        (bool onA, bool onB, long total) = await read.WaitAsync(Bound);

        await ledger.AssertGrantedAgainAsync(Scenario, Bound, "a", "b");
        ledger.AssertConsistent(Scenario, "a", "b");
        Assert.True(ledger.Committed(1, Scenario), $"{Scenario}: the commit write landed but the transfer is not whole in storage");
        Assert.True(onA == onB && total == 200, $"{Scenario}: a reader saw the transfer on {(onA ? "a" : "b")} only (total {total})");
    }

    [Fact]
    public async Task A_commit_write_in_flight_from_a_dead_coordinators_silo_cannot_land_once_its_successor_has_answered()
    {
        const string Scenario = "coordinator's silo dead with its commit write in flight";
        TestCluster cluster = fixture.Cluster;
        (Ledger ledger, SiloHandle victim, WriteFault fault) = await DeadCoordinator.HoldCommitAsync(fixture, "fence", Bound);
        await cluster.KillSiloAsync(victim);
        try
        {
            // The cown's new activation grants a reader of both accounts a's state; b is still prepared, so the reader
            // waits there. Only then does the dead silo's write reach storage, as a paused silo's would on resuming.
            BocCluster reader = fixture.NewSpawner();
            Task<(bool OnA, bool OnB, long Total)> read = reader.WhenAsync(
                BocCluster.Read(reader.Cown<LedgerAccount>(ledger.Key("a"))),
                BocCluster.Read(reader.Cown<LedgerAccount>(ledger.Key("b"))),
                (a, b) => (a.Transfers.Contains(1), b.Transfers.Contains(1), a.Balance + b.Balance));
            ClusterCown<LedgerAccount> a = fixture.Boc.Cown<LedgerAccount>(ledger.Key("a"));
            long deadline = Environment.TickCount64 + (long)Bound.TotalMilliseconds;
            while (!read.IsCompleted && !(await fixture.Boc.InspectAsync(a)).Requests.Any(r => r.Granted))
            {
                Assert.True(Environment.TickCount64 < deadline, $"{Scenario}: the reader was never granted the coordinator");
                await Task.Delay(50);
            }

            fault.Released.TrySetResult();
            string outcome = await fault.Outcome.Task.WaitAsync(Bound);
            (bool onA, bool onB, long total) = await read.WaitAsync(Bound);

            await ledger.AssertGrantedAgainAsync(Scenario, Bound, "a", "b");
            ledger.AssertConsistent(Scenario, "a", "b");
            Assert.True(onA == onB && total == 200, $"{Scenario}: a reader saw the transfer on {(onA ? "a" : "b")} only (total {total})");
            Assert.True(outcome == "rejected", $"{Scenario}: the dead activation's commit write {outcome} after its successor had answered");
            Assert.False(ledger.Committed(1, Scenario), $"{Scenario}: the transfer committed through the dead activation's write");
        }
        finally
        {
            fault.Released.TrySetResult();
            await cluster.StartAdditionalSiloAsync();
        }
    }
}
