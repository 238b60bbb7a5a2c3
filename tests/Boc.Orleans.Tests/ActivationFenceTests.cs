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

    private static bool HasCommit(object record) => record is CownRecord<LedgerAccount> { Commits.Length: > 0 };

    [Fact]
    public async Task A_new_activation_answers_only_after_its_fence_so_its_predecessors_late_commit_write_cannot_split_a_reader()
    {
        const string Scenario = "late write of a dead coordinator, new activation's first write held";
        TestCluster cluster = fixture.Cluster;
        Ledger ledger;
        SiloHandle victim;
        int tries = 0;
        while (true)
        {
            // The coordinator must live on a secondary silo (killing the primary ends the test cluster's membership).
            ledger = new Ledger(fixture, $"fence1-{Guid.NewGuid():N}-", 100);
            await ledger.OpenAsync("a", "b");
            victim = await fixture.SiloOfAsync(ledger.Key("a"));
            if (victim != cluster.Primary)
            {
                break;
            }

            Assert.True(++tries < 20, "no cown landed on a secondary silo in 20 tries");
        }

        // The transfer's commit write at a is held (b has prepared and voted), and a's silo dies with it in flight.
        WriteFault late = StoreFaults.Arm(fixture.GrainOf(ledger.Key("a")), HasCommit, FaultKind.Hold, TimeSpan.Zero);
        BocCluster spawner = fixture.NewSpawner();
        spawner.FaultHook = (step, _) => step == SpawnerStep.CommitSent ? throw new SpawnerCrashException(step) : Task.CompletedTask;
        await Assert.ThrowsAsync<SpawnerCrashException>(() => ledger.TransferAsync(spawner, 1, "a", "b", 10));
        await late.Hit.Task.WaitAsync(Bound);
        await cluster.KillSiloAsync(victim);
        WriteFault first = StoreFaults.Arm(fixture.GrainOf(ledger.Key("a")), _ => true, FaultKind.Hold, TimeSpan.Zero);
        try
        {
            // A reader of both accounts meets a's new activation, whose first write is held: the fence at activation, or
            // (without it) the fence before its first negative answer.
            BocCluster reader = fixture.NewSpawner();
            Task<(bool OnA, bool OnB, long Total)> read = reader.WhenAsync(
                BocCluster.Read(reader.Cown<LedgerAccount>(ledger.Key("a"))),
                BocCluster.Read(reader.Cown<LedgerAccount>(ledger.Key("b"))),
                (a, b) => (a.Transfers.Contains(1), b.Transfers.Contains(1), a.Balance + b.Balance));
            await first.Hit.Task.WaitAsync(Bound);

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
