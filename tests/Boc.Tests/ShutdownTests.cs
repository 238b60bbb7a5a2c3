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
