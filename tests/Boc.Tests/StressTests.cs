using System.Collections.Concurrent;
using Xunit.Abstractions;

namespace Boc.Tests;

/// <summary>
/// Seeded random programs over many cowns, checked by <see cref="Oracle"/>: exclusivity, happens-before in spawn order
/// (including spawns from inside behaviours), exactly-once execution, exactly-once exception delivery, and quiescence.
/// The seed and parameters are in every failure message; rerun one with
/// <c>BOC_STRESS_SEED=&lt;seed&gt; dotnet test --filter StressTests</c>.
/// </summary>
public sealed class StressTests(ITestOutputHelper output)
{
    public static TheoryData<int, int, double, int?, BocDispatcher> Programs()
    {
        // seed, cowns, share of read-only requests, worker count (null: the dispatcher's default), dispatcher
        const BocDispatcher Pool = BocDispatcher.ThreadPool;
        const BocDispatcher Boc = BocDispatcher.BocScheduler;
        var data = new TheoryData<int, int, double, int?, BocDispatcher>
        {
            { 1, 64, 0.4, null, Pool },
            { 2, 64, 0.4, 2, Pool },
            { 3, 4, 0.85, null, Pool },   // long reader runs racing with writers on few cowns
            { 4, 16, 0.5, 1, Pool },
            { 5, 64, 0.4, null, Boc },
            { 6, 4, 0.85, null, Boc },
            { 7, 16, 0.5, 1, Boc },
            { 8, 64, 0.4, 3, Boc },
        };
        if (int.TryParse(Environment.GetEnvironmentVariable("BOC_STRESS_SEED"), out int extra))
        {
            data.Add(extra, 64, 0.4, null, Pool);
            data.Add(extra, 4, 0.85, null, Boc);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Programs))]
    public async Task RandomProgram_IsExclusiveOrderedExactlyOnceAndQuiesces(int seed, int cownCount, double readShare, int? workers, BocDispatcher dispatcher)
    {
        const int TopLevel = 64_000;
        string context = $"seed={seed} cowns={cownCount} readShare={readShare} workers={workers?.ToString() ?? "default"} dispatcher={dispatcher}";
        var plan = Plan.Generate(seed, TopLevel, cownCount, readShare);
        Assert.True(plan.Nodes.Count >= 100_000, $"{context}: the plan has only {plan.Nodes.Count} behaviours");

        var delivered = new ConcurrentQueue<int>();
        var runtime = new BocRuntime(new BocRuntimeOptions
        {
            WorkerCount = workers,
            Dispatcher = dispatcher,
            UnhandledExceptionHandler = e => delivered.Enqueue(((PlannedFailure)e).Node),
        });
        await using var drain = runtime.DrainOnExit();
        var execution = new Execution(plan, runtime, cownCount);

        var watch = System.Diagnostics.Stopwatch.StartNew();
        foreach (Node root in plan.Roots)
        {
            execution.Spawn(root);
        }

        await runtime.WaitForQuiescenceAsync().Guard();
        int unfinishedAtQuiescence = execution.CountUnfinished();
        watch.Stop();
        output.WriteLine($"{context}: {plan.Nodes.Count} behaviours ({plan.Roots.Count} top-level) in {watch.ElapsedMilliseconds} ms");

        Assert.True(unfinishedAtQuiescence == 0, $"{context}: quiescence reported with {unfinishedAtQuiescence} behaviours unfinished");
        int[] wrongRuns = plan.Nodes.Where(n => execution.Runs[n.Id] != 1).Select(n => n.Id).Take(5).ToArray();
        Assert.True(wrongRuns.Length == 0, $"{context}: behaviours not run exactly once, e.g. {string.Join(", ", wrongRuns.Select(id => $"#{id} ran {execution.Runs[id]}x"))}");
        Assert.True(execution.DirectViolations.IsEmpty, $"{context}: exclusivity broken inside bodies: {string.Join("; ", execution.DirectViolations.Take(5))}");

        List<string> violations = Oracle.Check(execution.Accesses());
        Assert.True(violations.Count == 0, $"{context}: {string.Join("; ", violations)}");

        int[] expectedFailures = plan.Nodes.Where(n => n.Throws).Select(n => n.Id).Order().ToArray();
        Assert.True(expectedFailures.Length > 0, $"{context}: the plan has no throwing bodies");
        Assert.True(expectedFailures.SequenceEqual(delivered.Order()), $"{context}: {expectedFailures.Length} bodies threw but {delivered.Count} exceptions were delivered");
    }

    private sealed class PlannedFailure(int node) : Exception($"planned failure of behaviour {node}")
    {
        public int Node { get; } = node;
    }

    private sealed record Node(int Id, int[] Cowns, bool[] Writes, bool Throws, bool UseList, int Work, List<Node> Children);

    private sealed class Plan
    {
        public List<Node> Nodes { get; } = [];

        public List<Node> Roots { get; } = [];

        public static Plan Generate(int seed, int topLevel, int cownCount, double readShare)
        {
            var random = new Random(seed);
            var plan = new Plan();
            for (int i = 0; i < topLevel; i++)
            {
                plan.Roots.Add(plan.NewNode(random, cownCount, readShare, depth: 0));
            }

            return plan;
        }

        private Node NewNode(Random random, int cownCount, double readShare, int depth)
        {
            // 1-4 cowns, possibly repeated (duplicates are legal and acquired once).
            int arity = random.Next(1, 5);
            var cowns = new int[arity];
            var writes = new bool[arity];
            for (int i = 0; i < arity; i++)
            {
                cowns[i] = random.Next(cownCount);
                writes[i] = random.NextDouble() >= readShare;
            }

            var node = new Node(Nodes.Count, cowns, writes, random.NextDouble() < 0.02, random.NextDouble() < 0.15, random.Next(0, 40), []);
            Nodes.Add(node);
            if (depth < 3 && random.NextDouble() < 0.35)
            {
                int children = random.Next(1, 3);
                for (int c = 0; c < children; c++)
                {
                    node.Children.Add(NewNode(random, cownCount, readShare, depth + 1));
                }
            }

            return node;
        }
    }

    private sealed class Cell
    {
        // -1: a writer is inside; n > 0: n readers are inside. Touched only with Interlocked, as instrumentation.
        public int Occupancy;
    }

    private sealed class Execution
    {
        private readonly Plan _plan;
        private readonly BocRuntime _runtime;
        private readonly Cown<Cell>[] _cowns;
        private readonly LogicalClock _clock = new();
        private readonly long[] _spawnStart;
        private readonly long[] _spawnEnd;
        private readonly long[] _start;
        private readonly long[] _end;

        public Execution(Plan plan, BocRuntime runtime, int cownCount)
        {
            _plan = plan;
            _runtime = runtime;
            _cowns = Enumerable.Range(0, cownCount).Select(_ => new Cown<Cell>(new Cell())).ToArray();
            int n = plan.Nodes.Count;
            (_spawnStart, _spawnEnd, _start, _end, Runs) = (new long[n], new long[n], new long[n], new long[n], new int[n]);
        }

        public int[] Runs { get; }

        public ConcurrentQueue<string> DirectViolations { get; } = new();

        public void Spawn(Node node)
        {
            IAcquirable<Cell> At(int i) => node.Writes[i] ? _cowns[node.Cowns[i]] : Cown.Read(_cowns[node.Cowns[i]]);

            _spawnStart[node.Id] = _clock.Tick();
            if (node.UseList)
            {
                _runtime.When(Enumerable.Range(0, node.Cowns.Length).Select(At).ToArray(), _ => Body(node));
            }
            else
            {
                switch (node.Cowns.Length)
                {
                    case 1: _runtime.When(At(0), _ => Body(node)); break;
                    case 2: _runtime.When(At(0), At(1), (_, _) => Body(node)); break;
                    case 3: _runtime.When(At(0), At(1), At(2), (_, _, _) => Body(node)); break;
                    default: _runtime.When(At(0), At(1), At(2), At(3), (_, _, _, _) => Body(node)); break;
                }
            }

            _spawnEnd[node.Id] = _clock.Tick();
        }

        public int CountUnfinished() => _plan.Nodes.Count(n => Volatile.Read(ref _end[n.Id]) == 0);

        public IEnumerable<Access> Accesses()
        {
            foreach (Node node in _plan.Nodes)
            {
                foreach ((int cown, bool writes) in Merged(node))
                {
                    yield return new Access(node.Id, cown, writes, _spawnStart[node.Id], _spawnEnd[node.Id], _start[node.Id], _end[node.Id]);
                }
            }
        }

        private static IEnumerable<(int Cown, bool Writes)> Merged(Node node) =>
            node.Cowns.Zip(node.Writes).GroupBy(p => p.First).Select(g => (g.Key, g.Any(p => p.Second)));

        private void Body(Node node)
        {
            _start[node.Id] = _clock.Tick();
            Interlocked.Increment(ref Runs[node.Id]);
            (int Cown, bool Writes)[] held = Merged(node).ToArray();
            foreach ((int cown, bool writes) in held)
            {
                Enter(cown, writes, node.Id);
            }

            Thread.SpinWait(node.Work);
            foreach (Node child in node.Children)
            {
                Spawn(child);
            }

            foreach ((int cown, bool writes) in held)
            {
                Leave(cown, writes);
            }

            _end[node.Id] = _clock.Tick();
            if (node.Throws)
            {
                throw new PlannedFailure(node.Id);
            }
        }

        private void Enter(int cown, bool writes, int id)
        {
            Cell cell = StateOf(cown);
            if (writes)
            {
                int seen = Interlocked.CompareExchange(ref cell.Occupancy, -1, 0);
                if (seen != 0)
                {
                    DirectViolations.Enqueue($"writer #{id} entered cown {cown} with occupancy {seen}");
                }

                return;
            }

            int after = Interlocked.Increment(ref cell.Occupancy);
            if (after <= 0)
            {
                DirectViolations.Enqueue($"reader #{id} entered cown {cown} while a writer was inside");
            }
        }

        private void Leave(int cown, bool writes)
        {
            Cell cell = StateOf(cown);
            if (writes)
            {
                Interlocked.Exchange(ref cell.Occupancy, 0);
            }
            else
            {
                Interlocked.Decrement(ref cell.Occupancy);
            }
        }

        // The instrumentation reads the cell through the cown's internal state so it can check occupancy of every
        // cown the body holds without threading the body's parameters through the plan.
        private Cell StateOf(int cown) => (Cell)_cowns[cown].State;
    }
}
