using System.Collections.Concurrent;
using Xunit.Abstractions;

namespace Boc.Tests;

/// <summary>
/// Inline runs (src/Boc/Protocol/Behaviour.Inline.cs): an awaited spawn from outside the runtime that finds its cowns
/// free runs its body on the calling thread. These tests check when it happens and when it must not, that the body
/// still sees a clean execution context, and, in seeded stress with an oracle, that inline runs racing queued spawns,
/// nested spawns, cancellation, the backpressure bound and disposal keep every guarantee. xUnit runs tests under a
/// synchronization context, where spawns never run inline; so every spawn that may run inline is made from
/// <see cref="Task.Run(Func{Task})"/>, on a thread-pool thread without one.
/// </summary>
public sealed class InlineRunTests(ITestOutputHelper output)
{
    public static TheoryData<BocDispatcher> Dispatchers() => new() { BocDispatcher.BocScheduler, BocDispatcher.ThreadPool };

    private static readonly AsyncLocal<string?> Ambient = new();

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task AnAwaitedSpawnFromOutside_OnFreeCowns_RunsOnTheCallingThread_AndCompletesBeforeItReturns(BocDispatcher dispatcher)
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var a = new Cown<Box>(new Box());
        var b = new Cown<Box>(new Box());

        (int caller, int one, int two, int list, bool completedAtReturn) = await Task.Run(() =>
        {
            int caller = Environment.CurrentManagedThreadId;
            ValueTask<int> one = runtime.WhenAsync(a, _ => Environment.CurrentManagedThreadId);
            bool completed = one.IsCompleted;
            ValueTask<int> two = runtime.WhenAsync(a, Cown.Read(b), (_, _) => Environment.CurrentManagedThreadId);
            completed &= two.IsCompleted;
            ValueTask<int> list = runtime.WhenAsync(new IAcquirable<Box>[] { a, b }, _ => Environment.CurrentManagedThreadId);
            completed &= list.IsCompleted;
            return (caller, one.Result, two.Result, list.Result, completed);
        }).Guard();

