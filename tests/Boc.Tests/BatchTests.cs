using Xunit.Abstractions;

namespace Boc.Tests;

/// <summary>
/// Atomic batches (<see cref="BocRuntime.Batch(Action{BocBatch})"/>): no foreign behaviour between two members of a
/// batch on a cown they share, members in batch order on each cown, all or nothing at spawn. The seeded test prints its
/// seed in every failure message; rerun one with <c>BOC_STRESS_SEED=&lt;seed&gt; dotnet test --filter BatchTests</c>.
/// </summary>
public sealed class BatchTests(ITestOutputHelper output)
{
    public static TheoryData<int, int, BocDispatcher> Programs()
    {
        // seed, cowns, dispatcher
        var data = new TheoryData<int, int, BocDispatcher>
        {
            { 1, 4, BocDispatcher.ThreadPool },
            { 2, 12, BocDispatcher.ThreadPool },
            { 3, 4, BocDispatcher.BocScheduler },
            { 4, 12, BocDispatcher.BocScheduler },
        };
        if (int.TryParse(Environment.GetEnvironmentVariable("BOC_STRESS_SEED"), out int extra))
        {
            data.Add(extra, 4, BocDispatcher.ThreadPool);
            data.Add(extra, 8, BocDispatcher.BocScheduler);
        }

        return data;
    }

