namespace Boc.Tests;

public sealed class ShutdownTests
{
    private sealed class Counter
    {
        public int Value;
    }

    [Theory]
    [InlineData(BocDispatcher.ThreadPool)]
    [InlineData(BocDispatcher.BocScheduler)]
    public async Task ACanceledShutdown_ReportsWhatIsPending_AndALaterOneDrains(BocDispatcher dispatcher)
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var counter = new Cown<Counter>(new Counter());
        using var gate = new ManualResetEventSlim();

        // One body that does not end until the gate opens, and ten behaviours queued behind it: eleven pending.
        runtime.When(counter, _ => gate.Wait());
        for (int i = 0; i < 10; i++)
        {
            runtime.When(counter, c => c.Value++);
        }

        using var cts = new CancellationTokenSource();
        Task shutdown = runtime.ShutdownAsync(cts.Token);
        Assert.Throws<ObjectDisposedException>(() => runtime.When(counter, c => c.Value++));
        await cts.CancelAsync();

        var canceled = await Assert.ThrowsAsync<BocShutdownCanceledException>(() => shutdown.Guard());
        Assert.Equal(11, canceled.PendingBehaviours);
        Assert.Equal(cts.Token, canceled.CancellationToken);
        Assert.Contains("11", canceled.Message, StringComparison.Ordinal);

        // Still shut to new work; the pending behaviours were not dropped: a second shutdown waits for them.
        Assert.Throws<ObjectDisposedException>(() => runtime.When(counter, c => c.Value++));
        gate.Set();
        await runtime.ShutdownAsync(CancellationToken.None).Guard();
        await using var other = new BocRuntime();
        Assert.Equal(10, await other.WhenAsync(counter, c => c.Value).Guard());
    }

    [Theory]
    [InlineData(BocDispatcher.ThreadPool)]
    [InlineData(BocDispatcher.BocScheduler)]
    public async Task AShutdown_ReleasesEveryProducerWaitingForRoom_AtOnce_WithTheRefusal(BocDispatcher dispatcher)
    {
        // Issue 39, item 4: a full runtime whose pending work never finishes during the shutdown (the body waits for a
        // gate that opens only at the end) must not keep its waiting producers blocked until room appears.
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher, MaxPendingBehaviours = 1, FullMode = BocFullMode.Wait });
        var counter = new Cown<Counter>(new Counter());
        using var gate = new ManualResetEventSlim();
        runtime.When(counter, _ => gate.Wait());

        Task blocked = Task.Factory.StartNew(() => runtime.When(counter, c => c.Value++), CancellationToken.None, TaskCreationOptions.LongRunning, TaskScheduler.Default);
        Task<int> blockedAsync = Task.Factory.StartNew(
            () => runtime.WhenAsync(counter, c => c.Value, CancellationToken.None).AsTask(),
            CancellationToken.None,
            TaskCreationOptions.LongRunning,
            TaskScheduler.Default).Unwrap();
        Task waiting = runtime.WaitForRoomAsync().AsTask();
        SpinWait.SpinUntil(() => runtime.RoomWaiters == 3 || blocked.IsCompleted || blockedAsync.IsCompleted);
        Assert.Equal(3, runtime.RoomWaiters);

        using var cts = new CancellationTokenSource();
        Task shutdown = runtime.ShutdownAsync(cts.Token);

        // Guarded: before the fix these stayed blocked until the gate opened, which never happens before they finish.
        await Assert.ThrowsAsync<ObjectDisposedException>(() => blocked.Guard());
        await Assert.ThrowsAsync<ObjectDisposedException>(() => blockedAsync.Guard());
        await waiting.Guard();
        Assert.Equal(0, runtime.RoomWaiters);
        Assert.False(shutdown.IsCompleted);

        gate.Set();
        await shutdown.Guard();
        await using var other = new BocRuntime();
        Assert.Equal(0, await other.WhenAsync(counter, c => c.Value).Guard());
    }

    [Fact]
    public async Task ShutdownOfADrainedRuntime_CompletesEvenWithACanceledToken()
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler });
        var counter = new Cown<Counter>(new Counter());
        Assert.Equal(1, await runtime.WhenAsync(counter, c => ++c.Value).Guard());
        await runtime.ShutdownAsync(new CancellationToken(canceled: true)).Guard();
        await runtime.DisposeAsync();
        Assert.Throws<ObjectDisposedException>(() => runtime.When(counter, c => c.Value++));
    }

    [Fact]
    public async Task Shutdown_ReportsExceptionsNobodyObserved()
    {
        var runtime = new BocRuntime();
        runtime.When(() => throw new InvalidOperationException("lost?"));
        var aggregate = await Assert.ThrowsAsync<AggregateException>(() => runtime.ShutdownAsync(CancellationToken.None).Guard());
        Assert.Equal("lost?", Assert.Single(aggregate.InnerExceptions).Message);
    }

    [Theory]
    [InlineData(BocDispatcher.ThreadPool)]
    [InlineData(BocDispatcher.BocScheduler)]
    public async Task Shutdown_FromABodyOfTheSameRuntime_Throws(BocDispatcher dispatcher)
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        await Assert.ThrowsAsync<InvalidOperationException>(() => runtime.WhenAsync(async () =>
        {
            await Task.Yield();
            await runtime.ShutdownAsync(CancellationToken.None);
        }).Guard());
        await runtime.ShutdownAsync(CancellationToken.None).Guard();
    }
}