        Assert.True(completedAtReturn, "an inline run's awaitable must be complete when WhenAsync returns");
        Assert.Equal(caller, one);
        Assert.Equal(caller, two);
        Assert.Equal(caller, list);
    }

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task AnAwaitedSpawnBehindABusyCown_IsQueued_NotRunInline(BocDispatcher dispatcher)
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var a = new Cown<Box>(new Box());
        using var holding = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        runtime.When(a, _ =>
        {
            holding.Set();
            release.Wait();
        });
        Assert.True(holding.Wait(Progress.Limit));

        (int caller, bool completedAtReturn, Task<int> body) = await Task.Run(() =>
        {
            ValueTask<int> queued = runtime.WhenAsync(a, _ => Environment.CurrentManagedThreadId);
            return (Environment.CurrentManagedThreadId, queued.IsCompleted, queued.AsTask());
        }).Guard();

        Assert.False(completedAtReturn, "a spawn behind a running body cannot have run before WhenAsync returned");
        release.Set();
        int ranOn = await body.Guard();
        if (dispatcher == BocDispatcher.BocScheduler)
        {
            // Only a worker can run it (the calling pool thread may well run it on the thread pool, once free).
            Assert.NotEqual(caller, ranOn);
        }
    }

    public static TheoryData<string> NeverInline() => new()
    {
        "fire-and-forget",
        "cancellable",
        "worker count",
        "synchronization context",
        "custom task scheduler",
        "flow suppressed",
    };

    [Theory]
    [MemberData(nameof(NeverInline))]
    public async Task SpawnsThatMustNotRunInline_RunOnAnotherThread(string form)
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions
        {
            Dispatcher = BocDispatcher.BocScheduler,
            WorkerCount = form == "worker count" ? 2 : null,
        });
        var a = new Cown<Box>(new Box());
        using var ran = new ManualResetEventSlim();
        using var cancel = new CancellationTokenSource();
        int bodyThread = 0;
        int caller = 0;
        Task completion = Task.CompletedTask;

        void Spawn()
        {
            caller = Environment.CurrentManagedThreadId;
            switch (form)
            {
                case "fire-and-forget":
                    runtime.When(a, _ => { bodyThread = Environment.CurrentManagedThreadId; ran.Set(); });
                    break;
                case "cancellable":
                    completion = runtime.WhenAsync(a, _ => { bodyThread = Environment.CurrentManagedThreadId; ran.Set(); }, cancel.Token).AsTask();
                    break;
                default:
                    completion = runtime.WhenAsync(a, _ => { bodyThread = Environment.CurrentManagedThreadId; ran.Set(); }).AsTask();
                    break;
            }

            // Block this thread: if the body was not run inline, it can only run on another thread.
            Assert.True(ran.Wait(Progress.Limit), $"{form}: the body never ran");
        }

        switch (form)
        {
            case "synchronization context":
                await Task.Run(() =>
                {
                    SynchronizationContext.SetSynchronizationContext(new SynchronizationContext());
                    try
                    {
                        Spawn();
                    }
                    finally
                    {
                        SynchronizationContext.SetSynchronizationContext(null);
                    }
                }).Guard();
                break;
            case "custom task scheduler":
                await Task.Factory.StartNew(Spawn, CancellationToken.None, TaskCreationOptions.None, new ConcurrentExclusiveSchedulerPair().ExclusiveScheduler).Guard();
                break;
            case "flow suppressed":
                await Task.Run(() =>
                {
                    using AsyncFlowControl suppressed = ExecutionContext.SuppressFlow();
                    Spawn();
                }).Guard();
                break;
            default:
                await Task.Run(Spawn).Guard();
                break;
        }

        await completion.Guard();
        Assert.NotEqual(caller, bodyThread);
    }

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task AnInlineBody_SeesNoneOfTheSpawnersAsyncLocals_AndLeavesNoneBehind(BocDispatcher dispatcher)
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var a = new Cown<Box>(new Box());

        (int caller, int ranOn, string? seen, string? after) = await Task.Run(async () =>
        {
            Ambient.Value = "spawner";
            int caller = Environment.CurrentManagedThreadId;
            (int ranOn, string? seen) = await runtime.WhenAsync(a, _ =>
            {
                string? seen = Ambient.Value;
                Ambient.Value = "body";
                return (Environment.CurrentManagedThreadId, seen);
            });
            return (caller, ranOn, seen, Ambient.Value);
        }).Guard();

        Assert.Equal(caller, ranOn);   // the case under test really ran inline
        Assert.Null(seen);
        Assert.Equal("spawner", after);
    }

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task AnInlineAsyncBody_ResumesAfterItsAwaits_WhereAQueuedBodyDoes(BocDispatcher dispatcher)
    {
        // The dispatchers guide: an await inside a body resumes on the BocScheduler's workers (on the pool with the
        // thread-pool dispatcher). An inline body is a body like any other, so its awaits must resume there too, and the
        // spawner's thread must get back no synchronization context of the body's.
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var a = new Cown<Box>(new Box());
        bool onBocScheduler = dispatcher == BocDispatcher.BocScheduler;

        for (int trial = 0; trial < 8; trial++)
        {
            (int caller, int startedOn, bool resumedOnWorker, bool callerContextClean) = await Task.Run(async () =>
            {
                int caller = Environment.CurrentManagedThreadId;
                ValueTask<(int, bool)> run = runtime.WhenAsync(a, async _ =>
                {
                    int startedOn = Environment.CurrentManagedThreadId;
                    await Task.Yield();
                    await Task.Delay(1);
                    return (startedOn, OnBocWorker());
                });
                bool clean = SynchronizationContext.Current is null;
                (int startedOn, bool resumedOnWorker) = await run;
                return (caller, startedOn, resumedOnWorker, clean);
            }).Guard();

            Assert.Equal(caller, startedOn);   // the case under test really started inline
            Assert.True(callerContextClean, $"trial {trial}: the inline run left a synchronization context on its spawner");
            Assert.True(resumedOnWorker == onBocScheduler,
                $"trial {trial}: an inline body's await resumed {(resumedOnWorker ? "on" : "off")} the BocScheduler workers with {dispatcher}");
        }

        // The queued body, for comparison: the same awaits, behind a busy cown.
        using var release = new ManualResetEventSlim();
        runtime.When(a, _ => release.Wait());
        ValueTask<bool> queued = runtime.WhenAsync(a, async _ =>
        {
            await Task.Yield();
            await Task.Delay(1);
            return OnBocWorker();
        });
        release.Set();
        Assert.Equal(onBocScheduler, await queued.AsTask().Guard());
    }

    private static bool OnBocWorker() => Thread.CurrentThread.Name?.StartsWith("Boc worker", StringComparison.Ordinal) == true;

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task SpawnsFromAnInlineBody_AreNeverInline_SoInlineRunsDoNotNest(BocDispatcher dispatcher)
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var outer = new Cown<Box>(new Box());
        var inner = new Cown<Box>(new Box());
        var insideOuter = new ThreadLocal<bool>();
        bool innerNested = true;
        int outerThread = 0;
        int caller = 0;

        await Task.Run(async () =>
        {
            caller = Environment.CurrentManagedThreadId;
            await runtime.WhenAsync(outer, async _ =>
            {
                outerThread = Environment.CurrentManagedThreadId;
                insideOuter.Value = true;

                // Free cown, awaited, from this (outside) thread: only the running body keeps it from running inline.
                ValueTask nested = runtime.WhenAsync(inner, _ => { innerNested = insideOuter.Value; });
                insideOuter.Value = false;
                await nested;
            });
        }).Guard();

        Assert.Equal(caller, outerThread);   // the outer body did run inline
        Assert.False(innerNested, "a spawn from an inline body ran inside that body's frame");
        insideOuter.Dispose();
    }

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task AnInlineBodyThatThrows_ReleasesItsCownsAndFailsItsAwaitable(BocDispatcher dispatcher)
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var a = new Cown<Box>(new Box());

        InvalidOperationException thrown = await Task.Run(async () =>
            await Assert.ThrowsAsync<InvalidOperationException>(async () => await runtime.WhenAsync(a, _ => throw new InvalidOperationException("body")))).Guard();

        Assert.Equal("body", thrown.Message);
        Assert.Equal(1, await runtime.WhenAsync(a, x => ++x.Value).Guard());
    }

    public static TheoryData<int, BocDispatcher, int> StressPrograms() => new()
    {
        // seed, dispatcher, cowns
        { 1, BocDispatcher.BocScheduler, 8 },
        { 2, BocDispatcher.ThreadPool, 8 },
        { 3, BocDispatcher.BocScheduler, 64 },
        { 4, BocDispatcher.ThreadPool, 64 },
    };

    /// <summary>
    /// Outside tasks make awaited spawns (many find their cowns free and run inline, the rest are queued) while a quarter
    /// of the bodies spawn fire-and-forget children on their own first cown, which run on the workers. Checked by the
    /// oracle (exclusivity, spawn order), exactly once, and quiescence.
    /// </summary>
    [Theory]
    [MemberData(nameof(StressPrograms))]
    public async Task InlineRunsRacingQueuedSpawns_AreExclusiveOrderedAndExactlyOnce(int seed, BocDispatcher dispatcher, int cownCount)
    {
        const int Producers = 4;
        const int PerProducer = 3_000;
        string context = $"seed={seed} dispatcher={dispatcher} cowns={cownCount}";
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        await using var drain = runtime.DrainOnExit();
        var run = new Recorder(runtime, cownCount, capacity: Producers * PerProducer * 3);

        Task[] producers = Enumerable.Range(0, Producers).Select(p => Task.Run(async () =>
        {
            var random = new Random(seed * 100 + p);
            for (int i = 0; i < PerProducer; i++)
            {
                await run.SpawnAwaitedAsync(random);
            }
        })).ToArray();
        await Task.WhenAll(producers).Guard();
        await runtime.WaitForQuiescenceAsync().Guard();

        run.AssertAll(context, output);
        Assert.True(run.InlineRuns > 0, $"{context}: no spawn ran inline, so the test tested nothing");
        Assert.True(run.QueuedRuns > 0, $"{context}: no awaited spawn was queued, so nothing raced an inline run");
    }

    /// <summary>
    /// A bounded runtime (FullMode.Wait) and cancellable spawns racing inline runs: every awaitable completes, with the
    /// body's value or as withdrawn; no body runs twice, and every body not withdrawn runs.
    /// </summary>
    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task CancellationAndTheBound_RacingInlineRuns_LoseNothingAndKeepTheBound(BocDispatcher dispatcher)
    {
        const int Bound = 8;
        const int Producers = 4;
        const int PerProducer = 2_000;
        int seed = 36;
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher, MaxPendingBehaviours = Bound, FullMode = BocFullMode.Wait });
        await using var drain = runtime.DrainOnExit();
        var cowns = Enumerable.Range(0, 6).Select(_ => new Cown<Box>(new Box())).ToArray();
        int[] runs = new int[Producers * PerProducer];
        int withdrawn = 0;
        int inline = 0;

        Task[] producers = Enumerable.Range(0, Producers).Select(p => Task.Run(async () =>
        {
            var random = new Random(seed * 100 + p);
            for (int i = 0; i < PerProducer; i++)
            {
                int id = p * PerProducer + i;
                Cown<Box> c = cowns[random.Next(cowns.Length)];
                int caller = Environment.CurrentManagedThreadId;
                int ranOn;
                try
                {
                    if (random.Next(3) == 0)
                    {
                        using var cancel = new CancellationTokenSource();
                        ValueTask<int> spawned = runtime.WhenAsync(c, Body, id, cancel.Token);
                        if (random.Next(2) == 0)
                        {
                            cancel.Cancel();
                        }

                        ranOn = await spawned;
                    }
                    else
                    {
                        ValueTask<int> spawned = runtime.WhenAsync(c, Body, id);
                        bool completedAtReturn = spawned.IsCompleted;
                        ranOn = await spawned;
                        if (completedAtReturn && ranOn == caller)
                        {
                            // Complete on return and run by this thread: an inline run.
                            Interlocked.Increment(ref inline);
                        }
                    }
                }
                catch (BehaviourWithdrawnException)
                {
                    Interlocked.Increment(ref withdrawn);
                }
                catch (OperationCanceledException)
                {
                    Interlocked.Increment(ref withdrawn);
                }
            }
        })).ToArray();
        await Task.WhenAll(producers).Guard();
        await runtime.WaitForQuiescenceAsync().Guard();

        string context = $"seed={seed} dispatcher={dispatcher}";
        output.WriteLine($"{context}: {inline} inline, {withdrawn} withdrawn");
        Assert.True(runs.All(r => r <= 1), $"{context}: a body ran twice");
        Assert.Equal(runs.Length - withdrawn, runs.Count(r => r == 1));
        Assert.True(inline > 0, $"{context}: nothing ran inline");

        int Body(Box box, int id)
        {
            Interlocked.Increment(ref runs[id]);
            box.Value++;
            return Environment.CurrentManagedThreadId;
        }
    }

    /// <summary>
    /// An inline run is admitted like any spawn: with the only unit of room taken by a body that blocks, an awaited
    /// spawn on a free cown (which would run inline) is refused before anything runs.
    /// </summary>
    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task AnInlineRun_NeedsRoomLikeAnySpawn(BocDispatcher dispatcher)
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher, MaxPendingBehaviours = 1, FullMode = BocFullMode.Throw });
        var busy = new Cown<Box>(new Box());
        var free = new Cown<Box>(new Box());
        using var holding = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        runtime.When(busy, _ =>
        {
            holding.Set();
            release.Wait();
        });
        Assert.True(holding.Wait(Progress.Limit));
        bool ran = false;

        await Task.Run(() => Assert.Throws<BocRuntimeFullException>(() => { Task refused = runtime.WhenAsync(free, _ => { ran = true; }).AsTask(); })).Guard();

        release.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.False(ran);
        int caller = 0;
        int ranOn = await Task.Run(async () =>
        {
            caller = Environment.CurrentManagedThreadId;
            return await runtime.WhenAsync(free, _ => Environment.CurrentManagedThreadId);
        }).Guard();
        Assert.Equal(caller, ranOn);   // with room again, the same spawn runs inline
    }

    /// <summary>
    /// Disposal during a burst of inline runs: every spawn that was accepted (returned without throwing) runs exactly
    /// once and its awaitable completes; every refused one throws ObjectDisposedException and never runs.
    /// </summary>
    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task DisposalDuringABurstOfInlineRuns_RunsEveryAcceptedSpawnOnce_AndRefusesTheRest(BocDispatcher dispatcher)
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var cowns = Enumerable.Range(0, 4).Select(_ => new Cown<Box>(new Box())).ToArray();
        var accepted = new ConcurrentBag<int>();
        var ran = new ConcurrentDictionary<int, int>();
        int next = 0;
        using var started = new CountdownEvent(4);

        Task[] producers = Enumerable.Range(0, 4).Select(p => Task.Run(async () =>
        {
            for (int i = 0; ; i++)
            {
                int id = Interlocked.Increment(ref next);
                ValueTask spawned;
                try
                {
                    spawned = runtime.WhenAsync(cowns[(p + i) % cowns.Length], _ => { ran.AddOrUpdate(id, 1, (_, n) => n + 1); });
                }
                catch (ObjectDisposedException)
                {
                    return;
                }

                accepted.Add(id);
                if (i == 0)
                {
                    // Disposal starts once every producer has had a spawn accepted: the burst is under way.
                    started.Signal();
                }

                await spawned;
            }
        })).ToArray();

        Assert.True(started.Wait(Progress.Limit));
        await runtime.DisposeAsync().AsTask().Guard();
        await Task.WhenAll(producers).Guard();

        Assert.NotEmpty(accepted);
        Assert.All(accepted, id => Assert.Equal(1, ran.GetValueOrDefault(id)));
        Assert.Equal(accepted.Count, ran.Count);
    }

    /// <summary>
    /// "Cheap dynamic sets": an awaited spawn of one cown plus a list of 1-4 more, with a state tuple and a static
    /// body, allocates nothing per call but the states list its body receives (measured on the calling thread, where
    /// an inline run does all its work: spawn, body, release and result).
    /// </summary>
    [Theory]
    [InlineData(1)]
    [InlineData(4)]
    public async Task AnInlineDynamicSpawn_AllocatesOnlyTheStatesListItsBodyReceives(int seats)
    {
        await using var runtime = new BocRuntime();
        var customer = new Cown<Box>(new Box());
        IAcquirable<Box>[] set = Enumerable.Range(0, seats).Select(_ => (IAcquirable<Box>)new Cown<Box>(new Box())).ToArray();
        const int Iterations = 2_000;

        (long perCall, long statesList, int inline) = await Task.Run(() =>
        {
            int inline = 0;
            int caller = Environment.CurrentManagedThreadId;
            long Spawn()
            {
                ValueTask<int> done = runtime.WhenAsync(
                    customer, set, static (c, states, state) => c.Value + states.Count + state.Price + Environment.CurrentManagedThreadId - state.Caller, (Price: 10, Caller: caller));
                return done.IsCompleted ? done.Result : -1;
            }

            for (int i = 0; i < Iterations; i++)
            {
                _ = Spawn();   // fills the pools and the thread's scratch
            }

            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < Iterations; i++)
            {
                if (Spawn() == seats + 10)
                {
                    inline++;
                }
            }

            long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
            long listBefore = GC.GetAllocatedBytesForCurrentThread();
            GC.KeepAlive(new Box[seats]);
            return (allocated / Iterations, GC.GetAllocatedBytesForCurrentThread() - listBefore, inline);
        }).Guard();

        Assert.Equal(Iterations, inline);   // every measured call ran inline and completed at once
        Assert.True(perCall <= statesList, $"{seats} seats: {perCall} bytes per call, but the states list alone is {statesList}");
    }

    private sealed class Box
    {
        public int Value;
    }

    /// <summary>Spawns seeded random awaited behaviours and records their accesses for the <see cref="Oracle"/>.</summary>
    private sealed class Recorder(BocRuntime runtime, int cownCount, int capacity)
    {
        private readonly Cown<Cell>[] _cowns = Enumerable.Range(0, cownCount).Select(_ => new Cown<Cell>(new Cell())).ToArray();
        private readonly LogicalClock _clock = new();
        private readonly ConcurrentQueue<Access> _accesses = new();
        private readonly ConcurrentQueue<string> _direct = new();
        private readonly int[] _runs = new int[capacity];
        private int _spawned;
        private int _inline;
        private int _queued;

        public int InlineRuns => _inline;

        public int QueuedRuns => _queued;

        /// <summary>
        /// One awaited spawn from this thread on 1-3 random cowns; a quarter of the bodies spawn a fire-and-forget child.
        /// One spawn in 25 first spawns a fire-and-forget writer that holds its first cown for a while, so that the
        /// awaited spawn behind it is surely queued, whatever the scheduling.
        /// </summary>
        public async Task SpawnAwaitedAsync(Random random)
        {
            (int id, int[] cowns, bool[] writes) = Pick(random);
            int child = random.Next(4);
            if (random.Next(25) == 0)
            {
                int blockerId = Interlocked.Increment(ref _spawned) - 1;
                long blockerStart = _clock.Tick();
                int[] first = cowns[..1];
                runtime.When(_cowns[first[0]], _ => Body(blockerId, first, [true], blockerStart, child: 3, work: 20_000));
                Stamp(blockerId, _clock.Tick());
            }

            long spawnStart = _clock.Tick();
            ValueTask<int> spawned = cowns.Length switch
            {
                1 => runtime.WhenAsync(At(cowns, writes, 0), _ => Body(id, cowns, writes, spawnStart, child)),
                2 => runtime.WhenAsync(At(cowns, writes, 0), At(cowns, writes, 1), (_, _) => Body(id, cowns, writes, spawnStart, child)),
                _ => runtime.WhenAsync([At(cowns, writes, 0), At(cowns, writes, 1), At(cowns, writes, 2)], _ => Body(id, cowns, writes, spawnStart, child)),
            };
            long spawnEnd = _clock.Tick();

            // Complete on return: it ran inline (or was queued and finished at once, counted here as inline). Not
            // complete: it was queued. (The thread that ran it says nothing on the thread pool: a queued body often
            // runs on the caller's own thread once the caller has yielded.)
            bool completedAtReturn = spawned.IsCompleted;
            Stamp(id, spawnEnd);
            _ = await spawned;
            Interlocked.Increment(ref completedAtReturn ? ref _inline : ref _queued);
        }

        private (int Id, int[] Cowns, bool[] Writes) Pick(Random random)
        {
            int id = Interlocked.Increment(ref _spawned) - 1;
            int arity = random.Next(1, 4);
            int[] cowns = Enumerable.Range(0, arity).Select(_ => random.Next(_cowns.Length)).Distinct().ToArray();
            bool[] writes = cowns.Select(_ => random.Next(4) != 0).ToArray();
            return (id, cowns, writes);
        }

        private IAcquirable<Cell> At(int[] cowns, bool[] writes, int i) =>
            writes[i] ? _cowns[cowns[i]] : Cown.Read(_cowns[cowns[i]]);

        // Spawn ends are stamped after the body may have run (inline): keep them apart and join them in AssertAll.
        private readonly ConcurrentDictionary<int, long> _spawnEnds = new();
        private readonly ConcurrentDictionary<int, (long SpawnStart, long Start, long End, int[] Cowns, bool[] Writes)> _bodies = new();

        private void Stamp(int id, long spawnEnd) => _spawnEnds[id] = spawnEnd;

        private int Body(int id, int[] cowns, bool[] writes, long spawnStart, int child, int work = 50)
        {
            long start = _clock.Tick();
            Interlocked.Increment(ref _runs[id]);
            for (int i = 0; i < cowns.Length; i++)
            {
                Cell cell = StateOf(cowns[i]);
                if (writes[i])
                {
                    int seen = Interlocked.CompareExchange(ref cell.Occupancy, -1, 0);
                    if (seen != 0)
                    {
                        _direct.Enqueue($"writer #{id} entered cown {cowns[i]} with occupancy {seen}");
                    }
                }
                else if (Interlocked.Increment(ref cell.Occupancy) <= 0)
                {
                    _direct.Enqueue($"reader #{id} entered cown {cowns[i]} while a writer was inside");
                }
            }

            if (child == 0)
            {
                // A fire-and-forget child on this body's first cown: queued behind this body, run by a worker.
                int childId = Interlocked.Increment(ref _spawned) - 1;
                long childSpawnStart = _clock.Tick();
                runtime.When(At(cowns, writes, 0), _ => Body(childId, cowns[..1], writes[..1], childSpawnStart, child: 3));
                Stamp(childId, _clock.Tick());
            }

            Thread.SpinWait(work);
            for (int i = 0; i < cowns.Length; i++)
            {
                Cell cell = StateOf(cowns[i]);
                if (writes[i])
                {
                    Interlocked.Exchange(ref cell.Occupancy, 0);
                }
                else
                {
                    Interlocked.Decrement(ref cell.Occupancy);
                }
            }

            _bodies[id] = (spawnStart, start, _clock.Tick(), cowns, writes);
            return Environment.CurrentManagedThreadId;
        }

        // Instrumentation: the body checks occupancy of every cown it holds through the cown's internal state.
        private Cell StateOf(int cown) => (Cell)_cowns[cown].State;

        public void AssertAll(string context, ITestOutputHelper output)
        {
            int spawned = _spawned;
            output.WriteLine($"{context}: {spawned} behaviours, {_inline} awaited were complete when WhenAsync returned (inline), {_queued} were queued");
            int[] wrong = Enumerable.Range(0, spawned).Where(i => _runs[i] != 1).Take(5).ToArray();
            Assert.True(wrong.Length == 0, $"{context}: not run exactly once: {string.Join(", ", wrong.Select(i => $"#{i} {_runs[i]}x"))}");
            Assert.True(_direct.IsEmpty, $"{context}: exclusivity broken inside bodies: {string.Join("; ", _direct.Take(5))}");
            var accesses = new List<Access>();
            foreach ((int id, (long spawnStart, long start, long end, int[] cowns, bool[] writes)) in _bodies)
            {
                long spawnEnd = _spawnEnds[id];
                for (int i = 0; i < cowns.Length; i++)
                {
                    accesses.Add(new Access(id, cowns[i], writes[i], spawnStart, spawnEnd, start, end));
                }
            }

            List<string> violations = Oracle.Check(accesses);
            Assert.True(violations.Count == 0, $"{context}: {string.Join("; ", violations)}");
        }

        private sealed class Cell
        {
            public int Occupancy;
        }
    }
}
