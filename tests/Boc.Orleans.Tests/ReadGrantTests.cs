using Orleans.TestingHost;

namespace Boc.Orleans.Tests;

/// <summary>
/// A read-only grant lasts for its whole body: a cown keeps its activation while it holds requests, and a body that ran
/// on a grant its cown can no longer vouch for (the activation died with its silo) is never counted: it is run again.
/// The oracle is an owner marker: no writer's body may run while a reader's counted run is inside its body.
/// </summary>
[Collection(FaultGroup.Name)]
public sealed class ReadGrantTests(FaultClusterFixture fixture)
{
    [Fact]
    public async Task A_reader_keeps_its_grant_when_idle_activations_are_collected_so_no_writer_runs_inside_its_body()
    {
        var ledger = new Ledger(fixture, $"collect-{Guid.NewGuid():N}-", 100);
        await ledger.OpenAsync("r");
        BocCluster readers = fixture.NewSpawner();
        BocCluster writers = fixture.NewSpawner();
        var entered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var leave = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        int readersInside = 0;
        bool writerRanInside = false;
        Task<long> reader = readers.WhenAsync(BocCluster.Read(readers.Cown<LedgerAccount>(ledger.Key("r"))), async a =>
        {
            Interlocked.Increment(ref readersInside);
            entered.TrySetResult();
            await leave.Task;
            Interlocked.Decrement(ref readersInside);
            return a.Balance;
        });
        await entered.Task;

        // Collect every idle activation: the cown is idle (nothing calls it while the body runs) but holds a request.
        await fixture.Cluster.Client.GetGrain<IManagementGrain>(0).ForceActivationCollection(TimeSpan.Zero);
        Task writer = writers.WhenAsync(writers.Cown<LedgerAccount>(ledger.Key("r")), a =>
        {
            writerRanInside |= Volatile.Read(ref readersInside) > 0;
            a.Balance += 1;
        });
        Task first = await Task.WhenAny(writer, Task.Delay(3 * fixture.Lease));
        leave.TrySetResult();
        await Task.WhenAll(reader, writer);

        Assert.False(first == writer, "the writer completed while the reader was still inside its body");
        Assert.False(writerRanInside, "the writer's body ran while the reader's body was inside");
        Assert.Equal(100, await reader);
    }

    [Fact]
    public async Task A_reader_whose_cowns_silo_dies_mid_body_is_not_counted_and_runs_again_after_the_writer()
    {
        TestCluster cluster = fixture.Cluster;
        Ledger ledger;
        SiloHandle victim;
        int tries = 0;
        do
        {
            ledger = new Ledger(fixture, $"killread-{Guid.NewGuid():N}-", 100);
            await ledger.OpenAsync("r");
            victim = await fixture.SiloOfAsync(ledger.Key("r"));
            Assert.True(++tries < 20, "no cown landed on a secondary silo in 20 tries");
        }
        while (victim == cluster.Primary);

        BocCluster readers = fixture.NewSpawner();
        BocCluster writers = fixture.NewSpawner();
        var entered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var leave = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        int runs = 0;
        Task<long> reader = readers.WhenAsync(BocCluster.Read(readers.Cown<LedgerAccount>(ledger.Key("r"))), async a =>
        {
            if (Interlocked.Increment(ref runs) == 1)
            {
                entered.TrySetResult();
                await leave.Task;
            }

            return a.Balance;
        });
        await entered.Task;
        await cluster.KillSiloAsync(victim);
        try
        {
            // The cown's new activation does not know the reader: a writer is granted and commits while the first run
            // is still inside its body.
            await writers.WhenAsync(writers.Cown<LedgerAccount>(ledger.Key("r")), a => { a.Balance = 7; }).WaitAsync(TimeSpan.FromMinutes(1));
            leave.TrySetResult();

            // That run cannot be vouched for: the reader's answer comes from a run after the writer.
            Assert.Equal(7, await reader.WaitAsync(TimeSpan.FromMinutes(1)));
            Assert.True(runs >= 2, $"the reader's body ran {runs} times: its unvalidated run was counted");
        }
        finally
        {
            leave.TrySetResult();
            await cluster.StartAdditionalSiloAsync();
        }
    }
}
