namespace Boc.Tests;

/// <summary>
/// The pool's thread side: the spare in front of the thread caches (<see cref="BocThread.Spare"/>) is taken only by a rent
/// of its exact type, parks only one object, and the pool never hands one object to two renters (a seeded random mix of
/// rents and returns of two types on one thread, against a set of the objects outstanding). A worker's warm spare runs
/// each spawn with its own cown, body and state, and lets go of them before the worker parks.
/// </summary>
public sealed class BehaviourPoolTests
{
    [Fact]
    public void TheSpare_IsTakenOnlyByARentOfItsExactType()
    {
        RunOnFreshThread(() =>
        {
            var a = BehaviourPool<ActionBehaviour<Action>>.Rent();
            BehaviourPool<ActionBehaviour<Action>>.Return(a, BocThread.Current);
            Assert.Same(a, BocThread.Current.Spare);

            // Another type does not take it; its own rent does.
            var b = BehaviourPool<ActionBehaviour<Func<int>>>.Rent();
            Assert.NotSame(a, b);
            Assert.Same(a, BocThread.Current.Spare);
            Assert.Same(a, BehaviourPool<ActionBehaviour<Action>>.Rent());
            Assert.Null(BocThread.Current.Spare);

            // With the spare taken by b, a goes to its type's cache and still comes back.
            BehaviourPool<ActionBehaviour<Func<int>>>.Return(b, BocThread.Current);
            BehaviourPool<ActionBehaviour<Action>>.Return(a, BocThread.Current);
            Assert.Same(b, BocThread.Current.Spare);
            Assert.Same(a, BehaviourPool<ActionBehaviour<Action>>.Rent());
            Assert.Same(b, BehaviourPool<ActionBehaviour<Func<int>>>.Rent());
        });
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void RentsAndReturns_NeverHandOneObjectToTwoRenters(int seed)
    {
        RunOnFreshThread(() =>
        {
            var random = new Random(seed);
            var outstanding = new HashSet<Behaviour>(ReferenceEqualityComparer.Instance);
            var held = new List<Behaviour>();
            for (int step = 0; step < 20_000; step++)
            {
                if (held.Count > 0 && random.Next(2) == 0)
                {
                    int i = random.Next(held.Count);
                    Behaviour item = held[i];
                    held.RemoveAt(i);
                    outstanding.Remove(item);
                    if (item is ActionBehaviour<Action> first)
                    {
                        BehaviourPool<ActionBehaviour<Action>>.Return(first, BocThread.Current);
                    }
                    else
                    {
                        BehaviourPool<ActionBehaviour<Func<int>>>.Return((ActionBehaviour<Func<int>>)item, BocThread.Current);
                    }
                }
                else
                {
                    Behaviour item = random.Next(2) == 0
                        ? BehaviourPool<ActionBehaviour<Action>>.Rent()
                        : BehaviourPool<ActionBehaviour<Func<int>>>.Rent();
                    Assert.True(outstanding.Add(item), $"seed {seed}, step {step}: an object was handed out while still rented");
                    held.Add(item);
                }
            }
        });
    }

    [Fact]
    public async Task AWorkerThatParks_KeepsNothingOfItsLastBehaviourAlive()
    {
        // A worker's spare stays warm while the worker is busy (BocThread.Spare): it must let go of the body's state
        // and the cown before the worker sleeps (the runtime is still held here, so its release is not observable).
        await using var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2 });
        (WeakReference state, WeakReference cown) = SpawnOnAFreshCownWithAFreshState(runtime);
        await runtime.WaitForQuiescenceAsync().Guard();

        BocScheduler scheduler = runtime.BocSchedulerOrNull!;
        var deadline = DateTime.UtcNow + Progress.Limit;
        while (scheduler.Sleepers < scheduler.WorkerCount)
        {
            Assert.True(DateTime.UtcNow < deadline, $"the workers did not all park within {Progress.Limit} ({scheduler.Sleepers} asleep)");
            await Task.Delay(10);
        }

        for (int i = 0; i < 5 && (state.IsAlive || cown.IsAlive); i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }

