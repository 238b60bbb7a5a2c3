using System.Collections.Concurrent;
using Xunit.Abstractions;

namespace Boc.Tests;

/// <summary>
/// Seeded random trees of nested spawns under one scope, checked by an oracle: fire-and-forget members with
/// synchronous and asynchronous bodies, awaited members (<c>WhenAsync</c>), zero-cown behaviours awaited inside bodies,
/// throwing bodies, and child scopes, awaited by the body that began them or left to finish on their own. The finish
/// must complete (never stuck) and only once every member's body has ended (never early); it must deliver exactly the
/// fire-and-forget members' exceptions, each once, with a child scope's failures arriving through the body that
/// awaited it; an awaited member's exception only through its awaitable; nothing to the runtime's handler. Every body
/// runs once, exclusively and in spawn order on its cowns (<see cref="Oracle"/>). The seed is in every failure message;
/// rerun one with <c>BOC_STRESS_SEED=&lt;seed&gt; dotnet test --filter ScopeStressTests</c>.
/// </summary>
public sealed class ScopeStressTests(ITestOutputHelper output)
{
    public static TheoryData<int, int, int?, BocDispatcher> Programs()
    {
        // seed, cowns, worker count (null: the dispatcher's default), dispatcher
        var data = new TheoryData<int, int, int?, BocDispatcher>
        {
            { 1, 16, null, BocDispatcher.ThreadPool },
            { 2, 4, 2, BocDispatcher.ThreadPool },
            { 3, 16, null, BocDispatcher.BocScheduler },
            { 4, 4, 1, BocDispatcher.BocScheduler },
            { 5, 32, 3, BocDispatcher.BocScheduler },
            { 6, 8, null, BocDispatcher.ThreadPool },
        };
        if (int.TryParse(Environment.GetEnvironmentVariable("BOC_STRESS_SEED"), out int extra))
        {
            data.Add(extra, 16, null, BocDispatcher.ThreadPool);
            data.Add(extra, 4, null, BocDispatcher.BocScheduler);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Programs))]
    public async Task ARandomTreeUnderAScope_FinishesExactlyWhenItsLastMemberHas_WithExactlyItsMembersExceptions(
        int seed, int cownCount, int? workers, BocDispatcher dispatcher)
    {
        string context = $"seed={seed} cowns={cownCount} workers={workers?.ToString() ?? "default"} dispatcher={dispatcher}";
        var plan = Plan.Generate(seed, roots: 300, cownCount);
        var leaked = new ConcurrentQueue<Exception>();
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher, WorkerCount = workers, UnhandledExceptionHandler = leaked.Enqueue });
        await using var drain = runtime.DrainOnExit();
        var execution = new Execution(plan, runtime, cownCount);

        AggregateException? failures = null;
        BocScope scope = runtime.BeginScope();
        foreach (Node root in plan.Roots)
        {
            execution.Spawn(root);
        }

        try
        {
            await scope.FinishAsync().Guard();
        }
        catch (AggregateException e)
        {
            failures = e;
        }

        // The first thing after the finish: every member's body must have ended already.
        int[] unfinished = plan.Nodes.Where(n => !execution.Ended(n)).Select(n => n.Id).Take(5).ToArray();
        output.WriteLine($"{context}: {plan.Nodes.Count} behaviours, {plan.Nodes.Count(n => n.Mode == ScopeMode.Awaited)} awaited child scopes, {plan.Nodes.Count(n => n.Mode == ScopeMode.Detached)} detached ones, {failures?.InnerExceptions.Count ?? 0} failures at the finish");
        Assert.True(unfinished.Length == 0, $"{context}: the scope finished before members {string.Join(", ", unfinished)} had");
        Assert.Equal(0, scope.PendingCount);

        var problems = new List<string>();
        Matcher.Set(failures?.InnerExceptions ?? Enumerable.Empty<Exception>(), Expected.Members(plan.Roots), "the scope's finish", problems);
        foreach ((Node node, ValueTask result) in execution.Awaited())
        {
            Exception? error = await Outcome(result.AsTask());
            Matcher.One(error, node, $"the awaitable of #{node.Id}", problems);
        }

        foreach ((Node node, Task finish) in execution.Detached())
        {
            Exception? error = await Outcome(finish);
            Matcher.Set(error is AggregateException aggregate ? aggregate.InnerExceptions : error is null ? Enumerable.Empty<Exception>() : [error],
                Expected.Members(node.Children), $"the detached scope of #{node.Id}", problems);
        }

        Assert.True(problems.Count == 0, $"{context}: {string.Join("; ", problems.Take(8))}");
        Assert.True(leaked.IsEmpty, $"{context}: {leaked.Count} member exceptions reached the runtime's handler, e.g. {leaked.FirstOrDefault()}");
        int[] wrongRuns = plan.Nodes.Where(n => execution.Runs[n.Id] != 1).Select(n => n.Id).Take(5).ToArray();
        Assert.True(wrongRuns.Length == 0, $"{context}: behaviours not run exactly once: {string.Join(", ", wrongRuns)}");
        Assert.True(execution.DirectViolations.IsEmpty, $"{context}: {string.Join("; ", execution.DirectViolations.Take(5))}");
        List<string> violations = Oracle.Check(execution.Accesses());
        Assert.True(violations.Count == 0, $"{context}: {string.Join("; ", violations)}");
    }

    private static async Task<Exception?> Outcome(Task task)
    {
        try
        {
            await task.Guard();
            return null;
        }
        catch (Exception e)
        {
            return e;
        }
    }

    /// <summary>How a node's body treats its children.</summary>
    private enum ScopeMode
    {
        /// <summary>They join the node's own scope.</summary>
        None,

        /// <summary>An asynchronous body begins a child scope for them and awaits it; its failures fail the body.</summary>
        Awaited,

        /// <summary>A synchronous body begins a child scope for them and leaves it to finish on its own.</summary>
        Detached,
    }

    private enum Kind
    {
        Fire,
        FireAsync,
        Awaited,
    }

    private sealed record Node(int Id, int[] Cowns, bool[] Writes, Kind Kind, ScopeMode Mode, bool Throws, bool AwaitsInBody, int Work, List<Node> Children);

    /// <summary>A planned failure, naming its node.</summary>
    private class PlannedFailure(int node, string message, Exception? inner = null) : Exception(message, inner)
    {
        public PlannedFailure(int node)
            : this(node, $"planned failure of behaviour {node}")
        {
        }

        public int Node { get; } = node;
    }

    /// <summary>An awaited child scope failed; its AggregateException is the inner exception.</summary>
    private sealed class ChildScopeFailed(int node, AggregateException inner) : PlannedFailure(node, $"the child scope of behaviour {node} failed", inner);

    private sealed class Plan
    {
        public List<Node> Nodes { get; } = [];

        public List<Node> Roots { get; } = [];

        /// <summary>
        /// A member, several levels down in a detached child scope, that by construction finishes last: its body waits
        /// until every other body has ended, then a little longer. A finish that does not wait for it is early.
        /// </summary>
        public Node Laggard { get; private set; } = null!;

        public static Plan Generate(int seed, int roots, int cownCount)
        {
            var random = new Random(seed);
            var plan = new Plan();
            for (int i = 0; i < roots; i++)
            {
                plan.Roots.Add(plan.NewNode(random, cownCount, depth: 0));
            }

            // No cowns: nothing waits for the laggard's cowns while it waits for everything else.
            Node holder = plan.Add(new Node(plan.Nodes.Count, [], [], Kind.Fire, ScopeMode.Detached, false, false, 0, []));
            plan.Laggard = plan.Add(new Node(plan.Nodes.Count, [], [], Kind.FireAsync, ScopeMode.None, random.Next(2) == 0, false, 0, []));
            holder.Children.Add(plan.Laggard);
            plan.Roots.Insert(random.Next(plan.Roots.Count), holder);
            return plan;
        }

        private Node Add(Node node)
        {
            Nodes.Add(node);
            return node;
        }

        private Node NewNode(Random random, int cownCount, int depth, bool inDetachedScope = false)
        {
            // A node that begins a child scope has no cowns: a body that holds cowns while it waits for its child scope
            // would wait for itself as soon as a member several levels down needs one of them (Scopes: self-waits).
            bool hasChildren = depth < 3 && random.NextDouble() < 0.45;
            ScopeMode mode = hasChildren && random.NextDouble() < 0.25 ? (random.Next(2) == 0 ? ScopeMode.Awaited : ScopeMode.Detached) : ScopeMode.None;
            Kind kind = mode switch
            {
                ScopeMode.Awaited => Kind.FireAsync,
                ScopeMode.Detached => Kind.Fire,
                _ => (Kind)random.Next(3),
            };
            int arity = mode == ScopeMode.None ? random.Next(1, 4) : 0;
            int[] cowns = Enumerable.Range(0, arity).Select(_ => random.Next(cownCount)).ToArray();
            bool[] writes = Enumerable.Range(0, arity).Select(_ => random.NextDouble() >= 0.3).ToArray();
            // Work -1: a slow body (sleeps 1 ms), so that members are still running when an early finish would come;
            // -5: slower (5 ms), often in a detached child scope, whose members then outlive the members of its parent.
            int work = random.NextDouble() < (inDetachedScope ? 0.5 : 0.0) ? -5 : random.NextDouble() < 0.05 ? -1 : random.Next(0, 30);
            var node = new Node(Nodes.Count, cowns, writes, kind, mode, random.NextDouble() < 0.1, kind == Kind.FireAsync && random.NextDouble() < 0.5, work, []);
            Nodes.Add(node);
            if (hasChildren)
            {
                int children = random.Next(1, 4);
                for (int c = 0; c < children; c++)
                {
                    node.Children.Add(NewNode(random, cownCount, depth + 1, mode == ScopeMode.Detached));
                }
            }

            return node;
        }
    }

    /// <summary>What the oracle expects: which nodes' failures a scope's finish delivers, and each node's failure.</summary>
    private static class Expected
    {
        /// <summary>The fire-and-forget members, among <paramref name="nodes"/> and their descendants in the same scope, that fail.</summary>
        public static IEnumerable<Node> Members(IEnumerable<Node> nodes)
        {
            foreach (Node node in nodes)
            {
                if (node.Kind != Kind.Awaited && Fails(node))
                {
                    yield return node;
                }

                if (node.Mode == ScopeMode.None)
                {
                    foreach (Node member in Members(node.Children))
                    {
                        yield return member;
                    }
                }
            }
        }

        /// <summary>Whether the node's behaviour fails: it throws, or its awaited child scope failed.</summary>
        public static bool Fails(Node node) => node.Throws || (node.Mode == ScopeMode.Awaited && Members(node.Children).Any());
    }

    private static class Matcher
    {
        /// <summary>The delivered exceptions are exactly the failures of <paramref name="expected"/>, each once.</summary>
        public static void Set(IEnumerable<Exception> actual, IEnumerable<Node> expected, string where, List<string> problems)
        {
            var want = expected.ToDictionary(n => n.Id);
            var seen = new HashSet<int>();
            foreach (Exception error in actual)
            {
                if (error is not PlannedFailure planned)
                {
                    problems.Add($"{where}: an unexpected exception {error.GetType().Name}: {error.Message}");
                    continue;
                }

                if (!seen.Add(planned.Node))
                {
                    problems.Add($"{where}: the failure of #{planned.Node} was delivered twice");
                }

                if (!want.TryGetValue(planned.Node, out Node? node))
                {
                    problems.Add($"{where}: the failure of #{planned.Node} does not belong here");
                    continue;
                }

                One(error, node, where, problems);
            }

            foreach (int missing in want.Keys.Except(seen).Take(5))
            {
                problems.Add($"{where}: the failure of #{missing} was not delivered");
            }
        }

        /// <summary>One node's outcome: no exception if it does not fail, else its own failure (recursively for a child scope).</summary>
        public static void One(Exception? actual, Node node, string where, List<string> problems)
        {
            if (!Expected.Fails(node))
            {
                if (actual is not null)
                {
                    problems.Add($"{where}: #{node.Id} should not fail, but {actual.GetType().Name}: {actual.Message}");
                }

                return;
            }

            bool childFailed = node.Mode == ScopeMode.Awaited && Expected.Members(node.Children).Any();
            switch (actual)
            {
                case ChildScopeFailed failed when childFailed && failed.Node == node.Id:
                    Set(((AggregateException)failed.InnerException!).InnerExceptions, Expected.Members(node.Children), $"the child scope of #{node.Id}", problems);
                    break;
                case PlannedFailure planned when !childFailed && planned is not ChildScopeFailed && planned.Node == node.Id:
                    break;
                default:
                    problems.Add($"{where}: #{node.Id} should fail with its own failure, got {actual?.GetType().Name ?? "none"}: {actual?.Message}");
                    break;
            }
        }
    }

    private sealed class Cell
    {
        // -1: a writer is inside; n > 0: n readers are inside. Touched only with Interlocked, as instrumentation.
        public int Occupancy;
    }

    private sealed class Execution
    {
        private readonly BocRuntime _runtime;
        private readonly Plan _plan;
        private readonly Cown<Cell>[] _cowns;
        private readonly LogicalClock _clock = new();
        private readonly long[] _spawnStart;
        private readonly long[] _spawnEnd;
        private readonly long[] _start;
        private readonly long[] _end;
        private readonly ConcurrentQueue<(Node, ValueTask)> _awaited = new();
        private readonly ConcurrentQueue<(Node, Task)> _detached = new();
        private int _ended;

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

        public ConcurrentQueue<(Node, ValueTask)> Awaited() => _awaited;

        public ConcurrentQueue<(Node, Task)> Detached() => _detached;

        public bool Ended(Node node) => Volatile.Read(ref _end[node.Id]) != 0;

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

        public void Spawn(Node node)
        {
            IAcquirable<Cell> At(int i) => node.Writes[i] ? _cowns[node.Cowns[i]] : Cown.Read(_cowns[node.Cowns[i]]);

            _spawnStart[node.Id] = _clock.Tick();
            switch (node.Kind, node.Cowns.Length)
            {
                case (Kind.Fire, 0): _runtime.When(() => Body(node)); break;
                case (Kind.Fire, 1): _runtime.When(At(0), _ => Body(node)); break;
                case (Kind.Fire, 2): _ = _runtime.TryWhen(At(0), At(1), (_, _) => Body(node)); break;
                case (Kind.Fire, _): _runtime.When(At(0), At(1), At(2), (_, _, _) => Body(node)); break;
                case (Kind.FireAsync, 0): _runtime.When(() => AsyncBody(node)); break;
                case (Kind.FireAsync, 1): _runtime.When(At(0), _ => AsyncBody(node)); break;
                case (Kind.FireAsync, 2): _runtime.When(At(0), At(1), (_, _) => AsyncBody(node)); break;
                case (Kind.FireAsync, _): _runtime.When(At(0), At(1), At(2), (_, _, _) => AsyncBody(node)); break;
                case (Kind.Awaited, 1): Keep(node, _runtime.WhenAsync(At(0), _ => Body(node))); break;
                case (Kind.Awaited, 2): Keep(node, _runtime.WhenAsync(At(0), At(1), (_, _) => Body(node))); break;
                case (Kind.Awaited, _): Keep(node, _runtime.WhenAsync(At(0), At(1), At(2), (_, _, _) => Body(node))); break;
            }

            _spawnEnd[node.Id] = _clock.Tick();
        }

        private void Keep(Node node, ValueTask result) => _awaited.Enqueue((node, result));

        private void Body(Node node)
        {
            Begin(node);
            if (node.Mode == ScopeMode.Detached)
            {
                // Ends the child's block without waiting for it (a synchronous body cannot); the parent still waits.
                BocScope child = _runtime.BeginScope();
                SpawnChildren(node);
                _detached.Enqueue((node, child.FinishAsync()));
            }
            else
            {
                SpawnChildren(node);
            }

            End(node);
        }

        private async Task AsyncBody(Node node)
        {
            Begin(node);
            if (ReferenceEquals(node, _plan.Laggard))
            {
                // Waits, without a thread, for every other body to end, then a little more: the finish must still wait.
                using var limit = new CancellationTokenSource(Progress.Limit);
                while (Volatile.Read(ref _ended) < _plan.Nodes.Count - 1)
                {
                    await Task.Delay(1, limit.Token);
                }

                await Task.Delay(20);
            }

            if (node.AwaitsInBody)
            {
                // A zero-cown behaviour awaited inside the body: a member too, which cannot wait for the body's cowns.
                await _runtime.WhenAsync(() => Thread.SpinWait(Math.Max(0, node.Work)));
            }

            if (node.Mode == ScopeMode.Awaited)
            {
                try
                {
                    await using (_runtime.BeginScope())
                    {
                        SpawnChildren(node);
                        await Task.Yield();
                    }
                }
                catch (AggregateException e)
                {
                    Leave(node);
                    Volatile.Write(ref _end[node.Id], _clock.Tick());
                    Interlocked.Increment(ref _ended);
                    throw new ChildScopeFailed(node.Id, e);
                }
            }
            else
            {
                SpawnChildren(node);
                await Task.Yield();
            }

            End(node);
        }

        private void SpawnChildren(Node node)
        {
            if (node.Work < 0)
            {
                Thread.Sleep(-node.Work);
            }
            else
            {
                Thread.SpinWait(node.Work);
            }

            foreach (Node child in node.Children)
            {
                Spawn(child);
            }
        }

        private void Begin(Node node)
        {
            _start[node.Id] = _clock.Tick();
            Interlocked.Increment(ref Runs[node.Id]);
            foreach ((int cown, bool writes) in Merged(node))
            {
                Cell cell = (Cell)_cowns[cown].State;
                int seen = writes ? Interlocked.CompareExchange(ref cell.Occupancy, -1, 0) : Interlocked.Increment(ref cell.Occupancy);
                if (writes ? seen != 0 : seen <= 0)
                {
                    DirectViolations.Enqueue($"#{node.Id} entered cown {cown} ({(writes ? "write" : "read")}) with occupancy {seen}");
                }
            }
        }

        private void Leave(Node node)
        {
            foreach ((int cown, bool writes) in Merged(node))
            {
                Cell cell = (Cell)_cowns[cown].State;
                if (writes)
                {
                    Interlocked.Exchange(ref cell.Occupancy, 0);
                }
                else
                {
                    Interlocked.Decrement(ref cell.Occupancy);
                }
            }
        }

        private void End(Node node)
        {
            Leave(node);
            Volatile.Write(ref _end[node.Id], _clock.Tick());
            Interlocked.Increment(ref _ended);
            if (node.Throws)
            {
                throw new PlannedFailure(node.Id);
            }
        }

        private static IEnumerable<(int Cown, bool Writes)> Merged(Node node) =>
            node.Cowns.Zip(node.Writes).GroupBy(p => p.First).Select(g => (g.Key, g.Any(p => p.Second)));
    }
}
