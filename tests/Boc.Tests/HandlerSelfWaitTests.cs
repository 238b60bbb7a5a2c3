namespace Boc.Tests;

/// <summary>
/// Issue 39, item 3: user code the runtime runs on its own behalf (the unhandled-exception handler) must not be able to
/// wait for the runtime synchronously. The handler runs while the failed behaviour is still pending, so a blocking
/// <see cref="BocRuntime.Dispose"/> there would wait for itself: both dispatchers refuse it with the same clear error,
/// and the asynchronous shutdown started from a handler drains the runtime on both.
/// </summary>
public sealed class HandlerSelfWaitTests
{
    private sealed class Counter
    {
        public int Value;
    }

    [Theory]
    [InlineData(BocDispatcher.ThreadPool)]
    [InlineData(BocDispatcher.BocScheduler)]
    public async Task AHandlerThatDisposes_GetsTheSameClearError_OnEveryDispatcher_AndTheRuntimeStaysUsable(BocDispatcher dispatcher)
    {
        var outcome = new TaskCompletionSource<Exception?>(TaskCreationOptions.RunContinuationsAsynchronously);
        BocRuntime? runtime = null;
        runtime = new BocRuntime(new BocRuntimeOptions
        {
            Dispatcher = dispatcher,
            UnhandledExceptionHandler = _ =>
            {
                try
                {
                    runtime!.Dispose();
                    outcome.TrySetResult(null);
                }
                catch (Exception e)
                {
                    outcome.TrySetResult(e);
                }
            },
        });
        var counter = new Cown<Counter>(new Counter());

        runtime.When(counter, _ => throw new InvalidOperationException("first failure"));

        // Guard: a handler blocked in Dispose (the defect) never completes the outcome; the limit turns that hang into a
        // failure of this test rather than of the whole run.
        Exception? error = await outcome.Task.Guard();
        var refused = Assert.IsType<InvalidOperationException>(error);
        Assert.Contains("DisposeAsync", refused.Message, StringComparison.Ordinal);

        // Refused before anything changed: the runtime still accepts and runs work, then drains.
        Assert.Equal(1, await runtime.WhenAsync(counter, c => ++c.Value).Guard());
        await runtime.DisposeAsync().AsTask().Guard();
    }

    [Theory]
    [InlineData(BocDispatcher.ThreadPool, false)]
    [InlineData(BocDispatcher.BocScheduler, false)]
    [InlineData(BocDispatcher.ThreadPool, true)]
    [InlineData(BocDispatcher.BocScheduler, true)]
    public async Task AHandlerThatStartsAnAsynchronousShutdown_DrainsTheRuntime_OnEveryDispatcher(BocDispatcher dispatcher, bool asyncBody)
    {
        var shutdown = new TaskCompletionSource<Task>(TaskCreationOptions.RunContinuationsAsynchronously);
        BocRuntime? runtime = null;
        runtime = new BocRuntime(new BocRuntimeOptions
        {
            Dispatcher = dispatcher,
            UnhandledExceptionHandler = _ =>
            {
                try
                {
                    shutdown.TrySetResult(runtime!.ShutdownAsync(CancellationToken.None));
                }
                catch (Exception e)
                {
                    shutdown.TrySetException(e);
                }
            },
        });
        var counter = new Cown<Counter>(new Counter());

        // Work queued behind the failing behaviour is accepted before the shutdown begins, so the drain must run it. A
        // gate behaviour holds the cown until everything is queued: otherwise the failure (and the shutdown) could come
        // before the test has spawned the work behind it.
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        runtime.When(counter, async _ => await gate.Task);
        if (asyncBody)
        {
            runtime.When(counter, async _ =>
            {
                await Task.Yield();
                throw new InvalidOperationException("failure after an await");
            });
        }
        else
        {
            runtime.When(counter, _ => throw new InvalidOperationException("failure"));
        }

        for (int i = 0; i < 10; i++)
        {
            runtime.When(counter, c => c.Value++);
        }

        gate.SetResult();

        Task drain = await shutdown.Task.Guard();
        await drain.Guard();
        Assert.Throws<ObjectDisposedException>(() => runtime.When(counter, c => c.Value++));
        await using var other = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        Assert.Equal(10, await other.WhenAsync(counter, c => c.Value).Guard());
    }
}
