using Boc.Orleans.Grains;

namespace Boc.Orleans.Tests;

/// <summary>
/// Commit dependencies under faults (docs/distributed.md, "Commit"): a cown hands the next behaviour the state of the
/// one before as soon as that one has handed it over, before its commit is durable. When the earlier behaviour's commit
/// then fails, everything that ran on its state must be aborted with it (and run again), never committed on top of it,
/// and a body that threw on such a state must not have its exception reported.
/// </summary>
[Collection(FaultGroup.Name)]
public sealed class DependencyFaultTests(FaultClusterFixture fixture)
{
    private TimeSpan Lease => fixture.Lease;

    private TimeSpan Bound => (8 * Lease) + TimeSpan.FromSeconds(10);

    [Fact]
    public async Task A_behaviour_that_ran_on_a_write_back_whose_commit_failed_is_aborted_with_it_and_both_commit_once()
    {
        const string Scenario = "dependent of a failed commit";
        var ledger = new Ledger(fixture, $"dependent-{Guid.NewGuid():N}-", 100);
        await ledger.OpenAsync("a", "a2", "b");

        // Transfer 1 (a to b, coordinated by a) fails at its coordinator's commit write, after b has its state. Transfer
        // 2 (a2 to b, coordinated by a2) queues behind it at b, so it is granted b's state with transfer 1 in it.
        WriteFault fault = StoreFaults.Arm(fixture.GrainOf(ledger.Key("a")), StoreFaults.HasCommit, FaultKind.HoldThenFail, TimeSpan.Zero);
        var inside = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var leave = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task first = ledger.TransferAsync(fixture.NewSpawner(), 1, "a", "b", 10, async () =>
        {
            inside.TrySetResult();
            await leave.Task;
        });
        await inside.Task.WaitAsync(Bound);
        Task second = ledger.TransferAsync(fixture.NewSpawner(), 2, "a2", "b", 5);
        ClusterCown<LedgerAccount> b = fixture.Boc.Cown<LedgerAccount>(ledger.Key("b"));
        long deadline = Environment.TickCount64 + (long)Bound.TotalMilliseconds;
        while ((await fixture.Boc.InspectAsync(b)).Requests.Count < 2)
        {
            Assert.True(Environment.TickCount64 < deadline, $"{Scenario}: transfer 2 never queued behind transfer 1 at b");
            await Task.Delay(20);
        }

        // Transfer 1's commit write is held until transfer 2 has handed its state over at b too (b's chain holds both, 2
        // computed from 1); then it fails. The abort must take transfer 2's write-back at b with it. (It fails well
        // within a lease of transfer 2's commit, so transfer 2's coordinator has not aborted it for a late vote.)
        leave.TrySetResult();
        await fault.Hit.Task.WaitAsync(Bound);
        while ((await fixture.Boc.InspectAsync(b)).PendingWriteBacks < 2)
        {
            Assert.True(Environment.TickCount64 < deadline, $"{Scenario}: transfer 2 never handed its state over at b behind transfer 1");
            await Task.Delay(20);
        }

        fault.Released.TrySetResult();
        Assert.Equal("failed", await fault.Outcome.Task.WaitAsync(Bound));
        await Task.WhenAll(first, second).WaitAsync(Bound);

        await ledger.AssertGrantedAgainAsync(Scenario, Bound, "a", "a2", "b");
        ledger.AssertConsistent(Scenario, "a", "a2", "b");
        Assert.True(ledger.Committed(1, Scenario) && ledger.Committed(2, Scenario), $"{Scenario}: a transfer that completed is not in storage");
        Assert.Equal(100 - 10, fixture.Stored(ledger.Key("a"))!.Value!.Balance);
        Assert.Equal(100 + 10 + 5, fixture.Stored(ledger.Key("b"))!.Value!.Balance);
    }

    [Fact]
    public async Task A_body_that_throws_on_a_state_whose_commit_then_fails_is_run_again_and_its_exception_is_not_reported()
    {
        const string Scenario = "exception on a state that was rolled back";
        var ledger = new Ledger(fixture, $"zombie-{Guid.NewGuid():N}-", 100);
        await ledger.OpenAsync("a", "b");
        WriteFault fault = StoreFaults.Arm(fixture.GrainOf(ledger.Key("a")), StoreFaults.HasCommit, FaultKind.StallThenFail, 2 * Lease);
        BocCluster spawner = fixture.NewSpawner();
        spawner.FaultHook = (step, _) => step == SpawnerStep.CommitSent ? throw new SpawnerCrashException(step) : Task.CompletedTask;
        await Assert.ThrowsAsync<SpawnerCrashException>(() => ledger.TransferAsync(spawner, 1, "a", "b", 10));
        await fault.Hit.Task.WaitAsync(Bound);

        // a hands its next behaviour the transfer's state while the commit write stalls; this body would throw on it.
        BocCluster reader = fixture.NewSpawner();
        int runs = 0;
        Task<long> read = reader.WhenAsync(BocCluster.Read(reader.Cown<LedgerAccount>(ledger.Key("a"))), a =>
        {
            Interlocked.Increment(ref runs);
            return a.Transfers.Contains(1) ? throw new InvalidOperationException("saw transfer 1") : a.Balance;
        });

        Assert.Equal("failed", await fault.Outcome.Task.WaitAsync(Bound));
        long balance = await read.WaitAsync(Bound);
        Assert.Equal(100, balance);
        await ledger.AssertGrantedAgainAsync(Scenario, Bound, "a", "b");
        ledger.AssertConsistent(Scenario, "a", "b");
        Assert.False(ledger.Committed(1, Scenario), $"{Scenario}: the transfer committed although its commit write failed");
        Assert.True(runs >= 1, $"{Scenario}: the reader's body never ran");
    }
}
