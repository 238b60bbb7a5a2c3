namespace Boc.Orleans.Tests;

/// <summary>
/// A body that awaits a behaviour needing one of its own cowns would wait forever (the behaviour is queued behind the
/// body, and the spawner renews the body's leases as long as it runs). WhenAsync refuses such a spawn at once, before
/// anything is sent, in the body's own process and through a grain the body calls.
/// </summary>
[Collection(FaultGroup.Name)]
public sealed class SelfWaitTests(FaultClusterFixture fixture)
{
    private readonly string _prefix = $"selfwait-{Guid.NewGuid():N}-";

    [Fact]
    public async Task A_body_awaiting_a_behaviour_on_its_own_cown_gets_an_exception_at_once_and_the_cown_is_free_after()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "a");
        var thrown = await Assert.ThrowsAsync<InvalidOperationException>(() => boc.WhenAsync(a, async x =>
        {
            x.Balance = 1;
            await boc.WhenAsync(BocCluster.Read(a), y => y.Balance);
        }).WaitAsync(TimeSpan.FromMinutes(1)));
        Assert.Contains("holds", thrown.Message, StringComparison.Ordinal);

        // The outer body threw, so nothing was written, and the refused spawn left nothing queued.
        Assert.Equal(0, await boc.WhenAsync(BocCluster.Read(a), y => y.Balance).WaitAsync(TimeSpan.FromMinutes(1)));
    }

    [Fact]
    public async Task A_reader_may_spawn_a_reader_of_its_cown_and_a_body_may_spawn_on_other_cowns()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "ra");
        ClusterCown<Account> b = boc.Cown<Account>(_prefix + "rb");
        long inner = await boc.WhenAsync(BocCluster.Read(a), async x => await boc.WhenAsync(BocCluster.Read(a), y => y.Balance + 1));
        Assert.Equal(1, inner);
        await boc.WhenAsync(a, async x =>
        {
            x.Balance = 5;
            await boc.WhenAsync(b, y => { y.Balance = 6; });
        });
        Assert.Equal((5L, 6L), await boc.WhenAsync(BocCluster.Read(a), BocCluster.Read(b), (x, y) => (x.Balance, y.Balance)));
    }

    [Fact]
    public async Task A_body_calling_a_grain_that_spawns_on_the_bodys_cown_gets_the_grains_exception_at_once()
    {
        IBocCluster boc = fixture.Boc;
        string key = _prefix + "g";
        ClusterCown<Account> a = boc.Cown<Account>(key);
        ISpawningGrain grain = fixture.Cluster.Client.GetGrain<ISpawningGrain>(_prefix);
        var thrown = await Assert.ThrowsAsync<InvalidOperationException>(() => boc.WhenAsync(a, async _ => await grain.IncrementAsync(key)).WaitAsync(TimeSpan.FromMinutes(1)));
        Assert.Contains("holds", thrown.Message, StringComparison.Ordinal);

        // Outside a body the same grain call works.
        await grain.IncrementAsync(key);
        Assert.Equal(1, await boc.WhenAsync(BocCluster.Read(a), y => y.Balance));
    }
}

/// <summary>A grain that spawns a behaviour from the silo: a body that calls it carries its held cowns in the call.</summary>
public interface ISpawningGrain : IGrainWithStringKey
{
    Task IncrementAsync(string key);
}

public sealed class SpawningGrain(IBocCluster boc) : Grain, ISpawningGrain
{
    public Task IncrementAsync(string key) => boc.WhenAsync(boc.Cown<Account>(key), a => { a.Balance++; });
}
