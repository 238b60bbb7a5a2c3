namespace Boc.Orleans.Tests;

/// <summary>
/// A behaviour spawned with an idempotency key commits at most once per key at its coordinator (within the retention),
/// and its outcome can be looked up by key: what a caller needs to retry after an unknown outcome.
/// </summary>
[Collection(FaultGroup.Name)]
public sealed class IdempotencyTests(FaultClusterFixture fixture)
{
    private readonly string _prefix = $"idem-{Guid.NewGuid():N}-";

    [Fact]
    public async Task A_second_spawn_with_a_committed_key_is_not_run_and_the_lookup_says_committed()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "a");
        ClusterCown<Account> b = boc.Cown<Account>(_prefix + "b");
        Assert.Equal(ClusterOutcome.NotCommitted, await boc.GetOutcomeAsync(a, "t-1"));

        await boc.WithIdempotencyKey("t-1").WhenAsync(a, b, (x, y) => { x.Balance -= 10; y.Balance += 10; });
        var duplicate = await Assert.ThrowsAsync<BocClusterDuplicateException>(
            () => boc.WithIdempotencyKey("t-1").WhenAsync(a, b, (x, y) => { x.Balance -= 10; y.Balance += 10; }));
        Assert.Equal("t-1", duplicate.IdempotencyKey);

        // Another key runs; the duplicate's writes (and its prepared value at b) were dropped.
        await boc.WithIdempotencyKey("t-2").WhenAsync(a, b, (x, y) => { x.Balance -= 1; y.Balance += 1; });
        Assert.Equal((-11L, 11L), await boc.WhenAsync(BocCluster.Read(a), BocCluster.Read(b), (x, y) => (x.Balance, y.Balance)));
        Assert.Equal(ClusterOutcome.Committed, await boc.GetOutcomeAsync(a, "t-1"));
        Assert.Equal(ClusterOutcome.Committed, await boc.GetOutcomeAsync(a, "t-2"));
        Assert.Equal(ClusterOutcome.NotCommitted, await boc.GetOutcomeAsync(a, "t-3"));
    }

    [Fact]
    public async Task A_key_of_a_behaviour_still_waiting_for_its_coordinator_looks_up_as_pending()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "p");
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var entered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task holder = boc.WithIdempotencyKey("held").WhenAsync(a, async x =>
        {
            entered.TrySetResult();
            await gate.Task;
            x.Balance = 1;
        });
        await entered.Task;
        Assert.Equal(ClusterOutcome.Pending, await boc.GetOutcomeAsync(a, "held"));
        gate.TrySetResult();
        await holder;
        Assert.Equal(ClusterOutcome.Committed, await boc.GetOutcomeAsync(a, "held"));
    }

    [Fact]
    public async Task Bad_keys_and_foreign_cowns_are_refused_before_anything_is_sent()
    {
        IBocCluster boc = fixture.Boc;
        Assert.Throws<ArgumentException>(() => boc.WithIdempotencyKey(""));
        await Assert.ThrowsAsync<ArgumentException>(() => boc.GetOutcomeAsync(boc.Cown<Account>(_prefix + "x"), ""));
        await Assert.ThrowsAsync<ArgumentNullException>(() => boc.GetOutcomeAsync<Account>(null!, "k"));
    }
}
