using System.Linq.Expressions;

namespace Boc.Tests;

public sealed class RuntimeTests
{
    private sealed class Counter
    {
        public int Value;

        public int Increment() => ++Value;
    }

    [Theory]
    [InlineData(1, BocDispatcher.ThreadPool)]
    [InlineData(2, BocDispatcher.ThreadPool)]
    [InlineData(3, BocDispatcher.ThreadPool)]
    [InlineData(1, BocDispatcher.BocScheduler)]
    [InlineData(3, BocDispatcher.BocScheduler)]
    public async Task WorkerCount_BoundsHowManyBehavioursRunAtOnce(int workers, BocDispatcher dispatcher)
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = workers, Dispatcher = dispatcher });
        int running = 0;
        int maxRunning = 0;
        var cowns = Enumerable.Range(0, 32).Select(_ => new Cown<Counter>(new Counter())).ToArray();
        for (int i = 0; i < 20_000; i++)
        {
            // Independent cowns: without the bound, up to 32 could run together.
            runtime.When(cowns[i % cowns.Length], c =>
            {
                int now = Interlocked.Increment(ref running);
                int seen;
                while (now > (seen = Volatile.Read(ref maxRunning)) && Interlocked.CompareExchange(ref maxRunning, now, seen) != seen)
                {
                }

                Thread.SpinWait(50);
                c.Value++;
                Interlocked.Decrement(ref running);
            });
        }

        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.InRange(maxRunning, 1, workers);
        int total = 0;
        foreach (Cown<Counter> c in cowns)
        {
            total += await runtime.WhenAsync(c, x => x.Value).Guard();
        }

        Assert.Equal(20_000, total);
    }

    [Fact]
    public void Options_RejectAWorkerCountBelowOne()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new BocRuntime(new BocRuntimeOptions { WorkerCount = 0 }));
        Assert.Throws<ArgumentNullException>(() => new BocRuntime(null!));
    }

    [Fact]
    public async Task Quiescence_WaitsForDeeplyNestedSpawns()
    {
        await using var runtime = new BocRuntime();
        var counter = new Cown<Counter>(new Counter());
        const int Depth = 20_000;

        void Next(int remaining)
        {
            if (remaining == 0)
            {
                return;
            }

            // Each behaviour spawns the next from inside its body: only the last one's completion means quiescence.
            runtime.When(counter, c =>
            {
                c.Value++;
                Next(remaining - 1);
            });
        }

        Next(Depth);
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(Depth, await runtime.WhenAsync(Cown.Read(counter), c => c.Value).Guard());
    }

    [Fact]
    public async Task Quiescence_WaitsForATreeOfSpawnsAcrossManyCowns()
    {
        await using var runtime = new BocRuntime();
        var leaves = new Cown<Counter>(new Counter());
        var cowns = Enumerable.Range(0, 16).Select(_ => new Cown<Counter>(new Counter())).ToArray();

        void Grow(int depth, int index)
        {
            runtime.When(cowns[index % cowns.Length], c =>
            {
                c.Value++;
                if (depth == 0)
                {
                    runtime.When(leaves, l => l.Value++);
                    return;
                }

                Grow(depth - 1, (index * 2) + 1);
                Grow(depth - 1, (index * 2) + 2);
            });
        }

        Grow(12, 0);
        await runtime.WaitForQuiescenceAsync().Guard();

        // Read without another spawn racing: if quiescence came early, some leaves are still missing.
        Assert.Equal(1 << 12, await runtime.WhenAsync(Cown.Read(leaves), l => l.Value).Guard());
    }

    [Theory]
    [InlineData(21, BocDispatcher.BocScheduler)]
    [InlineData(22, BocDispatcher.ThreadPool)]
    public async Task Quiescence_RepeatedRoundsWithSpawnsFromManyThreads_NeverEarlyNeverMissed(int seed, BocDispatcher dispatcher)
    {
        // The pending count is kept per BocScheduler worker (plain stores) and per processor stripe (interlocked), and a
        // waiter is woken by whichever finisher sees the last completion. Each round spawns from two threads and from
        // bodies (so behaviours are counted in and out on different lines), with two waiters racing the finishers. An early signal leaves behaviours unfinished at
        // the wait; a missed one never completes the wait (the guard fails the test).
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var random = new Random(seed);
        var cowns = Enumerable.Range(0, 8).Select(_ => new Cown<Counter>(new Counter())).ToArray();
        long spawned = 0;
        long finished = 0;

        void Spawn(int cown, int children)
        {
            Interlocked.Increment(ref spawned);
            runtime.When(cowns[cown], c =>
            {
                c.Value++;
                for (int i = 0; i < children; i++)
                {
                    Spawn((cown + i + 1) % cowns.Length, children - 1);
                }

                Interlocked.Increment(ref finished);
            });
        }

        for (int round = 0; round < 300; round++)
        {
            int first = random.Next(1, 60);
            int second = random.Next(0, 60);
            int children = random.Next(0, 3);
            var other = Task.Run(() =>
            {
                for (int i = 0; i < second; i++)
                {
                    Spawn(i % cowns.Length, children);
                }
            });
            for (int i = 0; i < first; i++)
            {
                Spawn(i % cowns.Length, children);
            }

            await other;
            Task early = runtime.WaitForQuiescenceAsync();
            await Task.WhenAll(early, runtime.WaitForQuiescenceAsync()).Guard();
            long seen = Interlocked.Read(ref finished);
            long expected = Interlocked.Read(ref spawned);
            Assert.True(seen == expected, $"seed={seed} round={round}: quiescence reported with {expected - seen} of {expected} behaviours unfinished");
        }
    }

    [Fact]
    public async Task Quiescence_OfAnIdleRuntimeCompletesAtOnce()
    {
        await using var runtime = new BocRuntime();
        Task wait = runtime.WaitForQuiescenceAsync();
        Assert.True(wait.IsCompletedSuccessfully);
        await wait;
    }

    [Fact]
    public async Task Quiescence_IncludesAsyncBodiesUntilTheirTasksComplete()
    {
        await using var runtime = new BocRuntime();
        var counter = new Cown<Counter>(new Counter());
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        runtime.When(counter, async c =>
        {
            await gate.Task;
            c.Value++;
        });

        Task quiescent = runtime.WaitForQuiescenceAsync();
        await Task.Yield();
        Assert.False(quiescent.IsCompleted, "quiescence completed while an async body was still awaiting");
        gate.SetResult();
        await quiescent.Guard();
        Assert.Equal(1, await runtime.WhenAsync(counter, c => c.Value).Guard());
    }

    [Fact]
    public async Task Dispose_DrainsAcceptedBehavioursThenRejectsNewOnes()
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 1 });
        var counter = new Cown<Counter>(new Counter());
        var release = new ManualResetEventSlim();

        // Hold the only worker so that the next 1000 behaviours are accepted but not yet run when Dispose starts.
        runtime.When(() => release.Wait());
        for (int i = 0; i < 1000; i++)
        {
            runtime.When(counter, c => c.Value++);
        }

        var disposing = Task.Run(runtime.Dispose);
        while (!disposing.IsCompleted && !IsRejecting(runtime, counter))
        {
            await Task.Delay(1);
        }

        release.Set();
        await disposing.Guard();

        // Every accepted behaviour ran; the cown is not wedged: another runtime can still use it.
        await using var other = new BocRuntime();
        Assert.Equal(1000, await other.WhenAsync(counter, c => c.Value).Guard());
        Assert.Throws<ObjectDisposedException>(() => runtime.When(counter, c => c.Value++));
        Assert.Throws<ObjectDisposedException>(() => { runtime.WhenAsync(counter, c => c.Value).AsTask().Wait(); });

        static bool IsRejecting(BocRuntime runtime, Cown<Counter> counter)
        {
            try
            {
                // Read-only probe: if it is accepted it changes nothing the test checks.
                runtime.When(Cown.Read(counter), _ => { });
                return false;
            }
            catch (ObjectDisposedException)
            {
                return true;
            }
        }
    }

    [Fact]
    public async Task Dispose_RejectsSpawnsFromBodiesStillRunningAndReportsThem()
    {
        var errors = new List<Exception>();
        var runtime = new BocRuntime(new BocRuntimeOptions { UnhandledExceptionHandler = e => { lock (errors) { errors.Add(e); } } });
        var counter = new Cown<Counter>(new Counter());
        var started = new ManualResetEventSlim();
        var proceed = new ManualResetEventSlim();
        runtime.When(counter, c =>
        {
            started.Set();
            proceed.Wait();
            runtime.When(counter, c2 => c2.Value++); // after Dispose began: rejected, reported, nothing enqueued
        });

        started.Wait();
        var disposing = Task.Run(runtime.Dispose);
        while (!disposing.IsCompleted && !IsDisposedFlagVisible(runtime))
        {
            await Task.Delay(1);
        }

        proceed.Set();
        await disposing.Guard();
        Assert.IsType<ObjectDisposedException>(Assert.Single(errors));
        await using var other = new BocRuntime();
        Assert.Equal(0, await other.WhenAsync(counter, c => c.Value).Guard());

        static bool IsDisposedFlagVisible(BocRuntime runtime)
        {
            try
            {
                runtime.When(() => { });
                return false;
            }
            catch (ObjectDisposedException)
            {
                return true;
            }
        }
    }

    [Fact]
    public async Task Dispose_FromInsideABehaviourOfTheSameRuntimeThrowsInsteadOfWaitingForItself()
    {
        var runtime = new BocRuntime();
        Exception? caught = await runtime.WhenAsync(() =>
        {
            try
            {
                runtime.Dispose();
                return null;
            }
            catch (InvalidOperationException e)
            {
                return e;
            }
        }).Guard();
        Assert.IsType<InvalidOperationException>(caught);
        await runtime.DisposeAsync();
    }

    [Fact]
    public void Default_CannotBeDisposed()
    {
        Assert.Throws<InvalidOperationException>(() => BocRuntime.Default.Dispose());
        Assert.Same(BocRuntime.Default, BocRuntime.Default);
    }

    [Fact]
    public async Task StaticEntryPoints_UseTheDefaultRuntime()
    {
        var counter = new Cown<Counter>(new Counter());
        Behaviours.When(counter, c => c.Value++);
        int value = await Behaviours.WhenAsync(counter, c => c.Value).Guard();
        Assert.Equal(1, value);
        await Behaviours.WaitForQuiescenceAsync().Guard();
    }

    [Fact]
    public void ExpressionLambda_WithAValue_BindsToTheFireAndForgetOverload()
    {
        // The compiler records the overload it chose in the expression tree. `c => c.Increment()` has a value (int);
        // had fire-and-forget and result forms shared a name, C# would pick Func<Counter, int> here.
        var runtime = BocRuntime.Default;
        var counter = new Cown<Counter>(new Counter());
        Expression<Action> spawn = () => runtime.When(counter, c => c.Increment());
        var call = (MethodCallExpression)spawn.Body;

        Assert.Equal("When", call.Method.Name);
        Assert.Equal(typeof(void), call.Method.ReturnType);
        Assert.Equal(typeof(Action<Counter>), call.Method.GetParameters()[^1].ParameterType);
    }

    [Fact]
    public void AsyncLambda_BindsToTheOverloadThatHoldsCownsUntilTheTaskCompletes()
    {
        // An async lambda given to When must not become `async void` (which would release the cowns at the first
        // await): overload resolution prefers Func<T, Task>.
        var runtime = BocRuntime.Default;
        var counter = new Cown<Counter>(new Counter());
        Expression<Action> spawn = () => runtime.When(counter, c => Task.FromResult(c.Increment()));
        var call = (MethodCallExpression)spawn.Body;
        Assert.Equal(typeof(Func<Counter, Task>), call.Method.GetParameters()[^1].ParameterType);

        Expression<Func<ValueTask<int>>> result = () => runtime.WhenAsync(counter, c => Task.FromResult(c.Increment()));
        var resultCall = (MethodCallExpression)result.Body;
        Assert.Equal(typeof(Func<Counter, Task<int>>), resultCall.Method.GetParameters()[^1].ParameterType);
    }
}
