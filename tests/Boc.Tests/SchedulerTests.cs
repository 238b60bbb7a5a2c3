using System.Collections.Concurrent;
using System.Reflection;

namespace Boc.Tests;

/// <summary>BocScheduler as a TaskScheduler, its idle/wake protocol, fairness, and shutdown.</summary>
public sealed class SchedulerTests
{
    private sealed class Counter
    {
        public int Value;
    }

    private static bool OnWorker() => Thread.CurrentThread.Name?.StartsWith("Boc worker", StringComparison.Ordinal) == true;

    [Fact]
    public async Task StartNew_RunsOnAWorker_AndTaskSchedulerCurrentIsTheScheduler()
    {
        using var scheduler = new BocScheduler(2);
        (bool onWorker, TaskScheduler current) = await Task.Factory.StartNew(
            () => (OnWorker(), TaskScheduler.Current), CancellationToken.None, TaskCreationOptions.None, scheduler).Guard();
        Assert.True(onWorker);
        Assert.Same(scheduler, current);
        Assert.Equal(2, scheduler.MaximumConcurrencyLevel);
    }

    [Fact]
    public async Task AwaitInsideABehaviourBody_ResumesOnTheRuntimesWorkers()
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler, WorkerCount = 2 });
        var counter = new Cown<Counter>(new Counter());
        bool[] onWorker = await runtime.WhenAsync(counter, async c =>
        {
            bool before = OnWorker();
            await Task.Delay(1);     // completes on a timer thread; the continuation is posted back
            bool afterDelay = OnWorker();
            await Task.Yield();
            return new[] { before, afterDelay, OnWorker() };
        }).Guard();
        Assert.Equal([true, true, true], onWorker);
        Assert.IsType<BocScheduler>(runtime.Scheduler);
    }

    [Fact]
    public async Task TryExecuteTaskInline_InlinesOnlyOnItsOwnWorkers()
    {
        using var scheduler = new BocScheduler(2);

        // On a worker: RunSynchronously asks the scheduler to inline, and it does (same thread).
        bool sameThread = await Task.Factory.StartNew(() =>
        {
            int outer = Environment.CurrentManagedThreadId;
            int inner = -1;
            var task = new Task(() => inner = Environment.CurrentManagedThreadId);
            task.RunSynchronously(scheduler);
            return inner == outer;
        }, CancellationToken.None, TaskCreationOptions.None, scheduler).Guard();
        Assert.True(sameThread);

        // From another thread: it refuses, so the task is queued and runs on a worker instead.
        int runner = -1;
        var outside = new Task(() => runner = Environment.CurrentManagedThreadId);
        outside.RunSynchronously(scheduler);
        Assert.NotEqual(Environment.CurrentManagedThreadId, runner);
    }

    [Fact]
    public async Task GetScheduledTasks_ListsQueuedTasks()
    {
        using var scheduler = new BocScheduler(1);
        using var gate = new ManualResetEventSlim();
        Task blocker = Task.Factory.StartNew(() => gate.Wait(), CancellationToken.None, TaskCreationOptions.None, scheduler);
        Task[] queued = Enumerable.Range(0, 5)
            .Select(_ => Task.Factory.StartNew(() => { }, CancellationToken.None, TaskCreationOptions.None, scheduler))
            .ToArray();
        MethodInfo method = typeof(TaskScheduler).GetMethod("GetScheduledTasks", BindingFlags.Instance | BindingFlags.NonPublic)!;
        var listed = ((IEnumerable<Task>)method.Invoke(scheduler, null)!).ToArray();
        gate.Set();
        await Task.WhenAll([blocker, .. queued]).Guard();
        Assert.All(queued, t => Assert.Contains(t, listed));
    }

    [Fact]
    public async Task IdleBurstIdleCycles_NeverLoseAWakeUp()
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler, WorkerCount = 2 });
        var scheduler = (BocScheduler)runtime.Scheduler;
        var cowns = Enumerable.Range(0, 8).Select(_ => new Cown<Counter>(new Counter())).ToArray();
        int expected = 0;
        for (int cycle = 0; cycle < 60; cycle++)
        {
            // Idle: wait until both workers have parked (a lost wake-up would strand the burst below).
            await WaitUntil(() => scheduler.Sleepers == 2).Guard();

            // Burst from outside the workers, with nested spawns from inside; sizes vary, down to a single behaviour.
            int burst = cycle % 7 == 0 ? 1 : 50 * (cycle % 5);
            for (int i = 0; i < burst; i++)
            {
                Cown<Counter> next = cowns[(i + 1) % cowns.Length];
                runtime.When(cowns[i % cowns.Length], c =>
                {
                    c.Value++;
                    runtime.When(next, n => n.Value++);
                });
            }

            expected += 2 * burst;
            await runtime.WaitForQuiescenceAsync().Guard();
        }

        int total = 0;
        foreach (Cown<Counter> c in cowns)
        {
            total += await runtime.WhenAsync(c, x => x.Value).Guard();
        }

        Assert.Equal(expected, total);

        static async Task WaitUntil(Func<bool> condition)
        {
            while (!condition())
            {
                await Task.Delay(1);
            }
        }
    }

    [Theory]
    [InlineData(-1, 0, false)] // no spinner has recorded a processor yet
    [InlineData(-1, -1, false)]
    [InlineData(0, 0, true)]
    [InlineData(3, 3, true)]
    [InlineData(1, 0, false)]
    [InlineData(0, 1, false)]
    public void AnOutsideEnqueueDoesNotCountOnASpinner_OnlyWhenTheSpinnerLastRanOnItsProcessor(int spinner, int caller, bool shares)
    {
        // WakeOne wakes a sleeper despite a spinner exactly when this says they share a processor: a yielding spinner
        // there cannot look for the work until the enqueuing thread stops running (BocScheduler.WakeOne, remarks).
        Assert.Equal(shares, BocScheduler.ShareProcessor(spinner, caller));
    }

    [Fact]
    public async Task ABodyBlockingOnWorkItSpawned_IsRescuedByAnIdleWorker()
    {
        // The spawned behaviour lands in the blocked worker's next slot; the other worker must take it from there.
        // (Blocking in bodies is discouraged; this checks the scheduler does not hang when there is a free worker.)
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler, WorkerCount = 2 });
        var a = new Cown<Counter>(new Counter());
        var b = new Cown<Counter>(new Counter());
        int result = await runtime.WhenAsync(a, x =>
        {
            Task<int> inner = runtime.WhenAsync(b, y => ++y.Value).AsTask();
            return inner.Wait(Progress.Limit) ? inner.Result + 1 : -1;
        }).Guard();
        Assert.Equal(2, result);
    }

    [Fact]
    public async Task Dispose_DrainsThenStopsEveryWorkerThread_AndLaterTasksStillRun()
    {
        var scheduler = new BocScheduler(3);
        var ran = new ConcurrentBag<int>();
        Task[] queued = Enumerable.Range(0, 200)
            .Select(i => Task.Factory.StartNew(() => { Thread.SpinWait(100); ran.Add(i); }, CancellationToken.None, TaskCreationOptions.None, scheduler))
            .ToArray();
        scheduler.Dispose();
        Assert.All(scheduler.Threads, t => Assert.False(t.IsAlive, $"{t.Name} is still running"));
        await Task.WhenAll(queued).Guard();
        Assert.Equal(200, ran.Count);

        // After disposal, queued work goes to the .NET thread pool rather than being lost.
        bool onWorker = await Task.Factory.StartNew(OnWorker, CancellationToken.None, TaskCreationOptions.None, scheduler).Guard();
        Assert.False(onWorker);
        scheduler.Dispose(); // idempotent
    }

    [Fact]
    public async Task DisposingTheRuntime_StopsItsWorkers()
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler, WorkerCount = 2 });
        var scheduler = (BocScheduler)runtime.Scheduler;
        var counter = new Cown<Counter>(new Counter());
        for (int i = 0; i < 1_000; i++)
        {
            runtime.When(counter, c => c.Value++);
        }

        await runtime.DisposeAsync();
        Assert.All(scheduler.Threads, t => Assert.False(t.IsAlive, $"{t.Name} is still running"));
        await using var other = new BocRuntime();
        Assert.Equal(1_000, await other.WhenAsync(counter, c => c.Value).Guard());
    }

    [Fact]
    public async Task Dispose_FromAWorker_Throws()
    {
        using var scheduler = new BocScheduler(1);
        Exception? error = await Task.Factory.StartNew(
            () => Record.Exception(scheduler.Dispose), CancellationToken.None, TaskCreationOptions.None, scheduler).Guard();
        Assert.IsType<InvalidOperationException>(error);
        Assert.Throws<ArgumentOutOfRangeException>(() => new BocScheduler(0));
    }

    [Fact]
    public async Task LongRunningTasks_GetTheirOwnThread()
    {
        using var scheduler = new BocScheduler(1);
        bool onWorker = await Task.Factory.StartNew(OnWorker, CancellationToken.None, TaskCreationOptions.LongRunning, scheduler).Guard();
        Assert.False(onWorker);
    }
}
