namespace Boc.Tests;

/// <summary>
/// Disposal after a <see cref="BocRuntime.ShutdownAsync(CancellationToken)"/> that gave up does not wait again: a host's
/// container disposes its runtime after the host's bounded drain, and an <c>await using</c> ends a bounded shutdown.
/// </summary>
public sealed class GivenUpShutdownTests
{
    private sealed class Counter
    {
        public int Value;
    }

    [Theory]
    [InlineData(BocDispatcher.ThreadPool, false)]
    [InlineData(BocDispatcher.BocScheduler, false)]
    [InlineData(BocDispatcher.ThreadPool, true)]
    [InlineData(BocDispatcher.BocScheduler, true)]
    public async Task Disposal_after_a_given_up_shutdown_returns_while_behaviours_are_pending_and_they_still_finish(BocDispatcher dispatcher, bool synchronous)
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var counter = new Cown<Counter>(new Counter());
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        runtime.When(counter, async c => { await gate.Task; c.Value++; });
        runtime.When(counter, c => c.Value++);

        await Assert.ThrowsAsync<BocShutdownCanceledException>(() => runtime.ShutdownAsync(new CancellationToken(canceled: true)).Guard());

        // Before the fix both forms waited for the gate, which opens only below: the guard failed.
        if (synchronous)
        {
            await Task.Run(runtime.Dispose).Guard();
        }
        else
        {
            await runtime.DisposeAsync().Guard();
        }

        Assert.False(gate.Task.IsCompleted);
        Assert.Throws<ObjectDisposedException>(() => runtime.When(counter, c => c.Value++));

        // Given up on, not dropped: the pending behaviours finish, and a later shutdown waits for them.
        gate.SetResult();
        await runtime.ShutdownAsync(CancellationToken.None).Guard();
        await using var other = new BocRuntime();
        Assert.Equal(2, await other.WhenAsync(counter, c => c.Value).Guard());
    }

    [Fact]
    public async Task Disposal_of_a_drained_runtime_after_a_given_up_shutdown_reports_unobserved_exceptions_as_before()
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.ThreadPool });
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        runtime.When(async () => { await gate.Task; throw new InvalidOperationException("late"); });
        await Assert.ThrowsAsync<BocShutdownCanceledException>(() => runtime.ShutdownAsync(new CancellationToken(canceled: true)).Guard());
        gate.SetResult();
        // Quiescent by the time of the wait below: disposal goes the usual way and reports the failure nobody observed.
        await SpinUntilQuiescent(runtime).Guard();
        var error = await Assert.ThrowsAsync<AggregateException>(() => runtime.DisposeAsync().Guard());
        Assert.Equal("late", Assert.Single(error.InnerExceptions).Message);
    }

    private static async Task SpinUntilQuiescent(BocRuntime runtime)
    {
        while (runtime.PendingCount != 0)
        {
            await Task.Yield();
        }
    }
}
