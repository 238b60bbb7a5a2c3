using Gate = Boc.Tests.BackpressureTests.Gate;

namespace Boc.Tests;

/// <summary>
/// Who is "inside" a bounded runtime, and so exempt from its bound: the continuations of an asynchronous body (by the
/// flow of the body, on any thread), and tasks on <see cref="BocRuntime.Scheduler"/> when that is the runtime's
/// <see cref="BocScheduler"/> (by the worker thread). And who is not: a task an asynchronous body started, once the
/// body has ended; a task a synchronous body started, even while the body runs; and tasks on
/// <see cref="BocRuntime.Scheduler"/> of a thread-pool runtime, which is just the thread pool. Every case
/// runs in <see cref="BocFullMode.Throw"/> mode on a full runtime, so a spawn that is not exempt throws at once
/// (rather than blocking the test).
/// </summary>
public sealed class BackpressureExemptionTests
{
    private const int Bound = 2;
    private const int Children = 50;

    [Fact]
    public async Task AsyncBodyContinuations_OffTheWorkers_AreExempt()
    {
        // The thread-pool dispatcher has no workers of its own: only the body's flow can make these spawns exempt.
        var runtime = New(BocDispatcher.ThreadPool);
        await using var drain = runtime.DrainOnExit();
        using var gate = new Gate();
        var cown = new Cown<int[]>(new int[1]);
        var resume = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        // Spawned while there is room; it resumes, on a pool thread, only once the runtime is full.
        Task<int> body = runtime.WhenAsync(async () =>
        {
            await resume.Task.ConfigureAwait(false);
            return SpawnChildren(runtime, cown);
        }).AsTask();
        Fill(runtime, gate, Bound - 1);
        resume.SetResult();

        Assert.Equal(Children, await body.Guard());
        gate.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(2 * Children, await runtime.WhenAsync(cown, c => c[0]).Guard());
    }

    [Fact]
    public async Task ATaskAnAsyncBodyStarted_IsBoundedOnceTheBodyHasEnded()
    {
        var runtime = New(BocDispatcher.ThreadPool);
        await using var drain = runtime.DrainOnExit();
        using var gate = new Gate();
        var cown = new Cown<int[]>(new int[1]);
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task? orphan = null;

        // The task inherits the body's flow, but the body ends without waiting for it.
        await runtime.WhenAsync(async () =>
        {
            orphan = Task.Run(async () =>
            {
                await release.Task;
                runtime.When(cown, c => c[0]++);
            });
            await Task.Yield();
        }).Guard();
        Fill(runtime, gate, Bound);
        release.SetResult();

        await Assert.ThrowsAsync<BocRuntimeFullException>(() => orphan!.Guard());
        Assert.Equal(Bound, runtime.PendingCount);
        gate.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(0, await runtime.WhenAsync(cown, c => c[0]).Guard());
    }

    [Fact]
    public async Task ATaskASynchronousBodyStarted_IsBoundedEvenWhileTheBodyRuns()
    {
        var runtime = New(BocDispatcher.ThreadPool);
        await using var drain = runtime.DrainOnExit();
        using var gate = new Gate();
        var cown = new Cown<int[]>(new int[1]);
        using var go = new ManualResetEventSlim();

        // The body waits (on an event, which never runs the task inline on the body's thread) for its task's spawn.
        Task<Exception?> body = runtime.WhenAsync(() =>
        {
            go.Wait();
            using var attempted = new ManualResetEventSlim();
            Exception? refused = null;
            _ = Task.Run(() =>
            {
                try
                {
                    runtime.When(cown, c => c[0]++);
                }
                catch (BocRuntimeFullException e)
                {
                    refused = e;
                }
                finally
                {
                    attempted.Set();
                }
            });
            attempted.Wait();
            return refused;
        }).AsTask();
        Fill(runtime, gate, Bound - 1);
        go.Set();

        Assert.IsType<BocRuntimeFullException>(await body.Guard());
        gate.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(0, await runtime.WhenAsync(cown, c => c[0]).Guard());
    }

    [Fact]
    public async Task TasksOnTheSchedulerOfABocSchedulerRuntime_AreExempt()
    {
        var runtime = New(BocDispatcher.BocScheduler);
        await using var drain = runtime.DrainOnExit();
        using var gate = new Gate();
        var cown = new Cown<int[]>(new int[1]);
        Fill(runtime, gate, Bound);

        Task<int> task = Task.Factory.StartNew(() => SpawnChildren(runtime, cown), CancellationToken.None, TaskCreationOptions.None, runtime.Scheduler);
        Assert.Equal(Children, await task.Guard());
        gate.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(2 * Children, await runtime.WhenAsync(cown, c => c[0]).Guard());
    }

    [Fact]
    public async Task TasksOnTheSchedulerOfAThreadPoolRuntime_AreBounded()
    {
        // Its Scheduler is TaskScheduler.Default: the runtime cannot tell its tasks from any other pool work.
        var runtime = New(BocDispatcher.ThreadPool);
        await using var drain = runtime.DrainOnExit();
        using var gate = new Gate();
        var cown = new Cown<int[]>(new int[1]);
        Fill(runtime, gate, Bound);

        Assert.Same(TaskScheduler.Default, runtime.Scheduler);
        Task task = Task.Factory.StartNew(() => runtime.When(cown, c => c[0]++), CancellationToken.None, TaskCreationOptions.None, runtime.Scheduler);
        await Assert.ThrowsAsync<BocRuntimeFullException>(() => task.Guard());
        Assert.Equal(Bound, runtime.PendingCount);
        gate.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
    }

    private static BocRuntime New(BocDispatcher dispatcher) =>
        new(new BocRuntimeOptions { Dispatcher = dispatcher, WorkerCount = 2, MaxPendingBehaviours = Bound, FullMode = BocFullMode.Throw });

    /// <summary>
    /// Spawns <paramref name="count"/> behaviours on a cown of their own, the first held by <paramref name="gate"/>,
    /// and checks that the runtime is then full for an outside spawn.
    /// </summary>
    private static void Fill(BocRuntime runtime, Gate gate, int count)
    {
        var blocker = new Cown<List<int>>([]);
        runtime.When(blocker, _ => gate.Wait());
        for (int i = 1; i < count; i++)
        {
            runtime.When(blocker, static _ => { });
        }

        Assert.Equal(Bound, runtime.PendingCount);
        Assert.Throws<BocRuntimeFullException>(() => runtime.When(() => { }));
    }

    /// <summary>Spawns <see cref="Children"/> behaviours with <c>When</c> and as many with <c>TryWhen</c>, far beyond the bound.</summary>
    private static int SpawnChildren(BocRuntime runtime, Cown<int[]> cown)
    {
        int accepted = 0;
        for (int i = 0; i < Children; i++)
        {
            runtime.When(cown, c => c[0]++);
            if (runtime.TryWhen(cown, c => c[0]++))
            {
                accepted++;
            }
        }

        return accepted;
    }
}
