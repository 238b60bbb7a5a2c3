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

    [Fact]
    public async Task A_spawn_canceled_while_waiting_for_an_earlier_spawns_enqueue_does_not_let_a_later_spawn_overtake_it()
    {
        // X, from another spawner, stays enqueued but unscheduled on d: b1 (over c, d, e) waits there for its
        // acknowledgement and has not reached e yet.
        BocCluster other = fixture.NewSpawner();
        var releaseX = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        other.FaultHook = (step, _) => step == SpawnerStep.Enqueued ? releaseX.Task : Task.CompletedTask;
        Task x = other.WhenAsync(other.Cown<Probe>(_prefix + "d"), p => p.Writers.Add(0));

        BocCluster boc = fixture.NewSpawner();
        ClusterCown<Probe> c = boc.Cown<Probe>(_prefix + "c"), d = boc.Cown<Probe>(_prefix + "d"), e = boc.Cown<Probe>(_prefix + "e");
        while ((await fixture.Boc.InspectAsync(fixture.Boc.Cown<Probe>(_prefix + "d"))).Requests.Count < 1)
        {
            await Task.Delay(20);
        }

        Task b1 = boc.WhenAsync(c, d, e, (_, _, z) => z.Writers.Add(1));
        while ((await fixture.Boc.InspectAsync(fixture.Boc.Cown<Probe>(_prefix + "d"))).Requests.Count < 2)
        {
            await Task.Delay(20);
        }

        // b2 waits for b1's enqueue phase (same spawner, shared e); b3 for b2's. b2 is canceled: b3 must still wait
        // for b1, or it would be enqueued on e ahead of b1, which was called first.
        using var cts = new CancellationTokenSource();
        Task b2 = boc.WhenAsync(e, z => z.Writers.Add(2), cts.Token);
        Task b3 = boc.WhenAsync(e, z => z.Writers.Add(3));
        await cts.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => b2.WaitAsync(TimeSpan.FromMinutes(1)));
        await Task.Delay(fixture.Lease / 2);
        releaseX.TrySetResult();
        await Task.WhenAll(x, b1, b3).WaitAsync(TimeSpan.FromMinutes(1));

        Assert.Equal([1, 3], await boc.WhenAsync(BocCluster.Read(e), p => p.Writers.ToList()));
    }
}