        Assert.False(state.IsAlive, "a parked worker keeps the state of the last behaviour it ran alive");
        Assert.False(cown.IsAlive, "a parked worker keeps the cown of the last behaviour it ran alive");
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public async Task AWarmSpare_RunsTheBodyStateAndCownOfItsNewSpawn(int seed)
    {
        // Chains on a worker reuse the spare of the previous hop with whatever differs stored again: a chain that hops
        // between cowns, bodies and states at random must run every hop with its own three (an oracle of what each hop
        // was spawned with, checked in the body).
        await using var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2 });
        var random = new Random(seed);
        var cowns = Enumerable.Range(0, 4).Select(i => new Cown<Box>(new Box(i))).ToArray();
        var plan = new Hop[2_000];
        for (int i = 0; i < plan.Length; i++)
        {
            plan[i] = new Hop(i, random.Next(cowns.Length), random.Next(2), random.Next(3));
        }

        var chain = new Chain(runtime, cowns, plan);
        chain.Spawn(0);
        await chain.Done.Task.Guard();
        Assert.True(chain.Failures.IsEmpty, $"seed {seed}: {string.Join("; ", chain.Failures.Take(5))}");
        Assert.Equal(plan.Length, chain.Ran);
    }

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static (WeakReference State, WeakReference Cown) SpawnOnAFreshCownWithAFreshState(BocRuntime runtime)
    {
        var cown = new Cown<Box>(new Box(0));
        var state = new Box(1);
        runtime.When(cown, static (box, s) => box.Value += s.Value, state);
        return (new WeakReference(state), new WeakReference(cown));
    }

    private sealed class Box(int value)
    {
        public int Value = value;
    }

    /// <summary>One hop of <see cref="Chain"/>: the cown it runs on, which of two bodies, and which of three states.</summary>
    private readonly record struct Hop(int Index, int Cown, int Body, int State);

    /// <summary>A message chain whose every hop is spawned by the previous hop's body, as planned.</summary>
    private sealed class Chain(BocRuntime runtime, Cown<Box>[] cowns, Hop[] plan)
    {
        private static readonly Action<Box, HopState> s_first = static (box, s) => s.Chain.OnHop(box, s, body: 0);
        private static readonly Action<Box, HopState> s_second = static (box, s) => s.Chain.OnHop(box, s, body: 1);
        private readonly HopState[] _states = [new(0), new(1), new(2)];
        private int _ran;

        public TaskCompletionSource Done { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public System.Collections.Concurrent.ConcurrentQueue<string> Failures { get; } = new();

        public int Ran => Volatile.Read(ref _ran);

        public void Spawn(int index)
        {
            Hop hop = plan[index];
            HopState state = _states[hop.State];
            state.Chain = this;
            runtime.When(cowns[hop.Cown], hop.Body == 0 ? s_first : s_second, state);
        }

        private void OnHop(Box box, HopState state, int body)
        {
            // One hop is in flight at a time, so the count of hops run so far names the hop this run belongs to (not
            // the state: a stale state would name its own, old hop).
            Hop hop = plan[Ran];
            if (box.Value != hop.Cown || body != hop.Body || state.Id != hop.State)
            {
                Failures.Enqueue($"hop {hop.Index} ran on cown {box.Value}, body {body}, state {state.Id}; spawned with {hop}");
            }

            int ran = Interlocked.Increment(ref _ran);
            if (ran == plan.Length)
            {
                Done.SetResult();
                return;
            }

            Spawn(hop.Index + 1);
        }
    }

    private sealed class HopState(int id)
    {
        public int Id { get; } = id;

        public Chain Chain { get; set; } = null!;
    }

    /// <summary>Runs <paramref name="test"/> on a thread of its own, whose spare and caches no other test has touched.</summary>
    private static void RunOnFreshThread(Action test)
    {
        Exception? failure = null;
        var thread = new Thread(() =>
        {
            try
            {
                test();
            }
            catch (Exception e)
            {
                failure = e;
            }
        });
        thread.Start();
        thread.Join();
        if (failure is not null)
        {
            throw new Xunit.Sdk.XunitException($"on the test's thread: {failure}");
        }
    }
}
