namespace Boc.Orleans.Tests;

/// <summary>
/// A cluster WhenAsync canceled before it holds its cowns is withdrawn: its body never runs, nothing is written, and
/// the behaviours behind it run in their order. Once the body has started, the token no longer matters.
/// </summary>
[Collection(FaultGroup.Name)]
public sealed class ClusterCancellationTests(FaultClusterFixture fixture)
{
    private readonly string _prefix = $"cancel-{Guid.NewGuid():N}-";

    [Fact]
    public async Task A_spawn_canceled_while_queued_is_withdrawn_and_the_ones_behind_it_run_in_order()
    {
        BocCluster boc = fixture.NewSpawner();
        ClusterCown<Probe> c = boc.Cown<Probe>(_prefix + "c");
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var entered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task first = boc.WhenAsync(c, async p =>
        {
            entered.TrySetResult();
            await gate.Task;
            p.Writers.Add(1);
        });
        await entered.Task;

        using var cts = new CancellationTokenSource();
        bool ran = false;
        Task canceled = boc.WhenAsync(c, p => { ran = true; p.Writers.Add(2); }, cts.Token);
        Task third = boc.WhenAsync(c, p => p.Writers.Add(3));
        await Task.Delay(fixture.Lease / 2);
        await cts.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => canceled.WaitAsync(TimeSpan.FromMinutes(1)));
        gate.TrySetResult();
        await Task.WhenAll(first, third).WaitAsync(TimeSpan.FromMinutes(1));

        Assert.False(ran);
        Assert.Equal([1, 3], await boc.WhenAsync(BocCluster.Read(c), p => p.Writers.ToList()));
    }

    [Fact]
    public async Task A_token_canceled_after_the_body_started_does_not_stop_the_commit()
    {
        BocCluster boc = fixture.NewSpawner();
        ClusterCown<Probe> c = boc.Cown<Probe>(_prefix + "d");
        using var cts = new CancellationTokenSource();
        await boc.WhenAsync(c, async p =>
        {
            await cts.CancelAsync();
            p.Writers.Add(1);
        }, cts.Token);
        Assert.Equal([1], await boc.WhenAsync(BocCluster.Read(c), p => p.Writers.ToList()));
    }

    [Fact]
    public async Task A_token_canceled_before_the_call_refuses_the_spawn()
    {
        BocCluster boc = fixture.NewSpawner();
        ClusterCown<Probe> c = boc.Cown<Probe>(_prefix + "e");
        using var cts = new CancellationTokenSource();
        await cts.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => boc.WhenAsync(c, p => p.Writers.Add(1), cts.Token));
        Assert.Empty(await boc.WhenAsync(BocCluster.Read(c), p => p.Writers.ToList()));
    }
}
