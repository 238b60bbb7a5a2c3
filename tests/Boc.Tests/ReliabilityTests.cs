
namespace Boc.Tests;

/// <summary>
/// Regression tests for issue 10: misuse that used to hang or corrupt the runtime must fail the misuser with an
/// exception, and leave the runtime usable for everyone else.
/// </summary>
public sealed class ReliabilityTests
{
    private sealed class Counter
    {
        public int Value;
    }

    public enum SelfWait
    {
        Dispose,
        DisposeAsync,
        WaitForQuiescence,
    }

    public static TheoryData<BocDispatcher, SelfWait> SelfWaits()
    {
        var data = new TheoryData<BocDispatcher, SelfWait>();
        foreach (BocDispatcher dispatcher in new[] { BocDispatcher.ThreadPool, BocDispatcher.BocScheduler })
        {
            foreach (SelfWait wait in Enum.GetValues<SelfWait>())
            {
                data.Add(dispatcher, wait);
            }
        }

        return data;
    }

    private static async Task WaitForSelf(BocRuntime runtime, SelfWait wait)
    {
        switch (wait)
        {
            case SelfWait.Dispose:
                runtime.Dispose();
                break;
            case SelfWait.DisposeAsync:
                await runtime.DisposeAsync();
                break;
            default:
                await runtime.WaitForQuiescenceAsync();
                break;
        }
    }

    [Theory]
    [MemberData(nameof(SelfWaits))]
    public async Task AnAsyncBody_WaitingForItsOwnRuntimeAfterAnAwait_Throws(BocDispatcher dispatcher, SelfWait wait)
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var counter = new Cown<Counter>(new Counter());

        // After the await the body runs as a continuation, on whatever thread: only the behaviour's async context
        // still says that this code is a body of the runtime it would wait for.
        ValueTask body = runtime.WhenAsync(counter, async c =>
        {
            await Task.Yield();
            c.Value++;
            await WaitForSelf(runtime, wait);
        });

        await Assert.ThrowsAsync<InvalidOperationException>(() => body.Guard());

        // The failed attempt did not stop the runtime: it still accepts and runs behaviours, then drains.
        Assert.Equal(2, await runtime.WhenAsync(counter, c => ++c.Value).Guard());
        await runtime.DisposeAsync().AsTask().Guard();
    }

    [Theory]
    [MemberData(nameof(SelfWaits))]
    public async Task ASynchronousBody_WaitingForItsOwnRuntime_Throws(BocDispatcher dispatcher, SelfWait wait)
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var counter = new Cown<Counter>(new Counter());
        Exception? caught = await runtime.WhenAsync(counter, c =>
        {
            try
            {
                // The guard must fail the wait at once: a task that waited would never end while this body runs.
                Task waiting = WaitForSelf(runtime, wait);
                return waiting.IsFaulted ? waiting.Exception!.InnerException : null;
            }
            catch (Exception e)
            {
                return e;
            }
        }).Guard();

        Assert.IsType<InvalidOperationException>(caught);
        await runtime.DisposeAsync().AsTask().Guard();
    }

    [Fact]
    public async Task AnotherRuntimesBody_MayWaitForThisOne()
    {
        // The guard is about waiting for oneself: a body of runtime A waiting for runtime B's quiescence is fine.
        await using var a = new BocRuntime();
        var b = new BocRuntime();
        var counter = new Cown<Counter>(new Counter());
        b.When(counter, c => c.Value++);
        await a.WhenAsync(async () =>
        {
            await Task.Yield();
            await b.WaitForQuiescenceAsync();
            await b.DisposeAsync();
        }).Guard();
        await using var other = new BocRuntime();
        Assert.Equal(1, await other.WhenAsync(counter, c => c.Value).Guard());
    }

    [Fact]
    public async Task CodeStartedByABodyThatOutlivesIt_IsNotTakenForTheBody()
    {
        // A task started inside an async body inherits the body's async context; once the body has finished, that
        // task is not part of any behaviour and may dispose the runtime.
        var runtime = new BocRuntime();
        var bodyDone = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task? outliving = null;
        await runtime.WhenAsync(async () =>
        {
            await Task.Yield();
            outliving = Task.Run(async () =>
            {
                await bodyDone.Task;
                await runtime.DisposeAsync();
            });
        }).Guard();
        bodyDone.SetResult();
        await outliving!.Guard();
    }
}
