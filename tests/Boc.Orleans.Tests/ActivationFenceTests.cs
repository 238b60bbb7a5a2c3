using Boc.Orleans.Grains;
using Orleans.TestingHost;

namespace Boc.Orleans.Tests;

/// <summary>
/// Fence 1 (docs/distributed.md, "Failures"): a cown's new activation writes before it answers anything, so a write still
/// in flight from its dead predecessor either lands before the new activation answers, or fails. Without it the new
/// activation grants a reader the state from before that write, the write lands afterwards, and the reader sees a
/// transfer on one account only while both its grants count.
/// </summary>
[Collection(FaultGroup.Name)]
public sealed class ActivationFenceTests(FaultClusterFixture fixture)
{
    private TimeSpan Bound => (8 * fixture.Lease) + TimeSpan.FromSeconds(10);

    [Fact]
    public async Task A_new_activation_answers_only_after_its_fence_so_its_predecessors_late_commit_write_cannot_split_a_reader()
    {
        const string Scenario = "late write of a dead coordinator, new activation's first write held";
        TestCluster cluster = fixture.Cluster;
        (Ledger ledger, SiloHandle victim, WriteFault late) = await DeadCoordinator.HoldCommitAsync(fixture, "fence1", Bound);

        // a's next write is held too: it can only be its new activation's (the dead one's writes go one at a time, and
        // the commit write is in flight), whatever makes it first: the fence at activation, or (without it) the fence
        // before the answer to b's vote.
        WriteFault first = StoreFaults.Arm(fixture.GrainOf(ledger.Key("a")), _ => true, FaultKind.Hold, TimeSpan.Zero);
        await cluster.KillSiloAsync(victim);
        try
        {
            // A reader of both accounts. With the fence, a's new activation answers nothing before its first write lands,
            // so the reader cannot run while that write is held; without it, the reader runs on what the new activation
            // read, while the dead one's write is still in flight. It is given a lease to run.
            BocCluster reader = fixture.NewSpawner();
            var ran = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            Task<(bool OnA, bool OnB, long Total)> read = reader.WhenAsync(
                BocCluster.Read(reader.Cown<LedgerAccount>(ledger.Key("a"))),
                BocCluster.Read(reader.Cown<LedgerAccount>(ledger.Key("b"))),
                (a, b) =>
                {
                    ran.TrySetResult();
                    return (a.Transfers.Contains(1), b.Transfers.Contains(1), a.Balance + b.Balance);
                });
            await Task.WhenAny(first.Hit.Task, ran.Task).WaitAsync(Bound);
            await Task.WhenAny(ran.Task, Task.Delay(fixture.Lease));
            if (ran.Task.IsCompleted)
            {
                // The reader ran before any write of the new activation landed (which the fence forbids): let its release
                // at a be answered, as it would be before a slow write lands, so the outcome does not hang on that race.
                ClusterCown<LedgerAccount> a = fixture.Boc.Cown<LedgerAccount>(ledger.Key("a"));
                long deadline = Environment.TickCount64 + (long)Bound.TotalMilliseconds;
                while ((await fixture.Boc.InspectAsync(a)).Requests.Count > 0 && Environment.TickCount64 < deadline)
                {
                    await Task.Delay(20);
                }
            }

            // The dead activation's write reaches storage now, then the new activation's.
            late.Released.TrySetResult();
            await late.Outcome.Task.WaitAsync(Bound);
            first.Released.TrySetResult();
            (bool onA, bool onB, long total) = await read.WaitAsync(Bound);

            await ledger.AssertGrantedAgainAsync(Scenario, Bound, "a", "b");
            ledger.AssertConsistent(Scenario, "a", "b");
            Assert.True(onA == onB && total == 200, $"{Scenario}: a reader saw the transfer on {(onA ? "a" : "b")} only (total {total})");
        }
        finally
        {
            late.Released.TrySetResult();
            first.Released.TrySetResult();
            StoreFaults.Disarm(first);
            await cluster.StartAdditionalSiloAsync();
        }
    }
}
