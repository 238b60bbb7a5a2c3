using System.Collections.Concurrent;
using System.Diagnostics;

namespace Boc.Tests;

/// <summary>
/// The bounds BocScheduler states: how long outside work can wait behind busy workers, that no work item sees another's
/// execution context, and that a parked worker is always woken (with the periodic poll turned off, so only the wake-up
/// protocol can deliver the work).
/// </summary>
public sealed class SchedulerFairnessTests
{
    private sealed class Counter
    {
        public int Value;
    }

    private static readonly AsyncLocal<int> s_local = new();

    // One worker only. With a second, idle worker, that worker takes the outside behaviours (and a batch more into its
    // own queue) as soon as it wakes; if the OS preempts it then (seen once in eight suite runs while other builds loaded
    // the 2-core machine), they wait for it to be rescheduled while the chain runs on, so the delay in chain steps
    // measures the OS, not this scheduler. The promise is per worker, and one worker is where it is all that protects
    // outside work.
    [Theory]
    [InlineData(1)]
    public async Task AHotChain_DelaysEachOutsideBehaviourByAtMostTheInboxBound(int workers)
    {
        // One chain in which every behaviour spawns the next on the same cown keeps a worker busy from its next slot.
        // Behaviours spawned from this (outside) thread meanwhile go to the inbox. The scheduler promises that every
        // InboxCheckInterval-th item a worker runs comes from the inbox (with a batch more, when its own queue is
        // empty), and that what it moved into its queue waits for at most NextSlotRunLimit runs of a chain: so the k-th
        // outside behaviour (0-based) waits for at most (k + 1) * InboxCheckInterval + NextSlotRunLimit chain steps.
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler, WorkerCount = workers });
        const int Length = 150_000;
        const int Outside = 20;
        var chain = new Cown<Counter>(new Counter());
        var progress = new int[1];
        var started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);

        void Step(Counter c)
        {
            c.Value++;
            Volatile.Write(ref progress[0], c.Value);
            if (c.Value == 100)
            {
                started.TrySetResult();
            }

            if (c.Value < Length)
            {
                runtime.When(chain, Step);
            }
        }

        runtime.When(chain, Step);
        await started.Task.Guard();

        var spawnedAt = new int[Outside];
        var ranAt = new int[Outside];
        for (int k = 0; k < Outside; k++)
        {
            int index = k;
            runtime.When(new Cown<Counter>(new Counter()), _ => ranAt[index] = Volatile.Read(ref progress[0]));

            // Read after the spawn returns: a delay measured from here can only be smaller than the true one, so a
            // violation seen here is real.
            spawnedAt[k] = Volatile.Read(ref progress[0]);
        }

        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(Length, await runtime.WhenAsync(chain, c => c.Value).Guard());
        for (int k = 0; k < Outside; k++)
        {
            int delay = ranAt[k] - spawnedAt[k];
            int bound = ((k + 1) * BocScheduler.InboxCheckInterval) + BocScheduler.NextSlotRunLimit;
            Assert.True(
                delay <= bound,
                $"outside behaviour {k} waited for {delay} chain steps; the bound is {bound} (delays: {string.Join(", ", ranAt.Zip(spawnedAt, (r, s) => r - s))})");
        }
    }

    // Issue 39, item 2. Floods spawned from outside up front are appended, 32 bodies to a behaviour, so a bound that
    // counted items let outside work wait 61 items, about 1,950 bodies, per item ahead of it. A flood's run now hands
    // its worker over at its next check (every CheckEvery bodies) once it has run for its inbox slice while work waits
    // in the inbox or the worker's queue. Every hot body here spins for at least BodyMicroseconds, so a slice is over
    // after at most InboxSliceMicroseconds / BodyMicroseconds bodies: each hot behaviour the worker runs while
    // outside work waits runs at most that many, and CheckEvery more, before the worker turns to the waiting work.
    // The k-th outside behaviour (0-based) has ahead of it the k before it and at most one item per hot cown (a cown's
    // behaviours run one at a time) in the inbox, and as many again in the worker's queue. One worker, for the reason
    // above.
    [Theory]
    [InlineData(1, 2)]
    [InlineData(2, 2)]
    [InlineData(3, 1)]
    public async Task AFloodFromOutside_GivesItsWorkerToWaitingOutsideWork_WithinItsInboxSlice(int seed, int hotCowns)
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler, WorkerCount = 1 });
        const int PerHotCown = 3_000;
        const int BodyMicroseconds = 5;
        const int Outside = 20;
        var random = new Random(seed);
        var progress = new int[1];
        var started = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        using var spawned = new ManualResetEventSlim();

        // Bodies of at least BodyMicroseconds (a few more with the seed, so that the checks fall at different places).
        long bodyTicks = (BodyMicroseconds + random.Next(3)) * Stopwatch.Frequency / 1_000_000;
        void Hot(Counter c)
        {
            c.Value++;
            long until = Stopwatch.GetTimestamp() + bodyTicks;
            while (Stopwatch.GetTimestamp() < until)
            {
            }

            if (Interlocked.Increment(ref progress[0]) == 200)
            {
                // Hold the flood here until the outside behaviours are spawned, so that a test thread slowed down by
                // other tests still spawns them while the flood runs (the wait is what the bound is measured from).
                started.TrySetResult();
                spawned.Wait();
            }
        }

        var hot = Enumerable.Range(0, hotCowns).Select(_ => new Cown<Counter>(new Counter())).ToArray();
        for (int i = 0; i < PerHotCown; i++)
        {
            foreach (Cown<Counter> cown in hot)
            {
                runtime.When(cown, Hot);
            }
        }

        await started.Task.Guard();
        var spawnedAt = new int[Outside];
        var ranAt = new int[Outside];
        for (int k = 0; k < Outside; k++)
        {
            int index = k;
            runtime.When(new Cown<Counter>(new Counter()), _ => ranAt[index] = Volatile.Read(ref progress[0]));

            // Read after the spawn returns: a delay measured from here can only be smaller than the true one.
            spawnedAt[k] = Volatile.Read(ref progress[0]);
        }

        spawned.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
        foreach (Cown<Counter> cown in hot)
        {
            Assert.Equal(PerHotCown, await runtime.WhenAsync(cown, c => c.Value).Guard());
        }

        Assert.True(spawnedAt[^1] < hotCowns * PerHotCown, $"seed {seed}: the flood ended before the outside behaviours were spawned; the test saw nothing");
        int perItem = (FloodPolicy.InboxSliceMicroseconds / BodyMicroseconds) + FloodPolicy.CheckEvery;
        for (int k = 0; k < Outside; k++)
        {
            int delay = ranAt[k] - spawnedAt[k];
            int bound = (k + 1 + (2 * hotCowns)) * perItem;
            Assert.True(
                delay <= bound,
                $"seed {seed}: outside behaviour {k} waited for {delay} hot bodies; the bound is {bound} (delays: {string.Join(", ", ranAt.Zip(spawnedAt, (r, s) => r - s))})");
        }
    }

    [Fact]
    public async Task AHotChain_DelaysWorkQueuedOnItsOwnWorkerByAtMostTheNextSlotBound()
    {
        // One worker. A body makes two behaviours ready on it: first the probe, then the chain's first step, which
        // displaces the probe from the next slot into the worker's queue. Every chain step spawns the next on the same
        // cown, which becomes ready when the step releases and takes the next slot again. The scheduler promises that
        // after NextSlotRunLimit runs in a row from the next slot, the slot's item goes behind the queue: so the probe
        // runs after at most that many chain steps (without the bound, after the whole chain).
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler, WorkerCount = 1 });
        const int Length = 5_000;
        var chain = new Cown<Counter>(new Counter());
        var progress = new int[1];
        int probeRanAt = -1;

        void Step(Counter c)
        {
            c.Value++;
            Volatile.Write(ref progress[0], c.Value);
            if (c.Value < Length)
            {
                runtime.When(chain, Step);
            }
        }

        runtime.When(new Cown<Counter>(new Counter()), _ =>
        {
            runtime.When(new Cown<Counter>(new Counter()), _ => probeRanAt = Volatile.Read(ref progress[0]));
            runtime.When(chain, Step);
        });

        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(Length, await runtime.WhenAsync(chain, c => c.Value).Guard());
        Assert.True(
            probeRanAt >= 0 && probeRanAt <= BocScheduler.NextSlotRunLimit,
            $"the queued behaviour ran after {probeRanAt} chain steps; the bound is {BocScheduler.NextSlotRunLimit}");
    }

    [Fact]
    public async Task AHotChainWithNothingQueuedBehindIt_KeepsTheNextSlot_AndWakesNobody()
    {
        // Two workers, no periodic poll: both park, then one is woken for the chain's first step and the other stays
        // parked. Every step spawns the next on the same cown, so after NextSlotRunLimit steps the fairness rule comes
        // up again and again; with nothing queued behind the chain there is nobody to be fair to, so the chain keeps the
        // slot and no step wakes the parked worker (which would only cost a futex call and carry the chain to another
        // core). Each step records the sleeper count: a wake-up claims the parked worker's registration, so a step that
        // runs after one sees no sleeper.
        const int Length = 5 * BocScheduler.NextSlotRunLimit;
        using var scheduler = new BocScheduler(2, stuckCheck: false);
        await using var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, scheduler, TimeProvider.System);
        var chain = new Cown<Counter>(new Counter());
        var sleepersSeen = new int[Length];
        var threads = new int[Length];

        void Step(Counter c)
        {
            sleepersSeen[c.Value] = scheduler.Sleepers;
            threads[c.Value] = Environment.CurrentManagedThreadId;
            c.Value++;
            if (c.Value < Length)
            {
                runtime.When(chain, Step);
            }
        }

        var parked = Stopwatch.StartNew();
        while (scheduler.Sleepers != 2)
        {
            Assert.True(parked.Elapsed < Progress.Limit, "the workers never parked");
            Thread.Sleep(1);
        }

        runtime.When(chain, Step);
        await runtime.WaitForQuiescenceAsync().Guard();

        Assert.Equal(Length, await runtime.WhenAsync(chain, c => c.Value).Guard());
        int woken = Array.FindIndex(sleepersSeen, n => n != 1);
        Assert.True(woken < 0, $"step {woken} saw {(woken < 0 ? 0 : sleepersSeen[woken])} sleepers, not 1: a step woke the parked worker");
        Assert.All(threads, t => Assert.Equal(threads[0], t));
    }

    public static TheoryData<BocDispatcher> Dispatchers => new() { BocDispatcher.BocScheduler, BocDispatcher.ThreadPool };

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task AnAsyncLocalOrActivitySetByOneBody_IsNotSeenByTheNextBehaviour(BocDispatcher dispatcher)
    {
        // One worker, so the second behaviour of each trial runs on the thread the first one dirtied.
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher, WorkerCount = 1 });
        var first = new Cown<Counter>(new Counter());
        var second = new Cown<Counter>(new Counter());
        int leaks = 0;
        for (int trial = 0; trial < 200; trial++)
        {
            int value = trial + 1;
            runtime.When(first, _ =>
            {
                s_local.Value = value;
                Activity.Current = new Activity("leaky").Start();
            });
            (int seen, bool activity) = await runtime.WhenAsync(second, _ => (s_local.Value, Activity.Current is not null)).Guard();
            if (seen != 0 || activity)
            {
                leaks++;
            }
        }

        Assert.Equal(0, leaks);
    }

    [Fact]
    public async Task ASynchronizationContextSetByOneBody_IsNotSeenByTheNextBehaviour()
    {
        // One worker, so the second behaviour of each trial runs on the thread whose context the first one replaced. The
        // workers' own context is what every item starts under (an await in a body resumes on the workers).
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler, WorkerCount = 1 });
        var first = new Cown<Counter>(new Counter());
        var second = new Cown<Counter>(new Counter());
        SynchronizationContext workers = ((BocScheduler)runtime.Scheduler).Context;
        int leaks = 0;
        for (int trial = 0; trial < 200; trial++)
        {
            var foreign = new SynchronizationContext();
            runtime.When(first, _ => SynchronizationContext.SetSynchronizationContext(trial % 2 == 0 ? foreign : null));
            SynchronizationContext? seen = await runtime.WhenAsync(second, _ => SynchronizationContext.Current).Guard();
            if (!ReferenceEquals(seen, workers))
            {
                leaks++;
            }
        }

        Assert.Equal(0, leaks);
    }

    [Fact]
    public async Task IdleBurstIdleCycles_WakeAParkedWorker_WithoutThePeriodicPoll()
    {
        // With the stuck-work poll off a parked worker wakes only when an enqueue releases it: a lost wake-up leaves a
        // burst stranded and this test times out (it does with WakeOne disabled).
        using var scheduler = new BocScheduler(2, stuckCheck: false);
        var random = new Random(1234);
        for (int cycle = 0; cycle < 60; cycle++)
        {
            while (scheduler.Sleepers != 2)
            {
                await Task.Delay(1);
            }

            int burst = cycle % 7 == 0 ? 1 : random.Next(1, 200);
            int ran = 0;
            var tasks = new Task[burst];
            for (int i = 0; i < burst; i++)
            {
                // From outside, each with a nested task queued from inside a worker (to its local queue).
                tasks[i] = Task.Factory.StartNew(
                    () =>
                    {
                        Interlocked.Increment(ref ran);
                        return Task.Factory.StartNew(() => Interlocked.Increment(ref ran), CancellationToken.None, TaskCreationOptions.None, TaskScheduler.Current);
                    },
                    CancellationToken.None,
                    TaskCreationOptions.None,
                    scheduler).Unwrap();
            }

            await Task.WhenAll(tasks).WaitAsync(TimeSpan.FromSeconds(30));
            Assert.Equal(2 * burst, Volatile.Read(ref ran));
        }
    }

    /// <summary>What the runner of the flood's tail is given to see at each poll interval of its hold.</summary>
    public enum HoldCase
    {
        /// <summary>Nothing: no body is appended during the interval.</summary>
        NoAppend,

        /// <summary>One more appended body in every interval.</summary>
        AnAppendEachInterval,

        /// <summary>One more appended body, and a behaviour on another cown queued from outside.</summary>
        AnAppendAndOtherWork,
    }

    [Theory]
    [InlineData(HoldCase.NoAppend, 1)]
    [InlineData(HoldCase.AnAppendEachInterval, Behaviour.MaxAppended - InitiallyAppended)]
    [InlineData(HoldCase.AnAppendAndOtherWork, 1)]
    public async Task TheRunnerHoldsAFillingTail_OnlyWhileEachIntervalBringsAnAppend_AndNothingElseWaits(HoldCase holdCase, int expectedIntervals)
    {
        // docs/guide/dispatchers.md's bound on a runner's hold on a flood's tail ("Holding a filling tail" in Appending/Behaviour.Appending.cs): it goes on
        // only while each poll interval brings one more appended body and no other work is queued, so it ends after one
        // interval without an append, after one interval once other work is queued, and when the tail is full: at most
        // MaxAppended intervals. One worker, held by a holder while the test builds the tail (a behaviour with
        // InitiallyAppended bodies appended, still its cown's tail); then the test's appender thread, asked by the
        // scheduler's hook at each interval, appends one more body or does not. The bodies log their index, so order
        // and exactly-once are checked with the intervals.
        (int intervals, List<int> order) = await RunHold(holdCase, tailMoved: false);
        Assert.True(
            intervals == expectedIntervals,
            $"{holdCase}: the runner held the tail for {intervals} poll intervals, expected {expectedIntervals} (MaxAppended {Behaviour.MaxAppended})");
        Assert.Equal(Enumerable.Range(0, order.Count), order);
    }

    [Theory]
    [InlineData(false, 0)]
    [InlineData(true, InitiallyAppended)]
    public async Task TheRunnerDoesNotHoldATail_ThatIsEmptyOrNoLongerTheCownsTail(bool tailMoved, int appended)
    {
        // Negative cases: a behaviour with nothing appended has no flood to wait for, and one that a later spawn queued
        // behind is no longer where appends go. Either closes at once: the hook is never reached.
        (int intervals, List<int> order) = await RunHold(HoldCase.AnAppendEachInterval, tailMoved, appended);
        Assert.True(intervals == 0, $"the runner held a tail with {appended} appended bodies (moved: {tailMoved}) for {intervals} intervals");
        Assert.Equal(Enumerable.Range(0, order.Count), order);
    }

    private const int InitiallyAppended = 3;

    private static async Task<(int Intervals, List<int> Order)> RunHold(HoldCase holdCase, bool tailMoved, int appended = InitiallyAppended)
    {
        using var scheduler = new BocScheduler(1, stuckCheck: false);
        await using var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, scheduler, TimeProvider.System);
        var log = new Cown<List<int>>([]);
        var other = new Cown<Counter>(new Counter());
        int next = 0;
        void Spawn()
        {
            int index = next++;
            runtime.When(log, l => l.Add(index));
        }

        using var holding = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        runtime.When(log, _ =>
        {
            holding.Set();
            release.Wait();
        });
        Assert.True(holding.Wait(Progress.Limit), "the holder never started");

        // The tail: one behaviour behind the holder (it opens for appends), with `appended` bodies appended to it.
        for (int i = 0; i <= appended; i++)
        {
            Spawn();
        }

        if (tailMoved)
        {
            // A two-cown write queues behind the tail on log: the tail is no longer log's last behaviour.
            runtime.When(log, other, (l, _) => l.Add(next++));
        }

        // The appender: a thread of its own (outside the scheduler), asked by the hook, which waits for its answer. The
        // hook never throws (an exception there would fail the tail's run, not this test): it records a missing answer.
        int intervals = 0;
        int answers = 0;
        bool unanswered = false;
        Exception? appenderFailure = null;
        using var ask = new SemaphoreSlim(0);
        using var done = new SemaphoreSlim(0);
        bool stop = false;
        var appender = new Thread(() =>
        {
            try
            {
                while (true)
                {
                    ask.Wait();
                    if (Volatile.Read(ref stop))
                    {
                        return;
                    }

                    // At most MaxAppended answers with work: a runtime that held other tails too (the behaviours
                    // on `other`) would otherwise be fed by this hook forever.
                    if (holdCase != HoldCase.NoAppend && ++answers <= Behaviour.MaxAppended)
                    {
                        Spawn();
                        if (holdCase == HoldCase.AnAppendAndOtherWork)
                        {
                            runtime.When(other, o => o.Value++);
                        }
                    }

                    done.Release();
                }
            }
#pragma warning disable CA1031 // Reported by the test below.
            catch (Exception e)
#pragma warning restore CA1031
            {
                appenderFailure = e;
                done.Release();
            }
        });
        appender.Start();
        scheduler.Floods.PollHook = () =>
        {
            intervals++;
            ask.Release();
            if (!done.Wait(Progress.Limit))
            {
                Volatile.Write(ref unanswered, true);
            }
        };

        try
        {
            release.Set();
            await runtime.WaitForQuiescenceAsync().Guard();
        }
        finally
        {
            scheduler.Floods.PollHook = null;
            Volatile.Write(ref stop, true);
            ask.Release();
            appender.Join();
        }

        Assert.Null(appenderFailure);
        Assert.False(unanswered, "the appender did not answer the hook");
        List<int> order = await runtime.WhenAsync(log, l => l.ToList()).Guard();
        Assert.Equal(next, order.Count);
        return (intervals, order);
    }

    /// <summary>How a yield test builds its flood: on one cown, or on a pair (the two appendable classes).</summary>
    public enum FloodShape
    {
        /// <summary>One-cown writes, appended to a one-cown behaviour.</summary>
        OneCown,

        /// <summary>Two-cown writes of one pair, appended to a pair behaviour.</summary>
        Pair,
    }

    /// <summary>
    /// The slice a yield test gives its scheduler: 0 makes every check that finds other work waiting yield, so the test
    /// does not depend on how long bodies take; the largest value never lets a run reach its slice.
    /// </summary>
    public enum Slice
    {
        /// <summary>Every check yields if other work waits.</summary>
        Zero,

        /// <summary>No check ever yields.</summary>
        Never,
    }

    private const int FloodBodies = 1 + Behaviour.MaxAppended;

    [Theory]
    [InlineData(FloodShape.OneCown)]
    [InlineData(FloodShape.Pair)]
    public async Task AFloodRunPastItsSlice_HandsItsWorkerToWaitingWork_AtTheFirstCheck_AndKeepsItsCowns(FloodShape shape)
    {
        // docs/guide/dispatchers.md's promise that a long flood run takes turns ("Yielding" in Appending/AppendableBehaviour.cs): with the slice at 0, the
        // run yields at its first check (after its 8th appended body) because other work waits. One worker; a holder
        // keeps it busy while a behaviour with 31 bodies appended is built behind it, whose own body puts a behaviour on
        // another cown in the worker's next slot. Without yields that behaviour runs after all 32 bodies; with them, it
        // runs between body 8 and body 9, and the flood's bodies still run in order, once each, with its cowns held
        // throughout (a body on the flood's cowns spawned during the yield runs after the whole flood).
        (List<string> order, long yields) = await RunFlood(shape, Slice.Zero, otherWorkWaits: true);
        int other = order.IndexOf("other");
        Assert.True(other == YieldCheckAfter + 1, $"{shape}: the other behaviour ran at {other}, expected {YieldCheckAfter + 1}: {string.Join(", ", order)}");
        Assert.Equal(FloodOrder(yieldAt: YieldCheckAfter + 1), order);
        Assert.True(yields == 1, $"{shape}: {yields} yields, expected 1 (nothing waits after the first)");
    }

    [Theory]
    [InlineData(FloodShape.OneCown, Slice.Never, true)]
    [InlineData(FloodShape.Pair, Slice.Never, true)]
    [InlineData(FloodShape.OneCown, Slice.Zero, false)]
    [InlineData(FloodShape.Pair, Slice.Zero, false)]
    public async Task AFloodRun_DoesNotYield_BeforeItsSlice_OrWithNothingWaiting(FloodShape shape, Slice slice, bool otherWorkWaits)
    {
        // Negative cases: a run that has not lasted its slice keeps its worker even when other work waits (the other
        // behaviour runs after all 32 bodies, behind the release); and a run past its slice with nothing waiting runs on.
        (List<string> order, long yields) = await RunFlood(shape, slice, otherWorkWaits);
        Assert.True(yields == 0, $"{shape}, slice {slice}, other work {otherWorkWaits}: {yields} yields");
        Assert.Equal(FloodOrder(yieldAt: otherWorkWaits ? FloodBodies : -1), order);
    }

    [Theory]
    [InlineData(FloodShape.OneCown)]
    [InlineData(FloodShape.Pair)]
    public async Task AYieldingFloodRun_ReportsEachFailureOnce_AndStillRunsEveryBody(FloodShape shape)
    {
        // Failures on both sides of the yield: the own body's (rethrown after the appended ones ran, by the worker that
        // finishes the run) and two appended bodies' (kept across the yield). Each is reported once, after the release.
        var reported = new ConcurrentQueue<Exception>();
        (List<string> order, long yields) = await RunFlood(shape, Slice.Zero, otherWorkWaits: true, failAt: [0, 3, 20], reported.Enqueue);
        Assert.True(yields == 1, $"{shape}: {yields} yields");
        Assert.Equal(FloodOrder(yieldAt: YieldCheckAfter + 1), order);
        string[] messages = reported.Select(e => e.Message).Order(StringComparer.Ordinal).ToArray();
        Assert.Equal(["flood 0 failed", "flood 20 failed", "flood 3 failed"], messages);
    }

    // The first check comes after the 8th appended body (index 7), that is, after 9 of the flood's bodies (0 to 8).
    private const int YieldCheckAfter = 8;

    // The flood's bodies 0..31 in order, with the other behaviour at position yieldAt (or nowhere if it is -1), and the
    // body spawned on the flood's cowns by the other behaviour at the end.
    private static List<string> FloodOrder(int yieldAt)
    {
        var order = Enumerable.Range(0, FloodBodies).Select(i => $"flood {i}").ToList();
        if (yieldAt >= 0)
        {
            order.Insert(yieldAt, "other");
            order.Add("after");
        }

        return order;
    }

    private static async Task<(List<string> Order, long Yields)> RunFlood(
        FloodShape shape, Slice slice, bool otherWorkWaits, int[]? failAt = null, Action<Exception>? report = null)
    {
        using var scheduler = new BocScheduler(1, stuckCheck: false)
        {
            Floods = { SliceMilliseconds = slice == Slice.Zero ? 0 : int.MaxValue, InboxSliceTicks = slice == Slice.Zero ? 0 : long.MaxValue },
        };
        await using var runtime = new BocRuntime(new BocRuntimeOptions { UnhandledExceptionHandler = report }, scheduler, scheduler, TimeProvider.System);
        var first = new Cown<Counter>(new Counter());
        var second = new Cown<Counter>(new Counter());
        var other = new Cown<Counter>(new Counter());
        var order = new ConcurrentQueue<string>();
        failAt ??= [];

        void Body(int index)
        {
            order.Enqueue($"flood {index}");
            if (index == 0 && otherWorkWaits)
            {
                // Ready at once (its cown is idle): into the worker's next slot, so it waits at every check. It then
                // spawns on the flood's cown, which must queue behind the whole flood, yield or not.
                runtime.When(other, _ =>
                {
                    order.Enqueue("other");
                    runtime.When(first, _ => order.Enqueue("after"));
                });
            }

            if (failAt.Contains(index))
            {
                throw new InvalidOperationException($"flood {index} failed");
            }
        }

        using var holding = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        runtime.When(first, second, (_, _) =>
        {
            holding.Set();
            release.Wait();
        });
        Assert.True(holding.Wait(Progress.Limit), "the holder never started");

        // Behind the holder: one behaviour (it opens for appends) and 31 appended to it, one run of 32 bodies.
        for (int i = 0; i < FloodBodies; i++)
        {
            int index = i;
            if (shape == FloodShape.OneCown)
            {
                runtime.When(first, _ => Body(index));
            }
            else
            {
                runtime.When(first, second, (_, _) => Body(index));
            }
        }

        Assert.Contains($"+{Behaviour.MaxAppended} appended bodies", first.DescribeQueue(limit: 4), StringComparison.Ordinal);
        release.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
        return (order.ToList(), scheduler.Floods.YieldedRuns);
    }
}