    /// <summary>
    /// Several threads, and bodies, spawn seeded batches and single behaviours (writers) on random overlapping cowns.
    /// Checked: exactly-once; the oracle's exclusivity and spawn order; on every cown, each batch's members run
    /// back to back in batch order; and the order of spawns (a batch counting as one) on all cowns together is
    /// acyclic, i.e. consistent with one total order of spawns in which each batch is one step.
    /// </summary>
    [Theory]
    [MemberData(nameof(Programs))]
    public async Task RandomBatchesAndSingles_AreContiguousOrderedExclusiveAndExactlyOnce(int seed, int cownCount, BocDispatcher dispatcher)
    {
        const int Spawners = 3;
        const int PerSpawner = 2_500;
        string context = $"seed={seed} cowns={cownCount} dispatcher={dispatcher}";
        var plan = new BatchPlan(seed, Spawners, PerSpawner, cownCount);

        var clock = new LogicalClock();
        int total = plan.Members.Count;
        var (spawnStart, spawnEnd, start, end, runs) = (new long[total], new long[total], new long[total], new long[total], new int[total]);
        var cowns = Enumerable.Range(0, cownCount).Select(_ => new Cown<int[]>(new int[1])).ToArray();
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        await using var drain = runtime.DrainOnExit();

        using var go = new Barrier(Spawners);
        var threads = Enumerable.Range(0, Spawners).Select(s => new Thread(() =>
        {
            go.SignalAndWait();
            foreach (Unit unit in plan.Roots[s])
            {
                SpawnUnit(unit);
            }
        })).ToArray();
        foreach (Thread t in threads)
        {
            t.Start();
        }

        foreach (Thread t in threads)
        {
            Assert.True(t.Join(Progress.Limit), $"{context}: a spawner made no progress");
        }

        await runtime.WaitForQuiescenceAsync().Guard();

        int[] wrongRuns = Enumerable.Range(0, total).Where(id => runs[id] != 1).Take(5).ToArray();
        Assert.True(wrongRuns.Length == 0, $"{context}: behaviours not run exactly once, e.g. {string.Join(", ", wrongRuns.Select(id => $"#{id} ran {runs[id]}x"))}");

        var accesses = new List<Access>();
        foreach (Member m in plan.Members)
        {
            foreach (int c in m.Cowns)
            {
                accesses.Add(new Access(m.Id, c, Writes: true, spawnStart[m.Id], spawnEnd[m.Id], start[m.Id], end[m.Id]));
            }
        }

        List<string> violations = Oracle.Check(accesses);
        Assert.True(violations.Count == 0, $"{context}: {string.Join("; ", violations)}");
        List<string> batchViolations = BatchOracle.Check(plan, accesses);
        Assert.True(batchViolations.Count == 0, $"{context}: {string.Join("; ", batchViolations)}");
        output.WriteLine($"{context}: {plan.Units} spawns ({plan.Batches} batches), {total} behaviours");

        void SpawnUnit(Unit unit)
        {
            long before = clock.Tick();
            if (unit.IsBatch)
            {
                runtime.Batch(b =>
                {
                    foreach (Member m in unit.Members)
                    {
                        AddTo(b, m);
                    }
                });
            }
            else
            {
                Member m = unit.Members[0];
                IAcquirable<int[]>[] set = m.Cowns.Select(c => (IAcquirable<int[]>)cowns[c]).ToArray();
                runtime.When(set, _ => Body(m));
            }

            long after = clock.Tick();
            foreach (Member m in unit.Members)
            {
                spawnStart[m.Id] = before;
                spawnEnd[m.Id] = after;
            }
        }

        void AddTo(BocBatch b, Member m)
        {
            // Exercise the fixed-arity forms as well as the dynamic one.
            switch (m.Cowns.Length)
            {
                case 1:
                    b.When(cowns[m.Cowns[0]], static (_, s) => s.Body(s.Member), (Body: (Action<Member>)Body, Member: m));
                    break;
                case 2:
                    b.When(cowns[m.Cowns[0]], cowns[m.Cowns[1]], (_, _) => Body(m));
                    break;
                default:
                    b.When(m.Cowns.Select(c => (IAcquirable<int[]>)cowns[c]).ToArray(), _ => Body(m));
                    break;
            }
        }

        void Body(Member m)
        {
            start[m.Id] = clock.Tick();
            Interlocked.Increment(ref runs[m.Id]);
            Thread.SpinWait(m.Work);
            foreach (Unit child in m.Children)
            {
                SpawnUnit(child);
            }

            end[m.Id] = clock.Tick();
        }
    }

    /// <summary>
    /// A batch {When(a), When(a, b)} racing single spawns on a and on b: on a, the two members always run back to
    /// back, first then second.
    /// </summary>
    [Theory]
    [InlineData(BocDispatcher.ThreadPool)]
    [InlineData(BocDispatcher.BocScheduler)]
    public async Task TwoMemberBatch_NothingLandsBetweenTheMembersOnTheSharedCown(BocDispatcher dispatcher)
    {
        const int Batches = 20_000;
        const int Singles = 20_000;
        var a = new Cown<List<int>>([]);
        var b = new Cown<List<int>>([]);
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        await using var drain = runtime.DrainOnExit();

        // Ids: batch k's members are 2k + 1 (a) and 2k + 2 (a, b); singles are negative.
        using var go = new Barrier(3);
        var batcher = new Thread(() =>
        {
            go.SignalAndWait();
            for (int k = 0; k < Batches; k++)
            {
                int first = (2 * k) + 1;
                runtime.Batch(batch =>
                {
                    batch.When(a, static (x, id) => x.Add(id), first);
                    batch.When(a, b, static (x, y, id) => { x.Add(id); y.Add(id); }, first + 1);
                });
            }
        });
        var onA = new Thread(() =>
        {
            go.SignalAndWait();
            for (int i = 1; i <= Singles; i++)
            {
                runtime.When(a, static (x, id) => x.Add(id), -i);
            }
        });
        var onB = new Thread(() =>
        {
            go.SignalAndWait();
            for (int i = 1; i <= Singles; i++)
            {
                runtime.When(b, static (y, id) => y.Add(id), -i);
            }
        });
        foreach (Thread t in new[] { batcher, onA, onB })
        {
            t.Start();
        }

        foreach (Thread t in new[] { batcher, onA, onB })
        {
            Assert.True(t.Join(Progress.Limit), "a spawner made no progress");
        }

        await runtime.WaitForQuiescenceAsync().Guard();
        List<int> onCownA = await runtime.WhenAsync(a, static x => x.ToList()).Guard();
        Assert.Equal((2 * Batches) + Singles, onCownA.Count);
        int interleaved = 0;
        string? example = null;
        for (int i = 0; i < onCownA.Count; i++)
        {
            int id = onCownA[i];
            if (id > 0 && id % 2 == 1 && (i + 1 >= onCownA.Count || onCownA[i + 1] != id + 1))
            {
                interleaved++;
                example ??= $"member {id} was followed by {(i + 1 < onCownA.Count ? onCownA[i + 1] : "nothing")} on a";
            }
        }

        Assert.True(interleaved == 0, $"{interleaved} batches were split on cown a, e.g. {example}");
    }

    /// <summary>
    /// Readers in batches: a batch {read a, read a, write a, read a} (and a two-cown mix) racing single writers and
    /// readers on a. Each batch's members keep their order (the readers before the writer end before it starts; the
    /// reader after it starts after it ends), and no foreign writer runs inside a batch's span: each is wholly before
    /// or wholly after it.
    /// </summary>
    [Theory]
    [InlineData(BocDispatcher.ThreadPool)]
    [InlineData(BocDispatcher.BocScheduler)]
    public async Task ReadersInBatches_KeepBatchOrderAndNoForeignWriterComesBetween(BocDispatcher dispatcher)
    {
        const int Batches = 3_000;
        const int Foreign = 6_000;
        var clock = new LogicalClock();
        var a = new Cown<int[]>(new int[1]);
        var b = new Cown<int[]>(new int[1]);
        var memberSpans = new (long Start, long End)[Batches, 5];
        var foreignWriters = new (long Start, long End)[Foreign];
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        await using var drain = runtime.DrainOnExit();

        using var go = new Barrier(2);
        var batcher = new Thread(() =>
        {
            go.SignalAndWait();
            for (int k = 0; k < Batches; k++)
            {
                int batch = k;
                runtime.Batch(x =>
                {
                    x.When(Cown.Read(a), _ => Stamp(batch, 0));
                    x.When(Cown.Read(a), Cown.Read(b), (_, _) => Stamp(batch, 1));
                    x.When(a, _ => Stamp(batch, 2));
                    x.When(Cown.Read(a), b, (_, _) => Stamp(batch, 3));
                    x.When(Cown.Read(a), _ => Stamp(batch, 4));
                });
            }
        });
        var foreign = new Thread(() =>
        {
            go.SignalAndWait();
            for (int i = 0; i < Foreign; i++)
            {
                int id = i;
                if (i % 2 == 0)
                {
                    runtime.When(a, _ =>
                    {
                        long s = clock.Tick();
                        Thread.SpinWait(20);
                        foreignWriters[id] = (s, clock.Tick());
                    });
                }
                else
                {
                    runtime.When(Cown.Read(a), _ => Thread.SpinWait(20));
                }
            }
        });
        batcher.Start();
        foreign.Start();
        Assert.True(batcher.Join(Progress.Limit) && foreign.Join(Progress.Limit), "a spawner made no progress");
        await runtime.WaitForQuiescenceAsync().Guard();

        var problems = new List<string>();
        var writers = Enumerable.Range(0, Foreign).Where(i => i % 2 == 0).Select(i => foreignWriters[i]).OrderBy(w => w.Start).ToArray();
        for (int k = 0; k < Batches && problems.Count < 5; k++)
        {
            (long Start, long End)[] m = Enumerable.Range(0, 5).Select(i => memberSpans[k, i]).ToArray();
            if (!(m[0].End < m[2].Start && m[1].End < m[2].Start && m[2].End < m[3].Start && m[2].End < m[4].Start))
            {
                problems.Add($"batch {k}: members out of order ({string.Join(", ", m.Select(s => $"[{s.Start},{s.End}]"))})");
            }

            long first = m.Min(s => s.Start);
            long last = m.Max(s => s.End);
            foreach ((long s, long e) in writers)
            {
                if (!(e < first || s > last))
                {
                    problems.Add($"batch {k} ran over [{first},{last}] and a foreign writer of a over [{s},{e}]");
                    break;
                }
            }
        }

        Assert.True(problems.Count == 0, string.Join("; ", problems));

        void Stamp(int batch, int member)
        {
            long s = clock.Tick();
            Thread.SpinWait(10);
            memberSpans[batch, member] = (s, clock.Tick());
        }
    }

    [Fact]
    public async Task BuilderThrows_NothingIsEnqueued_AwaitablesAreCanceled_CownsStayUsable()
    {
        var runtime = new BocRuntime();
        await using var drain = runtime.DrainOnExit();
        int[] stateA = new int[1];
        var a = new Cown<int[]>(stateA);
        var b = new Cown<int[]>(new int[1]);
        BocBatch? leaked = null;
        Task<int>? result = null;

        var thrown = Assert.Throws<MarkerException>(() => runtime.Batch(batch =>
        {
            leaked = batch;
            batch.When(a, x => x[0]++);
            result = batch.WhenAsync(a, b, (x, y) => ++x[0] + ++y[0]).AsTask();
            Assert.Equal(2, batch.Count);
            throw new MarkerException();
        }));

        Assert.Equal(0, runtime.PendingCount);
        var canceled = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => result!).Guard();
        Assert.Same(thrown, canceled.InnerException);

        // The builder is closed: a late use throws before it changes anything.
        Assert.Throws<InvalidOperationException>(() => leaked!.When(a, x => x[0]++));
        Assert.Throws<InvalidOperationException>(() => leaked!.Count);

        // The cowns were never queued on: they serve new behaviours at once, and no batch body ever ran.
        Assert.Equal(0, await runtime.WhenAsync(a, b, (x, y) => x[0] + y[0]).Guard());
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(0, stateA[0]);
    }

