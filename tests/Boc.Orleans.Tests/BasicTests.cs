using Microsoft.Extensions.DependencyInjection;
using Orleans.TestingHost;

namespace Boc.Orleans.Tests;

[Collection(ClusterGroup.Name)]
public sealed class BasicTests(ClusterFixture fixture)
{
    private readonly string _prefix = "basic-" + Guid.NewGuid().ToString("N")[..8] + "-";

    [Fact]
    public async Task A_write_is_seen_by_the_next_behaviour_and_a_never_written_cown_holds_new_T()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "a");
        Assert.Equal(0, await boc.WhenAsync(BocCluster.Read(a), x => x.Balance));
        await boc.WhenAsync(a, x => { x.Balance = 5; });
        Assert.Equal(5, await boc.WhenAsync(BocCluster.Read(a), x => x.Balance));
    }

    [Fact]
    public async Task Writes_through_a_read_only_acquisition_are_discarded()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "a");
        await boc.WhenAsync(a, x => { x.Balance = 3; });
        await boc.WhenAsync(BocCluster.Read(a), x => { x.Balance = 99; });
        Assert.Equal(3, await boc.WhenAsync(BocCluster.Read(a), x => x.Balance));
    }

    [Fact]
    public async Task A_throwing_body_leaves_every_state_unchanged_surfaces_its_exception_and_releases_the_cowns()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "a");
        ClusterCown<Account> b = boc.Cown<Account>(_prefix + "b");
        await boc.WhenAsync(a, b, (x, y) => { x.Balance = 10; y.Balance = 20; });

        var thrown = await Assert.ThrowsAsync<InvalidOperationException>(() => boc.WhenAsync(a, b, (x, y) =>
        {
            x.Balance = 1000;
            y.Balance = -1000;
            throw new InvalidOperationException("boom");
        }));
        Assert.Equal("boom", thrown.Message);

        // Released (the next behaviour runs) and unchanged.
        Assert.Equal((10L, 20L), await boc.WhenAsync(a, b, (x, y) => (x.Balance, y.Balance)));
    }

    [Fact]
    public async Task A_duplicate_cown_is_acquired_once_as_a_write_if_any_occurrence_writes()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "a");
        bool same = await boc.WhenAsync(a, BocCluster.Read(a), (x, y) =>
        {
            x.Balance++;
            return ReferenceEquals(x, y);
        });
        Assert.True(same);
        Assert.Equal(1, await boc.WhenAsync(BocCluster.Read(a), x => x.Balance));
    }

    [Fact]
    public async Task Three_cowns_of_different_types_are_committed_together()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "a");
        ClusterCown<Probe> p = boc.Cown<Probe>(_prefix + "p");
        ClusterCown<Account> c = boc.Cown<Account>(_prefix + "c");
        await boc.WhenAsync(a, p, c, (x, q, z) =>
        {
            x.Balance = 1;
            q.Writers.Add(7);
            z.Balance = 2;
        });
        (long, int, long) seen = await boc.WhenAsync(BocCluster.Read(a), BocCluster.Read(p), BocCluster.Read(c), (x, q, z) => (x.Balance, q.Writers.Single(), z.Balance));
        Assert.Equal((1L, 7, 2L), seen);
    }

    [Fact]
    public async Task An_async_body_binds_to_the_async_overload_and_keeps_its_cowns_until_its_task_completes()
    {
        BocCluster boc = fixture.NewSpawner();
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "a");

        // Spawned first from the same spawner, so it is ahead of the read on the cown; the write after the await is
        // seen only if the cown was held until the body's task completed (an async lambda bound to the synchronous
        // result overload would commit before the write).
        Task first = boc.WhenAsync(a, async x =>
        {
            await Task.Delay(20);
            x.Balance = 7;
        });
        Task<long> second = boc.WhenAsync(BocCluster.Read(a), async x =>
        {
            await Task.Yield();
            return x.Balance;
        });
        await first;
        Assert.Equal(7, await second);
    }

    [Fact]
    public async Task A_list_of_cowns_gives_the_body_their_states_in_argument_order()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account>[] cowns = [.. Enumerable.Range(0, 5).Select(i => boc.Cown<Account>(_prefix + "l" + i))];
        await boc.WhenAsync(cowns, states =>
        {
            for (int i = 0; i < states.Count; i++)
            {
                states[i].Balance = i * 10;
            }
        });
        long[] seen = await boc.WhenAsync([.. cowns.Select(c => (ClusterAcquirable<Account>)BocCluster.Read(c))], states => states.Select(s => s.Balance).ToArray());
        Assert.Equal([0L, 10, 20, 30, 40], seen);
    }

    [Fact]
    public async Task A_silo_hosted_spawner_and_a_client_spawner_share_the_same_cowns()
    {
        var primary = (InProcessSiloHandle)fixture.Cluster.Primary!;
        IBocCluster onSilo = primary.SiloHost.Services.GetRequiredService<IBocCluster>();
        await onSilo.WhenAsync(onSilo.Cown<Account>(_prefix + "shared"), x => { x.Balance = 42; });
        IBocCluster onClient = fixture.Boc;
        Assert.Equal(42, await onClient.WhenAsync(BocCluster.Read(onClient.Cown<Account>(_prefix + "shared")), x => x.Balance));
    }
}
