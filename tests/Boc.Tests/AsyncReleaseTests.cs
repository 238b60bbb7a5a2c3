using System.Collections.Concurrent;

namespace Boc.Tests;

/// <summary>
/// Where an asynchronous body's behaviour is released (<c>Protocol/Behaviour.Run.cs</c>): on the scheduler's workers,
/// wherever the body's task completes, never on a thread-pool thread. The release is observed through a failure: the
/// release reports it (Finish), so the handler runs on the thread the release runs on.
/// </summary>
public sealed class AsyncReleaseTests
{
    private sealed class Counter
    {
        public int Value;
    }

    [Fact]
    public async Task ABodyThatCompletesOnAWorker_IsReleasedThere_NotOnThePool()
    {
        // The body's await resumes on the worker (the scheduler's context), and its task fails there. The release was
        // queued to the thread pool: a worker carries the scheduler's synchronization context, under which .NET does not
        // run a ConfigureAwait(false) continuation inline.
        var reports = new ConcurrentQueue<(bool OnPool, bool OnWorker)>();
        BocScheduler? scheduler = null;
        await using var runtime = new BocRuntime(new BocRuntimeOptions
        {
            WorkerCount = 1,
            UnhandledExceptionHandler = _ => reports.Enqueue((Thread.CurrentThread.IsThreadPoolThread, Volatile.Read(ref scheduler)!.IsWorkerThread)),
        });
        Volatile.Write(ref scheduler, runtime.BocSchedulerOrNull!);
        var cown = new Cown<Counter>(new Counter());
        bool resumedOnWorker = false;
        runtime.When(cown, async c =>
        {
            await Task.Yield();
            resumedOnWorker = scheduler!.IsWorkerThread;
            c.Value++;
            throw new InvalidOperationException("failed after an await");
        });

        await runtime.WaitForQuiescenceAsync().Guard();

        Assert.True(resumedOnWorker, "the body's await did not resume on a worker, so the release path was not the one tested");
        (bool onPool, bool onWorker) = Assert.Single(reports);
        Assert.False(onPool, "the behaviour was released on a thread-pool thread");
        Assert.True(onWorker, "the behaviour was not released on a worker");
        Assert.Equal(1, await runtime.WhenAsync(cown, c => c.Value).Guard());
    }

    [Fact]
    public async Task ABodyThatCompletesOffTheWorkers_IsReleasedOnAWorker()
    {
        // The body's last await is ConfigureAwait(false) on a task completed by a thread of our own: the body's task
        // completes on that thread, and the release goes to the workers, as the body's own awaits do.
        var reports = new ConcurrentQueue<(bool OnPool, bool OnWorker, int Thread)>();
        BocScheduler? scheduler = null;
        await using var runtime = new BocRuntime(new BocRuntimeOptions
        {
            WorkerCount = 1,
            UnhandledExceptionHandler = _ => reports.Enqueue((Thread.CurrentThread.IsThreadPoolThread, Volatile.Read(ref scheduler)!.IsWorkerThread, Environment.CurrentManagedThreadId)),
        });
        Volatile.Write(ref scheduler, runtime.BocSchedulerOrNull!);
        var cown = new Cown<Counter>(new Counter());
        var gate = new TaskCompletionSource();
        int completer = 0;
        int resumedOn = 0;
        runtime.When(cown, async c =>
        {
            await gate.Task.ConfigureAwait(false);
            resumedOn = Environment.CurrentManagedThreadId;
            c.Value++;
            throw new InvalidOperationException("failed off the workers");
        });

        // One worker runs items in turn: this one runs only once the body has suspended at its await, so the gate is
        // completed while the body waits for it (and the continuation runs on the completing thread).
        using var suspended = new ManualResetEventSlim();
        runtime.When(new Cown<Counter>(new Counter()), _ => suspended.Set());
        var thread = new Thread(() =>
        {
            suspended.Wait();
            Volatile.Write(ref completer, Environment.CurrentManagedThreadId);
            gate.SetResult();
        })
        { IsBackground = true, Name = "completer" };
        thread.Start();
        Assert.True(thread.Join(Progress.Limit), "the completing thread never finished");
        await runtime.WaitForQuiescenceAsync().Guard();

        Assert.Equal(Volatile.Read(ref completer), resumedOn);
        (bool onPool, bool onWorker, int releasedOn) = Assert.Single(reports);
        Assert.False(onPool, "the behaviour was released on a thread-pool thread");
        Assert.True(onWorker, $"the behaviour was released on thread {releasedOn}, not on a worker (the completer was {completer})");
        Assert.Equal(1, await runtime.WhenAsync(cown, c => c.Value).Guard());
    }

    [Fact]
    public async Task AnAsyncChain_KeepsOrderAndExclusivity_WithReleasesOnTheWorkers()
    {
        // The release's new path must keep the protocol's promises: bodies on one cown that await run one at a time, in
        // spawn order, each exactly once, with two workers and spawns from outside and from bodies.
        const int Spawns = 400;
        int seed = Environment.TickCount;
        var random = new Random(seed);
        await using var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2 });
        var log = new Cown<List<int>>([]);
        int inside = 0;
        int overlaps = 0;
        for (int i = 0; i < Spawns; i++)
        {
            int index = i;
            bool yields = random.Next(2) == 0;
            runtime.When(log, async l =>
            {
                if (Interlocked.Increment(ref inside) != 1)
                {
                    Interlocked.Increment(ref overlaps);
                }

                if (yields)
                {
                    await Task.Yield();
                }

                l.Add(index);
                Interlocked.Decrement(ref inside);
            });
        }

        await runtime.WaitForQuiescenceAsync().Guard();
        List<int> order = await runtime.WhenAsync(log, l => l.ToList()).Guard();
        Assert.True(overlaps == 0, $"seed {seed}: {overlaps} bodies ran beside another on the same cown");
        Assert.True(order.SequenceEqual(Enumerable.Range(0, Spawns)), $"seed {seed}: bodies ran out of spawn order or not exactly once");
    }
}
