using System.Collections.Concurrent;

namespace Boc.Tests;

/// <summary>
/// Where a yielded run of appended bodies finishes, and when it yields to its own worker's queue
/// (<c>Appending/AppendableBehaviour.cs</c>, "Yielding"): the release runs on the worker that ran the rest, and a run
/// leaves its queued work to a peer that is free to steal it instead of yielding to it.
/// </summary>
public sealed class YieldedRunTests
{
    private const int FloodBodies = 1 + Behaviour.MaxAppended;

    private sealed class Counter
    {
        public int Value;
    }

    [Fact]
    public async Task AYieldedRun_IsReleasedOnTheWorkerThatRanItsRest_NotOnTheThreadPool()
    {
        // One worker; the slice at 0, so the flood yields at its first check to the behaviour its own body made ready.
        // The own body fails: its failure is reported by the release (Finish), so the handler runs where the release
        // does. That was a pool thread: the yielded run's task ran its continuation there, because a worker carries the
        // scheduler's synchronization context and the task would not run a continuation inline under it.
        // The public constructor: its runtime registers the release without the captured context, as users get it
        // (Boc.Testing's constructor asks for the captured context, under which .NET runs the release inline anyway).
        var reports = new ConcurrentQueue<(string Message, bool OnPool, int Thread)>();
        await using var runtime = new BocRuntime(new BocRuntimeOptions
        {
            WorkerCount = 1,
            UnhandledExceptionHandler = e => reports.Enqueue((e.Message, Thread.CurrentThread.IsThreadPoolThread, Environment.CurrentManagedThreadId)),
        });
        BocScheduler scheduler = runtime.BocSchedulerOrNull!;
        scheduler.Floods.SliceMilliseconds = 0;
        scheduler.Floods.InboxSliceTicks = 0;
        var flood = new Cown<Counter>(new Counter());
        var other = new Cown<Counter>(new Counter());
        int lastBodyThread = 0;

        using var holding = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        runtime.When(flood, _ =>
        {
            holding.Set();
            release.Wait();
        });
        Assert.True(holding.Wait(Progress.Limit), "the holder never started");
        for (int i = 0; i < FloodBodies; i++)
        {
            int index = i;
            runtime.When(flood, c =>
            {
                c.Value++;
                Volatile.Write(ref lastBodyThread, Environment.CurrentManagedThreadId);
                if (index == 0)
                {
                    runtime.When(other, o => o.Value++);
                    throw new InvalidOperationException("the own body failed");
                }
            });
        }

        release.Set();
        await runtime.WaitForQuiescenceAsync().Guard();

        Assert.True(scheduler.Floods.YieldedRuns >= 1, $"{scheduler.Floods.YieldedRuns} yields: the flood did not yield, so nothing was tested");
        Assert.Equal(FloodBodies, await runtime.WhenAsync(flood, c => c.Value).Guard());
        (string message, bool onPool, int thread) = Assert.Single(reports);
        Assert.Equal("the own body failed", message);
        Assert.False(onPool, "the yielded run was released on a thread-pool thread");
        Assert.Equal(Volatile.Read(ref lastBodyThread), thread);
    }

    [Fact]
    public async Task APeerOutsideABody_CanTakeQueuedWork()
    {
        // Two workers, one behaviour: the other worker has nothing to run (it spins or is parked), so it is free.
        using var scheduler = new BocScheduler(2, stuckCheck: false);
        await using var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, scheduler, TimeProvider.System);
        var cown = new Cown<Counter>(new Counter());

        bool free = await runtime.WhenAsync(cown, _ => scheduler.PeerCanTakeQueuedWork(BocThread.Current.Worker!)).Guard();

        Assert.True(free, "the idle peer was not seen as free");
    }

    [Fact]
    public async Task APeerInsideABody_CannotTakeQueuedWork()
    {
        // Two workers: one is held inside a body until the question has been asked on the other.
        using var scheduler = new BocScheduler(2, stuckCheck: false);
        await using var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, scheduler, TimeProvider.System);
        var held = new Cown<Counter>(new Counter());
        var asking = new Cown<Counter>(new Counter());
        using var holding = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        runtime.When(held, _ =>
        {
            holding.Set();
            release.Wait();
        });
        Assert.True(holding.Wait(Progress.Limit), "the holding body never started");

        bool free;
        try
        {
            free = await runtime.WhenAsync(asking, _ => scheduler.PeerCanTakeQueuedWork(BocThread.Current.Worker!)).Guard();
        }
        finally
        {
            release.Set();
        }

        Assert.False(free, "a peer blocked inside a body was seen as free");
    }

    [Fact]
    public async Task AFloodRun_WithItsPeerBusy_YieldsToItsOwnQueue()
    {
        // Two workers; the inbox slice at 0, the long slice never. The flood's own body makes two behaviours on idle
        // cowns ready: the second takes the next slot and the first moves to the worker's queue. With the peer held in a
        // body, nothing else can take the queued one, so the run yields at its first check and the queued work runs
        // before the rest of the flood. (The free-peer side is not asserted on a whole run: whether the peer has
        // stolen the queued behaviour by the check, or is inside it, is a race; PeerCanTakeQueuedWork's two tests
        // above pin the rule itself.)
        using var scheduler = new BocScheduler(2, stuckCheck: false) { Floods = { SliceMilliseconds = int.MaxValue, InboxSliceTicks = 0 } };
        await using var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, scheduler, TimeProvider.System);
        var flood = new Cown<Counter>(new Counter());
        var peer = new Cown<Counter>(new Counter());
        var first = new Cown<Counter>(new Counter());
        var second = new Cown<Counter>(new Counter());
        var order = new ConcurrentQueue<string>();

        using var peerHolding = new ManualResetEventSlim();
        using var peerRelease = new ManualResetEventSlim();
        using var holding = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        try
        {
            runtime.When(flood, _ =>
            {
                holding.Set();
                release.Wait();
            });
            Assert.True(holding.Wait(Progress.Limit), "the holder never started");
            runtime.When(peer, _ =>
            {
                peerHolding.Set();
                peerRelease.Wait();
            });
            Assert.True(peerHolding.Wait(Progress.Limit), "the peer's body never started");

            for (int i = 0; i < FloodBodies; i++)
            {
                int index = i;
                runtime.When(flood, _ =>
                {
                    order.Enqueue($"flood {index}");
                    if (index == 0)
                    {
                        runtime.When(first, _ => order.Enqueue("first"));
                        runtime.When(second, _ => order.Enqueue("second"));
                    }
                });
            }

            release.Set();
            await runtime.WhenAsync(flood, _ => 0).Guard();
        }
        finally
        {
            peerRelease.Set();
        }

        await runtime.WaitForQuiescenceAsync().Guard();
        List<string> seen = [.. order];
        List<string> floodOnly = [.. seen.Where(s => s.StartsWith("flood", StringComparison.Ordinal))];
        Assert.Equal(Enumerable.Range(0, FloodBodies).Select(i => $"flood {i}"), floodOnly);
        Assert.True(scheduler.Floods.YieldedRuns == 1, $"{scheduler.Floods.YieldedRuns} yields, expected 1: {string.Join(", ", seen)}");
        int firstAt = seen.IndexOf("first");
        Assert.True(firstAt >= 0 && firstAt < seen.IndexOf($"flood {FloodBodies - 1}"),
            $"the queued behaviour did not run before the rest of the flood: {string.Join(", ", seen)}");
    }
}
