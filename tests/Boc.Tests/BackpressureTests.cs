using Xunit.Abstractions;

namespace Boc.Tests;

/// <summary>
/// <see cref="BocRuntime.PendingCount"/> and the bound on pending behaviours
/// (<see cref="BocRuntimeOptions.MaxPendingBehaviours"/>): outside spawns never take the count above the bound, a
/// refused spawn enqueues nothing, waiters are never left asleep while there is room, and spawns from bodies are
/// exempt. The pending count itself is the oracle; the concurrent tests are seeded and say their seed on failure.
/// </summary>
public sealed class BackpressureTests(ITestOutputHelper output)
{
    [Fact]
    public void Options_BoundBelowOne_OrUnknownMode_AreRefused()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new BocRuntime(new BocRuntimeOptions { MaxPendingBehaviours = 0 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => new BocRuntime(new BocRuntimeOptions { MaxPendingBehaviours = -5 }));
        Assert.Throws<ArgumentOutOfRangeException>(() => new BocRuntime(new BocRuntimeOptions { FullMode = (BocFullMode)7 }));
    }

    [Theory]
    [InlineData(null)]
    [InlineData(100)]
    public async Task PendingCount_CountsQueuedAndRunning_AndIsZeroWhenQuiescent(int? bound)
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2, MaxPendingBehaviours = bound });
        Assert.Equal(0, runtime.PendingCount);
        using var gate = new Gate();
        var cown = new Cown<int[]>(new int[1]);

        // One running (blocked on the gate), four queued behind it on the cown, one asynchronous body awaiting.
        var entered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        runtime.When(cown, c =>
        {
            entered.SetResult();
            gate.Wait();
            c[0]++;
        });
        for (int i = 0; i < 4; i++)
        {
            runtime.When(cown, c => c[0]++);
        }

        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        runtime.When(async () => await release.Task);
        await entered.Task.Guard();
        Assert.Equal(6, runtime.PendingCount);

        gate.Set();
        await runtime.WhenAsync(cown, c => c[0]).Guard();

        // The awaited behaviour is finished; only the asynchronous body is pending.
        await WaitUntil(() => runtime.PendingCount == 1);
        release.SetResult();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(0, runtime.PendingCount);
    }

    [Theory]
    [InlineData(BocDispatcher.BocScheduler)]
    [InlineData(BocDispatcher.ThreadPool)]
    public async Task PendingCount_FromMoreThreadsThanHaveLinesOfTheirOwn_IsExact_AndReachesZero(BocDispatcher dispatcher)
    {
        // Each thread other than the workers counts on a line of its own with plain stores, up to PendingCount.ThreadLines
        // threads; the rest share the interlocked processor stripes. More threads than that spawn behind one blocked
        // behaviour, so nothing can finish: the count must be exact. Then it must reach zero, and quiescence be seen. A
        // second generation of threads (which may reuse the first's managed ids, and so their lines) does the same.
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher, WorkerCount = 2 });

        // A bounded drain: with a count lost or doubled the runtime would never look quiescent, and a plain dispose would
        // wait for that forever.
        await using var drain = runtime.DrainOnExit();
        var cown = new Cown<int[]>(new int[1]);
        const int Threads = PendingCount.ThreadLines + 16;
        const int PerThread = 50;
        int expectedRuns = 0;
        for (int generation = 0; generation < 2; generation++)
        {
            using var gate = new Gate();
            var entered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            runtime.When(cown, c =>
            {
                entered.SetResult();
                gate.Wait();
                c[0]++;
            });
            await entered.Task.Guard();
            Thread[] threads = Enumerable.Range(0, Threads).Select(_ => new Thread(() =>
            {
                for (int i = 0; i < PerThread; i++)
                {
                    runtime.When(cown, c => c[0]++);
                }
            })).ToArray();
            foreach (Thread thread in threads)
            {
                thread.Start();
            }

            foreach (Thread thread in threads)
            {
                Assert.True(thread.Join(Progress.Limit));
            }

            Assert.Equal(1 + (Threads * PerThread), runtime.PendingCount);
            gate.Set();
            await runtime.WaitForQuiescenceAsync().Guard();
            Assert.Equal(0, runtime.PendingCount);
            expectedRuns += 1 + (Threads * PerThread);
            Assert.Equal(expectedRuns, await runtime.WhenAsync(cown, c => c[0]).Guard());
            await runtime.WaitForQuiescenceAsync().Guard();
            Assert.Equal(0, runtime.PendingCount);
        }
    }

    [Theory]
    [InlineData(BocDispatcher.BocScheduler)]
    [InlineData(BocDispatcher.ThreadPool)]
    public async Task AnAwaitedResult_HasGivenItsRoomBack(BocDispatcher dispatcher)
    {
        // Bound 1, Throw mode: once a caller has a behaviour's result, its room is free, so the caller's next spawn is
        // admitted. (Room used to come back only after the result was delivered, so a continuation that ran at
        // once, on the worker or on another thread, could find the runtime still full.)
        const int Rounds = 2_000;
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher, MaxPendingBehaviours = 1, FullMode = BocFullMode.Throw });
        var cown = new Cown<int[]>(new int[1]);
        for (int i = 0; i < Rounds; i++)
        {
            // Awaited directly: its continuation may run at once, on the thread that delivers the result.
            int seen = await runtime.WhenAsync(cown, c => ++c[0]);
            Assert.Equal((2 * i) + 1, seen);
            Assert.Equal(0, runtime.PendingCount);
            seen = await runtime.WhenAsync(cown, c => ++c[0]);
            Assert.Equal((2 * i) + 2, seen);
        }
    }

    [Fact]
    public async Task ThrowMode_RefusesWhenAndWhenAsync_BeforeAnythingIsEnqueued()
    {
        const int Bound = 3;
        await using var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2, MaxPendingBehaviours = Bound, FullMode = BocFullMode.Throw });
        using var gate = new Gate();
        var cown = new Cown<List<int>>([]);
        var other = new Cown<List<int>>([]);
        FillBehindGate(runtime, cown, gate, Bound);

        BocRuntimeFullException full = Assert.Throws<BocRuntimeFullException>(() => runtime.When(cown, l => l.Add(-1)));
        Assert.Equal(Bound, full.MaxPendingBehaviours);
        Assert.IsAssignableFrom<InvalidOperationException>(full);
        Assert.Throws<BocRuntimeFullException>(() => runtime.When(cown, other, (l, _) => l.Add(-2)));
        Assert.Throws<BocRuntimeFullException>(() => runtime.When([cown, other], ls => ls[0].Add(-3)));
        Assert.Throws<BocRuntimeFullException>(() => Ignore(runtime.WhenAsync(other, l => l.Count)));
        Assert.Equal(Bound, runtime.PendingCount);

        gate.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(0, runtime.PendingCount);

        // Nothing refused ran, and the other cown was never queued on: a behaviour on it now runs at once.
        Assert.Equal(new[] { 0, 1, 2 }, await runtime.WhenAsync(cown, l => l.ToArray()).Guard());
        Assert.Empty(await runtime.WhenAsync(other, l => l.ToArray()).Guard());
    }

    [Theory]
    [InlineData(BocFullMode.Wait)]
    [InlineData(BocFullMode.Throw)]
    public async Task TryWhen_OnAFullRuntime_ReturnsFalseAndEnqueuesNothing(BocFullMode mode)
    {
        const int Bound = 2;
        await using var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2, MaxPendingBehaviours = Bound, FullMode = mode });
        using var gate = new Gate();
        var cown = new Cown<List<int>>([]);
        var other = new Cown<List<int>>([]);
        FillBehindGate(runtime, cown, gate, Bound);

        Assert.False(runtime.TryWhen(cown, l => l.Add(-1)));
        Assert.False(runtime.TryWhen(cown, other, (l, _) => l.Add(-2)));
        Assert.False(runtime.TryWhen([cown, other], ls => ls[0].Add(-3)));
        Assert.False(runtime.TryWhen(other, static (l, s) => l.Add(s), -4));
        Assert.False(runtime.TryWhen(other, l => Task.FromResult(l.Count)));
        Assert.Equal(Bound, runtime.PendingCount);

        gate.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.True(runtime.TryWhen(cown, l => l.Add(9)));
        Assert.True(runtime.TryWhen(other, static (l, s) => l.Add(s), 10));
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(new[] { 0, 1, 9 }, await runtime.WhenAsync(cown, l => l.ToArray()).Guard());
        Assert.Equal(new[] { 10 }, await runtime.WhenAsync(other, l => l.ToArray()).Guard());
    }

    [Fact]
    public async Task TryWhen_WithoutABound_AlwaysSpawns_AndBadInputThrowsFirst()
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2 });
        var cown = new Cown<int[]>(new int[1]);
        for (int i = 0; i < 100; i++)
        {
            Assert.True(runtime.TryWhen(cown, c => c[0]++));
        }

        Assert.Throws<ArgumentNullException>(() => runtime.TryWhen(cown, (Action<int[]>)null!));
        Assert.Throws<ArgumentNullException>(() => runtime.TryWhen((Cown<int[]>)null!, c => c[0]++));
        Assert.Throws<ArgumentException>(() => runtime.TryWhen(new IAcquirable<int[]>[] { cown, null! }, cs => cs[0][0]++));
        Assert.Equal(100, await runtime.WhenAsync(cown, c => c[0]).Guard());
        Assert.True(Behaviours.TryWhen(cown, c => c[0]++));
    }

    [Fact]
    public async Task TryWhen_OnADisposedRuntime_Throws()
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 1, MaxPendingBehaviours = 1 });
        await runtime.DisposeAsync();
        Assert.Throws<ObjectDisposedException>(() => runtime.TryWhen(() => { }));
        Assert.Throws<ObjectDisposedException>(() => runtime.When(() => { }));
        Assert.Equal(0, runtime.PendingCount);
    }

    public static TheoryData<int, int, int> Producers() => new()
    {
        // seed, producers, bound
        { 21, 4, 1 },
        { 22, 6, 3 },
        { 23, 3, 16 },
    };

    /// <summary>
    /// Many outside producers of all three kinds (blocking When in Wait mode, TryWhen with WaitForRoomAsync, and When
    /// in Throw mode retried after WaitForRoomAsync): the count never exceeds the bound, seen both by a sampling thread
    /// and by every body; every behaviour runs exactly once; every producer finishes (a lost wake-up would hang one).
    /// </summary>
    [Theory]
    [MemberData(nameof(Producers))]
    public async Task OutsideProducers_NeverExceedTheBound_AndEveryBehaviourRunsOnce(int seed, int producers, int bound)
    {
        foreach (BocFullMode mode in new[] { BocFullMode.Wait, BocFullMode.Throw })
        {
            await RunProducers(seed, producers, bound, mode);
        }
    }

    [Fact]
    public async Task WaitMode_BlockingWhen_ReturnsOnlyOnceThereIsRoom()
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2, MaxPendingBehaviours = 1 });
        using var gate = new Gate();
        var cown = new Cown<List<int>>([]);
        FillBehindGate(runtime, cown, gate, 1);

        int returned = 0;
        var producer = new Thread(() =>
        {
            runtime.When(cown, l => l.Add(1));
            Volatile.Write(ref returned, 1);
        })
        { IsBackground = true };
        producer.Start();

        // While the gate is shut the runtime is full, so the producer cannot have returned, however long this takes.
        Task room = runtime.WaitForRoomAsync().AsTask();
        Assert.False(room.IsCompleted);
        Assert.Equal(0, Volatile.Read(ref returned));
        Assert.Equal(1, runtime.PendingCount);

        gate.Set();
        Assert.True(producer.Join(Progress.Limit), "the blocked producer was never woken");
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(new[] { 0, 1 }, await runtime.WhenAsync(cown, l => l.ToArray()).Guard());
    }

    [Fact]
    public async Task WaitForRoomAsync_IsCanceledByItsToken_AndOtherWaitersStillWake()
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2, MaxPendingBehaviours = 2 });
        using var gate = new Gate();
        var cown = new Cown<List<int>>([]);
        FillBehindGate(runtime, cown, gate, 2);

        using var canceled = new CancellationTokenSource();
        canceled.Cancel();
        Assert.True(runtime.WaitForRoomAsync(canceled.Token).AsTask().IsCanceled);

        using var cts = new CancellationTokenSource();
        Task abandoned = runtime.WaitForRoomAsync(cts.Token).AsTask();
        Task kept = runtime.WaitForRoomAsync().AsTask();
        Assert.False(abandoned.IsCompleted);
        cts.Cancel();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => abandoned.Guard());
        Assert.False(kept.IsCompleted);
        Assert.Equal(2, runtime.PendingCount);

        gate.Set();
        await kept.Guard();
        await runtime.WaitForQuiescenceAsync().Guard();
    }

    [Fact]
    public async Task WaitForRoomAsync_CompletesAtOnce_WithoutABound_WithRoom_OrInsideABody()
    {
        await using var unbounded = new BocRuntime(new BocRuntimeOptions { WorkerCount = 1 });
        Assert.True(unbounded.WaitForRoomAsync().AsTask().IsCompletedSuccessfully);

        await using var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2, MaxPendingBehaviours = 1 });
        Assert.True(runtime.WaitForRoomAsync().AsTask().IsCompletedSuccessfully);
        bool insideCompleted = await runtime.WhenAsync(() => runtime.WaitForRoomAsync().AsTask().IsCompletedSuccessfully).Guard();
        Assert.True(insideCompleted);
    }

    /// <summary>
    /// Bodies (synchronous, and asynchronous after an <c>await</c>) spawn far beyond the bound in both modes: nothing
    /// waits or throws, and the count is seen above the bound, which is what being exempt means.
    /// </summary>
    [Theory]
    [InlineData(BocFullMode.Wait)]
    [InlineData(BocFullMode.Throw)]
    public async Task BodiesSpawningBeyondTheBound_NeitherDeadlockNorThrow(BocFullMode mode)
    {
        const int Bound = 2;
        const int Children = 200;
        var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2, MaxPendingBehaviours = Bound, FullMode = mode });
        var cown = new Cown<int[]>(new int[1]);
        long highest = 0;

        await runtime.WhenAsync(cown, c =>
        {
            for (int i = 0; i < Children; i++)
            {
                runtime.When(cown, x => x[0]++);
                Assert.True(runtime.TryWhen(cown, x => x[0]++));
            }

            highest = runtime.PendingCount;
        }).Guard();
        Assert.True(highest > Bound, $"the count inside the body was {highest}; bodies' spawns should be exempt from the bound {Bound}");

        // The next spawn comes from outside (this thread), so it is bounded: let the first body's children finish
        // first, or in Throw mode it is refused (the bound at work, not what this test is about).
        await runtime.WaitForQuiescenceAsync().Guard();
        await runtime.WhenAsync(async () =>
        {
            await Task.Yield();
            for (int i = 0; i < Children; i++)
            {
                runtime.When(cown, x => x[0]++);
                Assert.True(runtime.TryWhen(cown, x => x[0]++));
            }
        }).Guard();

        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(4 * Children, await runtime.WhenAsync(cown, c => c[0]).Guard());
        await runtime.DisposeAsync().AsTask().Guard();
    }

    /// <summary>Spawns <paramref name="count"/> behaviours on <paramref name="cown"/>, the first of which holds it until the gate opens.</summary>
    internal static void FillBehindGate(BocRuntime runtime, Cown<List<int>> cown, Gate gate, int count)
    {
        runtime.When(cown, l =>
        {
            gate.Wait();
            l.Add(0);
        });
        for (int i = 1; i < count; i++)
        {
            int value = i;
            runtime.When(cown, l => l.Add(value));
        }

        Assert.Equal(count, runtime.PendingCount);
    }

    /// <summary>Takes a spawn's awaitable that the test never awaits (the spawn is expected to throw first).</summary>
    private static void Ignore<T>(ValueTask<T> awaitable) => Assert.False(awaitable.IsCompleted);

    private static async Task WaitUntil(Func<bool> condition)
    {
        using var limit = new CancellationTokenSource(Progress.Limit);
        while (!condition())
        {
            await Task.Delay(1, limit.Token);
        }
    }

    private async Task RunProducers(int seed, int producers, int bound, BocFullMode mode)
    {
        const int PerProducer = 1_500;
        const int CownCount = 3;
        string context = $"seed={seed} producers={producers} bound={bound} mode={mode}";
        int total = producers * PerProducer;
        var runs = new int[total];
        long highestInBody = 0;
        long highestSampled = 0;
        var cowns = Enumerable.Range(0, CownCount).Select(_ => new Cown<int[]>(new int[1])).ToArray();

        // Not `await using`: after a lost wake-up, disposal would wait forever instead of failing the test.
        var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2, MaxPendingBehaviours = bound, FullMode = mode });
        using var stop = new CancellationTokenSource();
        var sampler = Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                Max(ref highestSampled, runtime.PendingCount);
                Thread.Yield();
            }
        });

        // Dedicated threads: blocked producers must not starve the thread pool, where the room signal's continuations run.
        var threads = Enumerable.Range(0, producers).Select(p => new Thread(() =>
        {
            var random = new Random(seed * 97 + p);
            for (int i = 0; i < PerProducer; i++)
            {
                int id = (p * PerProducer) + i;
                Cown<int[]> cown = cowns[random.Next(CownCount)];
                void Body(int[] c)
                {
                    Max(ref highestInBody, runtime.PendingCount);
                    Interlocked.Increment(ref runs[id]);
                    c[0]++;
                }

                // Each producer mixes the ways to spawn into a full runtime, by its own seeded choice.
                switch (random.Next(3))
                {
                    case 0 when mode == BocFullMode.Wait:
                        runtime.When(cown, Body);
                        break;
                    case 0:
                        while (true)
                        {
                            try
                            {
                                runtime.When(cown, Body);
                                break;
                            }
                            catch (BocRuntimeFullException)
                            {
                                runtime.WaitForRoomAsync().AsTask().GetAwaiter().GetResult();
                            }
                        }

                        break;
                    default:
                        while (!runtime.TryWhen(cown, Body))
                        {
                            runtime.WaitForRoomAsync().AsTask().GetAwaiter().GetResult();
                        }

                        break;
                }
            }
        })
        { IsBackground = true }).ToArray();
        foreach (Thread t in threads)
        {
            t.Start();
        }

        foreach (Thread t in threads)
        {
            Assert.True(t.Join(Progress.Limit), $"{context}: a producer made no progress (a lost wake-up?); pending {runtime.PendingCount}");
        }

        await runtime.WaitForQuiescenceAsync().Guard();
        stop.Cancel();
        await sampler.Guard();
        int sum = 0;
        foreach (Cown<int[]> cown in cowns)
        {
            sum += await runtime.WhenAsync(cown, c => c[0]).Guard();
        }

        await runtime.DisposeAsync();

        Assert.True(highestSampled <= bound, $"{context}: the pending count reached {highestSampled}, above the bound");
        Assert.True(highestInBody <= bound, $"{context}: a body saw the pending count at {highestInBody}, above the bound");
        int[] wrongRuns = Enumerable.Range(0, total).Where(id => runs[id] != 1).Take(5).ToArray();
        Assert.True(wrongRuns.Length == 0, $"{context}: behaviours not run exactly once, e.g. {string.Join(", ", wrongRuns.Select(id => $"#{id} ran {runs[id]}x"))}");
        Assert.Equal(total, sum);
        output.WriteLine($"{context}: {total} behaviours; highest pending count sampled {highestSampled}, in a body {highestInBody}");
    }

    private static void Max(ref long location, long value)
    {
        long current = Volatile.Read(ref location);
        while (value > current)
        {
            long seen = Interlocked.CompareExchange(ref location, value, current);
            if (seen == current)
            {
                return;
            }

            current = seen;
        }
    }

    /// <summary>
    /// Holds a behaviour until opened; disposing it opens it, so that a test that fails before opening it does not hang
    /// in the runtime's draining disposal (declare it after the runtime: it is disposed first).
    /// </summary>
    internal sealed class Gate : IDisposable
    {
        private readonly ManualResetEventSlim _open = new();

        public void Wait() => _open.Wait();

        public void Set() => _open.Set();

        public void Dispose() => _open.Set();
    }
}
