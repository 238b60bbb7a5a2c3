using System.Collections.Concurrent;
using System.Diagnostics;
using Xunit.Abstractions;

namespace Boc.Tests;

/// <summary>
/// Appending (<c>Appending/Behaviour.Appending.cs</c>): a one-cown write or read spawned with a plain fire-and-forget
/// <c>When</c> on a busy cown rides in the behaviour at the cown's tail (a write only in a writer), and a write of two
/// cowns rides in a behaviour at the tail of both that writes the same two. Checked: that it happens where it should (and only there), that
/// every appended body runs exactly once, in spawn order, exclusively, with failures reported one by one, that
/// quiescence and disposal count each appended body, and, under a seeded race of spawner threads and spawning bodies,
/// the oracle's exclusivity and order.
/// </summary>
public sealed class AppendTests(ITestOutputHelper output)
{
    public static TheoryData<BocDispatcher> Dispatchers => new() { BocDispatcher.BocScheduler, BocDispatcher.ThreadPool };

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task AFloodBehindABusyCown_IsAppendedToTheTail_AndRunsOnceEachInSpawnOrder(BocDispatcher dispatcher)
    {
        // One spawner, the cown held by a body that waits: every spawn finds the queue busy. The first spawn behind the
        // holder enqueues a behaviour; the next MaxAppended (31) ride in it; and so on. So the queue holds exactly
        // ceil(N / (1 + MaxAppended)) behaviours, and the bodies run in spawn order.
        const int N = 1_000;
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var log = new Cown<List<int>>([]);
        using var spawned = new ManualResetEventSlim();
        string dump = "";
        runtime.When(log, _ =>
        {
            spawned.Wait();
            dump = log.DescribeQueue(limit: N + 2);
        });

        for (int i = 0; i < N; i++)
        {
            int index = i;
            runtime.When(log, l => l.Add(index));
        }

        spawned.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
        List<int> order = await runtime.WhenAsync(log, l => l.ToList()).Guard();
        Assert.Equal(Enumerable.Range(0, N), order);

        // The dump's lines after the holder: "  k: waiting (1 to go) on <cown> (write), +31 appended bodies".
        string[] queued = dump.Split('\n').Skip(2).Where(l => l.Contains("waiting", StringComparison.Ordinal)).ToArray();
        int bodies = queued.Sum(l => 1 + AppendedIn(l));
        output.WriteLine($"{queued.Length} behaviours queued for {N} spawns");
        Assert.True(bodies == N, $"the queue holds {bodies} bodies for {N} spawns:\n{dump}");

        // docs/guide/dispatchers.md's bound, as it states it: a behaviour runs at most 32 bodies. None carries more, and a flood fills
        // each one up to it, so exactly ceil(N / 32) are queued (a larger or smaller bound fails one of the two).
        const int BodiesPerBehaviour = 32;
        int most = queued.Max(l => 1 + AppendedIn(l));
        Assert.True(most <= BodiesPerBehaviour, $"a behaviour carries {most} bodies, the bound is {BodiesPerBehaviour}:\n{dump}");
        int expected = (N + BodiesPerBehaviour - 1) / BodiesPerBehaviour;
        Assert.True(queued.Length == expected, $"{queued.Length} behaviours queued, expected {expected}:\n{dump}");
    }

    [Fact]
    public async Task OnlyPlainOneCownSpawns_AreAppendedBehindOneCown_AndAWriteNeverRidesInAReader()
    {
        // Behind a held cown: two-cown writes (whose tails on a and b differ here), awaited and asynchronous spawns
        // each enqueue a behaviour of their own, and a one-cown spawn behind one of them starts a new behaviour rather
        // than riding in it (pairs behind a pair: OnlyWritesOfTheSamePairInTheSameOrder_AreAppendedToAPair). A read
        // rides in a reader or in a writer; a write behind a reader starts a behaviour of its own. One worker, busy with
        // the holder, so that reads may ride (they do not while a worker is idle).
        using var scheduler = new BocScheduler(1, stuckCheck: false);
        await using var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, scheduler, TimeProvider.System);
        var a = new Cown<int[]>(new int[1]);
        var b = new Cown<int[]>(new int[1]);
        using var holding = new ManualResetEventSlim();
        using var spawned = new ManualResetEventSlim();
        string dump = "";
        runtime.When(a, _ =>
        {
            holding.Set();
            spawned.Wait();
            dump = a.DescribeQueue();
        });