    [Fact]
    public async Task BoundedThrowMode_BatchLargerThanTheRoomIsRefusedWhole()
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { MaxPendingBehaviours = 3, FullMode = BocFullMode.Throw });
        await using var drain = runtime.DrainOnExit();
        int[] stateA = new int[1];
        int[] stateB = new int[1];
        var a = new Cown<int[]>(stateA);
        var b = new Cown<int[]>(stateB);
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var blocker = new Cown<object>(new object());
        runtime.When(blocker, _ => gate.Task);
        runtime.When(blocker, _ => gate.Task);
        Assert.Equal(2, runtime.PendingCount);

        Task? member = null;
        Assert.Throws<BocRuntimeFullException>(() => runtime.Batch(x =>
        {
            x.When(a, y => y[0]++);
            member = x.WhenAsync(b, y => { y[0]++; }).AsTask();
        }));
        Assert.Equal(2, runtime.PendingCount);
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => member!).Guard();

        // More members than the bound: never admissible, so refused as a program error, in either mode.
        var tooBig = Assert.Throws<InvalidOperationException>(() => runtime.Batch(x =>
        {
            for (int i = 0; i < 4; i++)
            {
                x.When(a, y => y[0]++);
            }
        }));
        Assert.IsNotType<BocRuntimeFullException>(tooBig);

        gate.SetResult();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(0, stateA[0] + stateB[0]);

        // With room, the same batch is admitted whole.
        runtime.Batch(x =>
        {
            x.When(a, y => y[0]++);
            x.When(b, y => y[0]++);
            x.When(a, b, (y, z) => { y[0]++; z[0]++; });
        });
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal((2, 2), (stateA[0], stateB[0]));
    }

    [Fact]
    public async Task BoundedWaitMode_BatchIsAdmittedOnlyWithRoomForEveryMember()
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { MaxPendingBehaviours = 3, FullMode = BocFullMode.Wait });
        await using var drain = runtime.DrainOnExit();
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var blocker = new Cown<object>(new object());
        runtime.When(blocker, _ => gate.Task);
        runtime.When(blocker, _ => gate.Task);
        var a = new Cown<int[]>(new int[1]);
        var seen = new System.Collections.Concurrent.ConcurrentBag<(bool GateOpen, long Pending)>();

        // Room for one, the batch needs two: Batch blocks until both blockers have finished, which needs the gate.
        Task spawner = Task.Run(() => runtime.Batch(x =>
        {
            x.When(a, _ => seen.Add((gate.Task.IsCompleted, runtime.PendingCount)));
            x.When(a, _ => seen.Add((gate.Task.IsCompleted, runtime.PendingCount)));
        }));

        // Not a timing assertion: the wait only gives a wrong (piecemeal) admission the chance to run members early.
        await Task.Delay(50);
        Assert.Empty(seen);
        gate.SetResult();
        await spawner.Guard();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(2, seen.Count);
        Assert.All(seen, s => Assert.True(s.GateOpen && s.Pending <= 3, $"a member ran with the gate {(s.GateOpen ? "open" : "closed")} and {s.Pending} pending"));
    }

    [Fact]
    public async Task BatchFromInsideABody_IsQueuedBehindTheBodyInOrder_AndExemptFromTheBound()
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { MaxPendingBehaviours = 1, FullMode = BocFullMode.Throw });
        await using var drain = runtime.DrainOnExit();
        List<string> logged = [];
        List<string> otherLogged = [];
        var log = new Cown<List<string>>(logged);
        var other = new Cown<List<string>>(otherLogged);

        await runtime.WhenAsync(log, l =>
        {
            // Three members from inside a body of a runtime bounded at one: admitted, like every inside spawn.
            runtime.Batch(x =>
            {
                x.When(log, other, (m, o) => { m.Add("first"); o.Add("first"); });
                x.When(log, m => m.Add("second"));
                x.When(other, o => o.Add("second"));
            });
            l.Add("parent");
        }).Guard();

        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(["parent", "first", "second"], logged);
        Assert.Equal(["first", "second"], otherLogged);
    }

    [Fact]
    public async Task ResultsReadOnlyAsyncBodiesAndDynamicSets_AllWorkInsideABatch()
    {
        var runtime = new BocRuntime();
        await using var drain = runtime.DrainOnExit();
        var a = new Cown<int[]>([1]);
        var b = new Cown<int[]>([2]);
        Task<int>? sum = null;
        Task<int>? asyncRead = null;
        Task? written = null;
        Task<int>? all = null;
        runtime.Batch(x =>
        {
            written = x.WhenAsync(a, static async y => { await Task.Yield(); y[0] += 10; }).AsTask();
            sum = x.WhenAsync(Cown.Read(a), Cown.Read(b), static (y, z) => y[0] + z[0]).AsTask();
            asyncRead = x.WhenAsync(Cown.Read(b), static async (z, k) => { await Task.Yield(); return z[0] * k; }, 3).AsTask();
            all = x.WhenAsync(new IAcquirable<int[]>[] { a, Cown.Read(b) }, static ys => ys.Sum(y => y[0])).AsTask();
        });

        await written!.Guard();
        Assert.Equal(13, await sum!.Guard());
        Assert.Equal(6, await asyncRead!.Guard());
        Assert.Equal(13, await all!.Guard());
    }

    [Fact]
    public async Task EmptyBatch_DoesNothing_AndBadInputThrowsBeforeAnythingChanges()
    {
        var runtime = new BocRuntime();
        await using var drain = runtime.DrainOnExit();
        int[] stateA = new int[1];
        var a = new Cown<int[]>(stateA);
        runtime.Batch(_ => { });
        Assert.Equal(0, runtime.PendingCount);
        Assert.Throws<ArgumentNullException>(() => runtime.Batch(null!));

        // A null cown or body throws from the builder's method before anything is recorded; caught inside the builder,
        // the batch goes on without it.
        runtime.Batch(x =>
        {
            Assert.Throws<ArgumentNullException>(() => x.When((Cown<int[]>)null!, y => y[0]++));
            Assert.Throws<ArgumentNullException>(() => x.When(a, (Action<int[]>)null!));
            Assert.Throws<ArgumentException>(() => x.When(new IAcquirable<int[]>[] { a, null! }, ys => ys[0][0]++));
            Assert.Equal(0, x.Count);
            x.When(a, y => y[0]++);
        });
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(1, stateA[0]);

        // A disposed runtime refuses a batch whole.
        await runtime.DisposeAsync();
        Task? member = null;
        Assert.Throws<ObjectDisposedException>(() => runtime.Batch(x => member = x.WhenAsync(a, y => { y[0]++; }).AsTask()));
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => member!).Guard();
        Assert.Equal(1, stateA[0]);
    }

    private sealed class MarkerException : Exception;

    private sealed record Member(int Id, int Unit, int Index, int[] Cowns, int Work, List<Unit> Children);

    private sealed record Unit(int Id, Member[] Members, bool IsBatch);

    /// <summary>The seeded program: per spawner thread a list of spawns; some bodies spawn more (children).</summary>
    private sealed class BatchPlan
    {
        public BatchPlan(int seed, int spawners, int perSpawner, int cownCount)
        {
            Roots = new List<Unit>[spawners];
            for (int s = 0; s < spawners; s++)
            {
                var random = new Random((seed * 31) + s);
                Roots[s] = [];
                for (int i = 0; i < perSpawner; i++)
                {
                    Roots[s].Add(NewUnit(random, cownCount, depth: 0));
                }
            }
        }

        public List<Unit>[] Roots { get; }

        public List<Member> Members { get; } = [];

        public List<Unit> AllUnits { get; } = [];

        public int Units => AllUnits.Count;

        public int Batches => AllUnits.Count(u => u.IsBatch);

        private Unit NewUnit(Random random, int cownCount, int depth)
        {
            bool isBatch = random.Next(2) == 0;
            int size = isBatch ? random.Next(2, 5) : 1;
            int unitId = AllUnits.Count;
            var members = new Member[size];
            var unit = new Unit(unitId, members, isBatch);
            AllUnits.Add(unit);
            for (int i = 0; i < size; i++)
            {
                int arity = Math.Min(cownCount, random.Next(1, 4));
                int[] picked = Enumerable.Range(0, cownCount).OrderBy(_ => random.Next()).Take(arity).ToArray();
                var member = new Member(Members.Count, unitId, i, picked, random.Next(0, 30), []);
                Members.Add(member);
                members[i] = member;
            }

            if (depth < 2 && random.NextDouble() < 0.2)
            {
                members[0].Children.Add(NewUnit(random, cownCount, depth + 1));
            }

            return unit;
        }
    }

    /// <summary>
    /// The batch checks over writer-only accesses (so each cown's bodies ran one at a time, in start order).
    /// </summary>
    private static class BatchOracle
    {
        public static List<string> Check(BatchPlan plan, List<Access> accesses)
        {
            var problems = new List<string>();
            var edges = new HashSet<(int From, int To)>();
            foreach (IGrouping<int, Access> perCown in accesses.GroupBy(x => x.Cown))
            {
                Member[] order = perCown.OrderBy(x => x.Start).Select(x => plan.Members[x.Behaviour]).ToArray();
                for (int i = 0; i < order.Length; i++)
                {
                    Member m = order[i];
                    int next = i + 1;
                    if (plan.AllUnits[m.Unit].IsBatch && next < order.Length && order[next].Unit != m.Unit
                        && order.Skip(next + 1).Any(x => x.Unit == m.Unit))
                    {
                        problems.Add($"cown {perCown.Key}: behaviour {order[next].Id} (spawn {order[next].Unit}) ran between members of batch {m.Unit}");
                    }

                    if (next < order.Length && order[next].Unit == m.Unit && order[next].Index < m.Index)
                    {
                        problems.Add($"cown {perCown.Key}: batch {m.Unit}'s member {order[next].Index} ran before its member {m.Index}");
                    }

                    if (next < order.Length && order[next].Unit != m.Unit)
                    {
                        edges.Add((m.Unit, order[next].Unit));
                    }

                    if (problems.Count >= 10)
                    {
                        return problems;
                    }
                }
            }

            // One total order of spawns (a batch as one step) must explain every cown's order: the graph is acyclic.
            var indegree = new int[plan.Units];
            var successors = new List<int>[plan.Units];
            foreach ((int from, int to) in edges)
            {
                (successors[from] ??= []).Add(to);
                indegree[to]++;
            }

            var ready = new Queue<int>(Enumerable.Range(0, plan.Units).Where(u => indegree[u] == 0));
            int sorted = 0;
            while (ready.TryDequeue(out int u))
            {
                sorted++;
                foreach (int v in successors[u] ?? [])
                {
                    if (--indegree[v] == 0)
                    {
                        ready.Enqueue(v);
                    }
                }
            }

            if (sorted != plan.Units)
            {
                problems.Add($"the spawns' orders on different cowns contradict each other: {plan.Units - sorted} spawns lie on a cycle");
            }

            return problems;
        }
    }
}
