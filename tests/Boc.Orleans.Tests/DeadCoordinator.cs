using Boc.Orleans.Grains;
using Orleans.TestingHost;

namespace Boc.Orleans.Tests;

/// <summary>
/// The setup the fence tests share: a transfer (id 1, a to b, coordinated by a) whose coordinator's commit write is in
/// flight (held) when the coordinator's silo dies, with its spawner dead after sending the commit; b has prepared and
/// voted. The coordinator lives on a secondary silo (killing the primary ends the test cluster's membership).
/// </summary>
internal sealed record DeadCoordinator(Ledger Ledger, SiloHandle Victim, WriteFault Late)
{
    /// <summary>Sets the transfer up and holds its commit write; the silo is not killed yet.</summary>
    public static async Task<DeadCoordinator> HoldCommitAsync(FaultClusterFixture fixture, string prefix, TimeSpan bound)
    {
        Ledger ledger;
        SiloHandle victim;
        int tries = 0;
        while (true)
        {
            ledger = new Ledger(fixture, $"{prefix}-{Guid.NewGuid():N}-", 100);
            await ledger.OpenAsync("a", "b");
            victim = await fixture.SiloOfAsync(ledger.Key("a"));
            if (victim != fixture.Cluster.Primary)
            {
                break;
            }

            Assert.True(++tries < 20, "no cown landed on a secondary silo in 20 tries");
        }

        WriteFault late = StoreFaults.Arm(fixture.GrainOf(ledger.Key("a")), StoreFaults.HasCommit, FaultKind.Hold, TimeSpan.Zero);
        BocCluster spawner = fixture.NewSpawner();
        spawner.FaultHook = (step, _) => step == SpawnerStep.CommitSent ? throw new SpawnerCrashException(step) : Task.CompletedTask;
        await Assert.ThrowsAsync<SpawnerCrashException>(() => ledger.TransferAsync(spawner, 1, "a", "b", 10));
        await late.Hit.Task.WaitAsync(bound);
        return new DeadCoordinator(ledger, victim, late);
    }
}