        Assert.True(holding.Wait(Progress.Limit), "the holder never started");
        runtime.When(Cown.Read(a), _ => { });        // a reader
        runtime.When(Cown.Read(a), _ => { });        //   +1, a read in a reader
        runtime.When(a, b, (x, _) => x[0]++);        // two cowns
        Task<int> awaited = runtime.WhenAsync(a, x => x[0]++).AsTask();
        runtime.When(a, async x => { await Task.Yield(); x[0]++; });
        runtime.When(a, x => x[0]++);                // a writer
        runtime.When(a, x => x[0]++);                //   +1
        runtime.When(Cown.Read(a), _ => { });        //   +2, a read in a writer
        runtime.When(a, b, (x, _) => x[0]++);        // two cowns
        runtime.When(Cown.Read(a), _ => { });        // a reader
        runtime.When(a, x => x[0]++);                // a writer: not in the reader
        runtime.When(a, x => x[0]++);                //   +1
        spawned.Set();
        await awaited.Guard();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(8, await runtime.WhenAsync(a, x => x[0]).Guard());

        string[] queued = dump.Split('\n').Skip(2).ToArray();
        output.WriteLine(dump);
        Assert.Equal([1, 0, 0, 0, 2, 0, 0, 1], queued.Select(AppendedIn));
        Assert.Equal(["read", "write", "write", "write", "write", "write", "read", "write"], queued.Select(l => l.Contains("(read)", StringComparison.Ordinal) ? "read" : "write"));
    }

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task AFloodOnABusyPair_IsAppendedToTheTail_AndRunsOnceEachInSpawnOrder(BocDispatcher dispatcher)
    {
        // One spawner, both cowns held by a pair that waits: the first spawn behind the holder finds it at the tail of
        // both cowns and enqueues a behaviour that opens for appends; the next MaxAppended ride in it; and so on. Both
        // cowns log every body, so the order is checked on each; the holder's class is the flood's (Action<T1, T2>), so
        // only the rule that a just-dispatched pair does not open keeps the flood out of it.
        const int N = 1_000;
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var a = new Cown<List<int>>([]);
        var b = new Cown<List<int>>([]);
        using var spawned = new ManualResetEventSlim();
        string dump = "";
        runtime.When(a, b, (_, _) =>
        {
            spawned.Wait();
            dump = a.DescribeQueue(limit: N + 2);
        });

        for (int i = 0; i < N; i++)
        {
            int index = i;
            runtime.When(a, b, (x, y) =>
            {
                x.Add(index);
                y.Add(-index);
            });
        }

        spawned.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(Enumerable.Range(0, N), await runtime.WhenAsync(a, l => l.ToList()).Guard());
        Assert.Equal(Enumerable.Range(0, N).Select(i => -i), await runtime.WhenAsync(b, l => l.ToList()).Guard());

        string[] queued = dump.Split('\n').Skip(2).Where(l => l.Contains("waiting", StringComparison.Ordinal)).ToArray();
        output.WriteLine($"{queued.Length} behaviours queued for {N} spawns");
        Assert.Equal(N, queued.Sum(l => 1 + AppendedIn(l)));

        // docs/guide/dispatchers.md's bound holds for pairs too: at most 32 bodies a behaviour, and a flood fills each one up to it.
        int most = queued.Max(l => 1 + AppendedIn(l));
        Assert.True(most <= 32, $"a behaviour carries {most} bodies, the bound is 32:\n{dump}");
        Assert.True(queued.Length == (N + 31) / 32, $"{queued.Length} behaviours queued:\n{dump}");
    }

    [Fact]
    public async Task OnlyWritesOfTheSamePairInTheSameOrder_AreAppendedToAPair()
    {
        // Behind a held pair (a, b), each spawn below finds the tail of a and b (or not) and rides in it only if it
        // writes a and b, in that order, through a plain fire-and-forget When. Each line notes what it meets.
        using var scheduler = new BocScheduler(1, stuckCheck: false);
        await using var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, scheduler, TimeProvider.System);
        var a = new Cown<int[]>(new int[1]);
        var b = new Cown<int[]>(new int[1]);
        var c = new Cown<int[]>(new int[1]);
        using var holding = new ManualResetEventSlim();
        using var spawned = new ManualResetEventSlim();
        string dump = "";
        runtime.When(a, b, (_, _) =>
        {
            holding.Set();
            spawned.Wait();
            dump = a.DescribeQueue();
        });

        Assert.True(holding.Wait(Progress.Limit), "the holder never started");
        static void Add(int[] x, int[] y) => x[0] += 1 + (0 * y[0]);
        static void AddWithState(int[] x, int[] y, int state) => x[0] += state + (0 * y[0]);
        runtime.When(a, b, Add);                                  // behind the holder (not open) on both: opens
        runtime.When(a, b, Add);                                  //   +1
        runtime.When(b, a, (y, x) => Add(x, y));                  // b, a: not in the tail's order; opens
        runtime.When(a, b, Add);                                  // a, b behind a tail of b, a: its own; opens
        runtime.When(a, b, Add);                                  //   +1
        runtime.When(a, Cown.Read(b), Add);                       // reads b: its own; does not open
        runtime.When(a, b, Add);                                  // behind it: its own; opens
        runtime.When(a, b, AddWithState, 1);                      // another class (the state overload): its own; opens
        runtime.When(a, b, Add);                                  // behind the other class: its own; opens
        runtime.When(a, c, Add);                                  // another pair: its own; does not open
        runtime.When(a, b, Add);                                  // different tails on a and b: its own; does not open
        runtime.When(a, b, Add);                                  // behind one not open: its own; opens
        runtime.When(a, b, Add);                                  //   +1
        runtime.When(a, a, Add);                                  // one cown twice (one slot): its own; does not open
        runtime.When(a, b, Add);                                  // different tails: its own; does not open
        runtime.When(a, b, Add);                                  // behind one not open: its own; opens
        runtime.When(a, b, Add);                                  //   +1
        Task awaited = runtime.WhenAsync(a, b, Add).AsTask();     // awaited: its own
        runtime.When(a, b, async (x, y) =>                        // asynchronous: its own
        {
            await Task.Yield();
            Add(x, y);
        });
        runtime.When(a, b, Add);                                  // behind the asynchronous one: its own; opens
        runtime.When(a, b, Add);                                  //   +1
        spawned.Set();
        await awaited.Guard();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(21, await runtime.WhenAsync(a, x => x[0]).Guard());

        string[] queued = dump.Split('\n').Skip(2).ToArray();
        output.WriteLine(dump);
        Assert.Equal([1, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1], queued.Select(AppendedIn));
    }

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task FailingAppendedPairBodies_AreReportedOnceEach_WithBothCowns(BocDispatcher dispatcher)
    {
        const int N = 500;
        var reported = new ConcurrentQueue<Exception>();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher, UnhandledExceptionHandler = reported.Enqueue });
        var a = new Cown<List<int>>([]);
        var b = new Cown<List<int>>([]);
        using var spawned = new ManualResetEventSlim();
        runtime.When(a, b, (_, _) => spawned.Wait());
        for (int i = 0; i < N; i++)
        {
            runtime.When(a, b, static (x, _, index) =>
            {
                x.Add(index);
                if (index % 7 == 3)
                {
                    throw new InvalidOperationException($"planned {index}");
                }
            }, i);
        }

        spawned.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(Enumerable.Range(0, N), await runtime.WhenAsync(a, l => l.ToList()).Guard());
        string[] expected = Enumerable.Range(0, N).Where(i => i % 7 == 3).Select(i => $"planned {i}").ToArray();
        Assert.Equal(expected, reported.Select(e => e.Message).OrderBy(m => int.Parse(m["planned ".Length..], System.Globalization.CultureInfo.InvariantCulture)));
        Assert.All(reported, e => Assert.Equal($"{a} (write), {b} (write)", e.Data[BocRuntime.FailedCownsDataKey]));
    }

    [Fact]
    public async Task AFloodOfReads_WhileEveryWorkerIsBusy_RidesInReaders_AndAWriterBehindWaitsForAll()
    {
        // One worker, held by the body that holds the cown: no core could run a read beside another, so reads ride in
        // readers like writes in writers, ceil(N / (1 + MaxAppended)) readers in all.
        const int N = 1_000;
        using var scheduler = new BocScheduler(1, stuckCheck: false);
        await using var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, scheduler, TimeProvider.System);
        string[] readers = await ReadFloodBehindAHeldCown(runtime, N, whileHeld: null);
        Assert.Equal((N + Behaviour.MaxAppended) / (1 + Behaviour.MaxAppended), readers.Length);
    }

    [Fact]
    public async Task AFloodOfReads_WhileAWorkerIsIdle_IsNotAppended()
    {
        // Two workers, one held, the other parked (no periodic wake-up, so it stays parked while the reads are
        // spawned): each read gets a reader of its own, which the idle worker could run beside the others.
        const int N = 200;
        using var scheduler = new BocScheduler(2, stuckCheck: false);
        await using var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, scheduler, TimeProvider.System);
        string[] readers = await ReadFloodBehindAHeldCown(runtime, N, whileHeld: () =>
        {
            var parked = Stopwatch.StartNew();
            while (scheduler.Sleepers != 1)
            {
                Assert.True(parked.Elapsed < Progress.Limit, "the free worker never parked");
                Thread.Sleep(1);
            }
        });
        Assert.Equal(N, readers.Length);
    }

    [Fact]
    public async Task AFloodOfReads_OnTheThreadPool_IsNotAppended()
    {
        // The thread pool's idle threads are not known, so reads never ride there.
        const int N = 200;
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.ThreadPool });
        Assert.Equal(N, (await ReadFloodBehindAHeldCown(runtime, N, whileHeld: null)).Length);
    }

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task FailingAppendedBodies_AreReportedOnceEach_AndTheOthersStillRun(BocDispatcher dispatcher)
    {
        const int N = 500;
        var reported = new ConcurrentQueue<Exception>();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher, UnhandledExceptionHandler = reported.Enqueue });
        var log = new Cown<List<int>>([]);
        using var spawned = new ManualResetEventSlim();
        runtime.When(log, _ => spawned.Wait());
        for (int i = 0; i < N; i++)
        {
            int index = i;
            runtime.When(log, l =>
            {
                l.Add(index);
                if (index % 7 == 3)
                {
                    throw new InvalidOperationException($"planned {index}");
                }
            });
        }

        spawned.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(Enumerable.Range(0, N), await runtime.WhenAsync(log, l => l.ToList()).Guard());
        string[] expected = Enumerable.Range(0, N).Where(i => i % 7 == 3).Select(i => $"planned {i}").ToArray();
        Assert.Equal(expected, reported.Select(e => e.Message).OrderBy(m => int.Parse(m["planned ".Length..], System.Globalization.CultureInfo.InvariantCulture)));
        Assert.All(reported, e => Assert.Equal($"{log} (write)", e.Data[BocRuntime.FailedCownsDataKey]));
    }

    public static TheoryData<int, int, BocDispatcher, int, int, bool> Races() => new()
    {
        // seed, cowns, dispatcher, percent of reads (read-heavy: reads ride in readers, and writes meet reader tails),
        // percent of two-cown writes (pair-heavy: pairs ride in pairs, in both orders of the same two cowns), whether
        // a run of appended bodies yields at every check that finds other work (a zero slice: "Yielding" in Appending/AppendableBehaviour.cs)
        { 21, 1, BocDispatcher.BocScheduler, 8, 10, false },
        { 22, 3, BocDispatcher.BocScheduler, 8, 10, false },
        { 23, 1, BocDispatcher.ThreadPool, 8, 10, false },
        { 24, 3, BocDispatcher.ThreadPool, 8, 10, false },
        { 25, 1, BocDispatcher.BocScheduler, 45, 10, false },
        { 26, 2, BocDispatcher.ThreadPool, 45, 10, false },
        { 27, 2, BocDispatcher.BocScheduler, 8, 70, false },
        { 28, 3, BocDispatcher.BocScheduler, 8, 60, false },
        { 29, 2, BocDispatcher.ThreadPool, 8, 70, false },
        { 30, 3, BocDispatcher.ThreadPool, 20, 50, false },
        { 31, 3, BocDispatcher.BocScheduler, 45, 10, true },
        { 32, 3, BocDispatcher.BocScheduler, 8, 10, true },
        { 33, 3, BocDispatcher.BocScheduler, 8, 60, true },
    };

    [Theory]
    [MemberData(nameof(Races))]
    public async Task FloodsFromThreadsAndBodies_MixedWithOtherSpawns_StayExclusiveOrderedAndExactlyOnce(int seed, int cownCount, BocDispatcher dispatcher, int readPercent, int pairPercent, bool yieldEveryCheck)
    {
        // Three outside threads and the bodies of "producer" behaviours all flood the same few cowns, mostly with
        // appendable one-cown writes or two-cown writes, mixed with reads (and with each other: a pair ends a run of
        // one-cown appends, and the reverse), and with every cown held at the start so that the queues are busy. The
        // oracle checks exclusivity and spawn order per cown; every behaviour must run exactly once, and quiescence must
        // come only after all of them. With yieldEveryCheck, runs of appended bodies hand their worker over (and resume
        // on any worker) whenever other work waits, so the rest of a run races the other spawns on the same cowns.
        const int Spawners = 3;
        const int PerSpawner = 6_000;
        const int PerProducer = 400;
        string context = $"seed={seed} cowns={cownCount} dispatcher={dispatcher} reads={readPercent}% pairs={pairPercent}% yieldEveryCheck={yieldEveryCheck}";

        // Plans: (kind, first cown, second cown); kind 0 = one-cown write, 1 = read, 2 = two-cown write, 3 = a producer
        // body that spawns PerProducer one-cown writes on its own cown.
        var plans = new (int Kind, int A, int B)[Spawners][];
        int producers = 0;
        int writes = 98 - pairPercent - readPercent;
        for (int s = 0; s < Spawners; s++)
        {
            var random = new Random((seed * 31) + s);
            plans[s] = new (int, int, int)[PerSpawner];
            for (int i = 0; i < PerSpawner; i++)
            {
                int roll = random.Next(100);
                int kind = roll < writes ? 0 : roll < writes + readPercent ? 1 : roll < 98 ? 2 : 3;
                if (kind == 2 && cownCount == 1)
                {
                    kind = 0;
                }

                int a = random.Next(cownCount);
                int b = cownCount == 1 ? a : (a + 1 + random.Next(cownCount - 1)) % cownCount;
                plans[s][i] = (kind, a, b);
                producers += kind == 3 ? 1 : 0;
            }
        }

        int outside = Spawners * PerSpawner;
        int total = outside + (producers * PerProducer);
        var clock = new LogicalClock();
        var (spawnStart, spawnEnd, start, end, runs) = (new long[total], new long[total], new long[total], new long[total], new int[total]);
        var accessCown = new int[total];
        var accessWrites = new bool[total];
        var secondCown = new int[total];
        int nextInner = outside - 1;
        var cowns = Enumerable.Range(0, cownCount).Select(_ => new Cown<int[]>(new int[1])).ToArray();

        // A scheduler of the test's own for a zero slice (disposed after the runtime); else the runtime's own dispatcher.
        using BocScheduler? yielding = yieldEveryCheck
            ? new BocScheduler(Environment.ProcessorCount, stuckCheck: true) { Floods = { SliceMilliseconds = 0 } }
            : null;
        var runtime = yielding is null
            ? new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher })
            : new BocRuntime(new BocRuntimeOptions(), yielding, yielding, TimeProvider.System);
        using var go = new Barrier(Spawners + 1);
        using var release = new ManualResetEventSlim();
        foreach (Cown<int[]> cown in cowns)
        {
            // Hold every cown until the spawners have started, so that the first spawns land behind a busy tail.
            runtime.When(cown, _ => release.Wait());
        }

        var threads = Enumerable.Range(0, Spawners).Select(s => new Thread(() =>
        {
            go.SignalAndWait();
            for (int i = 0; i < PerSpawner; i++)
            {
                int id = (s * PerSpawner) + i;
                (int kind, int a, int b) = plans[s][i];
                accessCown[id] = a;
                accessWrites[id] = kind != 1;
                secondCown[id] = kind == 2 ? b : -1;
                spawnStart[id] = clock.Tick();
                switch (kind)
                {
                    case 0:
                        runtime.When(cowns[a], _ => Body(id));
                        break;
                    case 1:
                        runtime.When(Cown.Read(cowns[a]), _ => Body(id));
                        break;
                    case 2:
                        runtime.When(cowns[a], cowns[b], (_, _) => Body(id));
                        break;
                    default:
                        runtime.When(cowns[a], _ =>
                        {
                            Body(id);
                            for (int k = 0; k < PerProducer; k++)
                            {
                                int inner = Interlocked.Increment(ref nextInner);
                                accessCown[inner] = a;
                                accessWrites[inner] = true;
                                secondCown[inner] = -1;
                                spawnStart[inner] = clock.Tick();
                                runtime.When(cowns[a], _ => Body(inner));
                                spawnEnd[inner] = clock.Tick();
                            }
                        });
                        break;
                }

                spawnEnd[id] = clock.Tick();
            }
        })).ToArray();

        foreach (Thread t in threads)
        {
            t.Start();
        }

        go.SignalAndWait();
        release.Set();
        foreach (Thread t in threads)
        {
            Assert.True(t.Join(Progress.Limit), $"{context}: a spawner made no progress");
        }

        await runtime.WaitForQuiescenceAsync().Guard();

        // Quiescence only after every behaviour (inner ones included) has run.
        int[] wrongRuns = Enumerable.Range(0, total).Where(id => Volatile.Read(ref runs[id]) != 1).Take(5).ToArray();
        Assert.True(wrongRuns.Length == 0, $"{context}: at quiescence, behaviours not run exactly once, e.g. {string.Join(", ", wrongRuns.Select(id => $"#{id} ran {runs[id]}x"))}");
        await runtime.DisposeAsync();

        var accesses = new List<Access>();
        for (int id = 0; id < total; id++)
        {
            accesses.Add(new Access(id, accessCown[id], accessWrites[id], spawnStart[id], spawnEnd[id], start[id], end[id]));
            if (secondCown[id] >= 0)
            {
                accesses.Add(new Access(id, secondCown[id], true, spawnStart[id], spawnEnd[id], start[id], end[id]));
            }
        }

        List<string> violations = Oracle.Check(accesses);
        Assert.True(violations.Count == 0, $"{context}: {string.Join("; ", violations)}");
        output.WriteLine($"{context}: {total} behaviours ({producers} producers), {yielding?.Floods.YieldedRuns ?? 0} yielded runs");

        // Else the row would race nothing it was meant to (with several cowns, some run always finds other work waiting).
        Assert.True(yielding is null || yielding.Floods.YieldedRuns > 0, $"{context}: no run of appended bodies yielded");

        void Body(int id)
        {
            start[id] = clock.Tick();
            Interlocked.Increment(ref runs[id]);
            end[id] = clock.Tick();
        }
    }

    public static TheoryData<BocDispatcher, bool> DispatchersAndPairs => new()
    {
        { BocDispatcher.BocScheduler, false },
        { BocDispatcher.ThreadPool, false },
        { BocDispatcher.BocScheduler, true },
        { BocDispatcher.ThreadPool, true },
    };

    [Theory]
    [MemberData(nameof(DispatchersAndPairs))]
    public async Task DisposalDuringAFlood_RunsEveryAcceptedSpawn_AndRefusesTheRest(BocDispatcher dispatcher, bool pairs)
    {
        // Spawner threads flood two cowns (one at a time, or both as a pair, each spawner in its own order) while the
        // runtime is disposed. Every When either returned (accepted: its body must have run once when disposal
        // completes) or threw ObjectDisposedException (refused: its body never runs).
        const int Spawners = 2;
        const int PerSpawner = 50_000;
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var cowns = new[] { new Cown<int[]>(new int[1]), new Cown<int[]>(new int[1]) };
        var runs = new int[Spawners * PerSpawner];
        var accepted = new bool[Spawners * PerSpawner];
        using var go = new Barrier(Spawners + 1);
        var threads = Enumerable.Range(0, Spawners).Select(s => new Thread(() =>
        {
            go.SignalAndWait();
            for (int i = 0; i < PerSpawner; i++)
            {
                int id = (s * PerSpawner) + i;
                try
                {
                    if (pairs)
                    {
                        runtime.When(cowns[s % 2], cowns[(s + 1) % 2], (_, _) => Interlocked.Increment(ref runs[id]));
                    }
                    else
                    {
                        runtime.When(cowns[i % 2], _ => Interlocked.Increment(ref runs[id]));
                    }

                    accepted[id] = true;
                }
                catch (ObjectDisposedException)
                {
                    return;
                }
            }
        })).ToArray();

        foreach (Thread t in threads)
        {
            t.Start();
        }

        go.SignalAndWait();
        while (!Volatile.Read(ref accepted[PerSpawner / 4]))
        {
            Thread.Yield();
        }

        await runtime.DisposeAsync().AsTask().Guard();
        foreach (Thread t in threads)
        {
            Assert.True(t.Join(Progress.Limit), "a spawner made no progress");
        }

        int acceptedCount = accepted.Count(a => a);
        int[] wrong = Enumerable.Range(0, runs.Length).Where(id => runs[id] != (accepted[id] ? 1 : 0)).Take(5).ToArray();
        output.WriteLine($"{dispatcher}, pairs={pairs}: {acceptedCount} of {runs.Length} spawns accepted before disposal");
        Assert.True(wrong.Length == 0, $"ran the wrong number of times: {string.Join(", ", wrong.Select(id => $"#{id} accepted={accepted[id]} ran {runs[id]}x"))}");
    }

    /// <summary>The appended-body count in one line of a queue dump (0 if none).</summary>
    /// <summary>
    /// Spawns <paramref name="n"/> reads and then a writer behind a cown held by a running body, and checks that every
    /// read ran once and before the writer; returns the queue dump's reader lines (taken while the cown was held).
    /// </summary>
    private static async Task<string[]> ReadFloodBehindAHeldCown(BocRuntime runtime, int n, Action? whileHeld)
    {
        var cown = new Cown<int[]>(new int[1]);
        var runs = new int[n];
        int[]? seenByWriter = null;
        using var holding = new ManualResetEventSlim();
        using var spawned = new ManualResetEventSlim();
        string dump = "";
        runtime.When(cown, _ =>
        {
            holding.Set();
            spawned.Wait();
            dump = cown.DescribeQueue(limit: n + 2);
        });

        Assert.True(holding.Wait(Progress.Limit), "the holder never started");
        whileHeld?.Invoke();
        for (int i = 0; i < n; i++)
        {
            int index = i;
            runtime.When(Cown.Read(cown), _ => Interlocked.Increment(ref runs[index]));
        }

        runtime.When(cown, _ => seenByWriter = runs.Select((_, i) => Volatile.Read(ref runs[i])).ToArray());
        spawned.Set();
        await runtime.WaitForQuiescenceAsync().Guard();

        Assert.All(runs, r => Assert.Equal(1, r));
        Assert.NotNull(seenByWriter);
        Assert.True(seenByWriter.All(r => r == 1), $"the writer ran before {seenByWriter.Count(r => r != 1)} of the reads");
        string[] readers = dump.Split('\n').Skip(2).Where(l => l.Contains("(read)", StringComparison.Ordinal)).ToArray();
        Assert.Equal(n, readers.Sum(l => 1 + AppendedIn(l)));
        return readers;
    }

    private static int AppendedIn(string line)
    {
        int plus = line.IndexOf(", +", StringComparison.Ordinal);
        if (plus < 0)
        {
            return 0;
        }

        int endOfNumber = line.IndexOf(' ', plus + 3);
        return int.Parse(line[(plus + 3)..endOfNumber], System.Globalization.CultureInfo.InvariantCulture);
    }
}
