using System.Collections.Concurrent;
using System.Runtime.CompilerServices;

namespace Boc.Tests;

/// <summary>
/// The contract of <see cref="BocScope"/>, case by case: what is a member, when the finish completes and with what,
/// what cancelling does (withdrawal, refusal, the held turn passed on), nesting, self-waits, and how scopes meet
/// disposal, backpressure and batches. Orderings are asserted by events (gates), never by time; waits are bounded by
/// <see cref="Progress"/>. The random programs are in <see cref="ScopeStressTests"/> and <see cref="ScopeCancellationTests"/>.
/// </summary>
public sealed class ScopeTests
{
    public static TheoryData<BocDispatcher> Dispatchers => new() { BocDispatcher.BocScheduler, BocDispatcher.ThreadPool };

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task TheFinish_WaitsForSpawnsOfSpawns_AndNotForAnythingElse(BocDispatcher dispatcher)
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var cown = new Cown<List<string>>([]);
        var other = new Cown<List<string>>([]);
        using var grandchildGate = new ManualResetEventSlim();
        using var outsiderGate = new ManualResetEventSlim();
        using var grandchildStarted = new ManualResetEventSlim();

        // Not a member: spawned before the scope. It must not hold the finish up.
        runtime.When(other, l => outsiderGate.Wait(Progress.Limit));

        BocScope scope = runtime.BeginScope();
        runtime.When(cown, l =>
        {
            l.Add("member");
            runtime.When(cown, l2 =>
            {
                l2.Add("child");
                runtime.When(cown, l3 =>
                {
                    grandchildStarted.Set();
                    grandchildGate.Wait(Progress.Limit);
                    l3.Add("grandchild");
                });
            });
        });
        Task finish = scope.FinishAsync();

        grandchildStarted.Wait(Progress.Limit);
        Assert.False(finish.IsCompleted, "the scope finished while a member spawned by a member's member was running");
        Assert.InRange(scope.PendingCount, 1, 3);
        grandchildGate.Set();
        await finish.Guard();
        Assert.True(scope.IsFinished);
        Assert.Equal(["member", "child", "grandchild"], await runtime.WhenAsync(cown, l => l.ToArray()).Guard());
        outsiderGate.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
    }

    [Fact]
    public async Task AfterTheBlock_SpawnsFromItsFlowAreNotMembers_AndTheAmbientScopeIsRestored()
    {
        await using var runtime = new BocRuntime();
        var cown = new Cown<int[]>(new int[1]);
        using var gate = new ManualResetEventSlim();
        Assert.Null(Behaviours.CurrentScope);
        BocScope outer = runtime.BeginScope();
        BocScope inner = runtime.BeginScope();
        Assert.Same(outer, inner.Parent);
        Assert.Same(inner, Behaviours.CurrentScope);
        await inner.DisposeAsync();
        Assert.Same(outer, Behaviours.CurrentScope);
        await outer.DisposeAsync();
        Assert.Null(Behaviours.CurrentScope);

        // Spawned after both blocks ended: blocked, yet nothing waits for it.
        runtime.When(cown, c => gate.Wait(Progress.Limit));
        Assert.True(outer.IsFinished);
        Assert.Equal(0, outer.PendingCount);
        gate.Set();
        await runtime.WaitForQuiescenceAsync().Guard();
    }

    [Fact]
    public async Task ATaskTheBlockStarted_SpawnsOutsideTheScopeOnceTheBlockHasEnded()
    {
        await using var runtime = new BocRuntime();
        var cown = new Cown<List<string>>([]);
        using var release = new SemaphoreSlim(0);
        Task leaked;
        BocScope scope;
        await using (scope = runtime.BeginScope())
        {
            // The task inherits the flow's ambient scope; it spawns once while the block is open, once after it ended.
            leaked = Task.Run(async () =>
            {
                await release.WaitAsync(Progress.Limit);
                runtime.When(cown, l => l.Add("after the block"));
            });
        }

        Assert.True(scope.IsFinished);
        release.Release();
        await leaked.Guard();   // no exception: a spawn through a finished scope's ambient is simply not a member
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(["after the block"], await runtime.WhenAsync(cown, l => l.ToArray()).Guard());
    }

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task FireAndForgetExceptions_GoToTheFinish_ExactlyOnceEach_AndAwaitedOnesToTheirAwaitable(BocDispatcher dispatcher)
    {
        var handled = new ConcurrentBag<Exception>();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher, UnhandledExceptionHandler = handled.Add });
        var cown = new Cown<int[]>(new int[1]);
        var thrown = new ConcurrentBag<Exception>();
        ValueTask awaited;
        BocScope scope = runtime.BeginScope();
        for (int i = 0; i < 5; i++)
        {
            int n = i;
            runtime.When(cown, c =>
            {
                c[0]++;
                var nested = new InvalidOperationException($"nested {n}");
                runtime.When(cown, _ =>
                {
                    thrown.Add(nested);
                    throw nested;
                });
                var own = new InvalidOperationException($"member {n}");
                thrown.Add(own);
                throw own;
            });
        }

        var awaitedError = new FormatException("awaited");
        awaited = runtime.WhenAsync(cown, c => throw awaitedError);
        AggregateException failures = await Assert.ThrowsAsync<AggregateException>(() => scope.FinishAsync().Guard());

        Assert.Equal(thrown.OrderBy(e => e.Message), failures.InnerExceptions.OrderBy(e => e.Message));
        Assert.Same(awaitedError, await Assert.ThrowsAsync<FormatException>(() => awaited.Guard()));
        Assert.Empty(handled);
        Assert.Contains(cown.ToString(), (string)failures.InnerExceptions[0].Data[BocRuntime.FailedCownsDataKey]!, StringComparison.Ordinal);

        // Every call of FinishAsync reports the same outcome; DisposeAsync after it does not report it again.
        await Assert.ThrowsAsync<AggregateException>(() => scope.FinishAsync());
        await scope.DisposeAsync();
    }

    [Fact]
    public async Task Cancel_WithdrawsQueuedMembers_TheRunningOneSeesIt_AndTheFinishIsNormal()
    {
        await using var runtime = new BocRuntime();
        var cown = new Cown<List<string>>([]);
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        BocScope scope = runtime.BeginScope();
        CancellationToken seenByRunning = default;
        runtime.When(cown, l =>
        {
            seenByRunning = Behaviours.CurrentCancellationToken;
            started.Set();
            gate.Wait(Progress.Limit);
            l.Add(Behaviours.CurrentCancellationToken.IsCancellationRequested ? "running, saw the cancel" : "running");
        });
        started.Wait(Progress.Limit);
        runtime.When(cown, l => l.Add("queued"));
        ValueTask<int> queuedAwaited = runtime.WhenAsync(cown, l => l.Count);

        // The block ends: what this flow spawns now is not a member. Behind the members, it must still run, after the
        // running member only.
        Task finish = scope.FinishAsync();
        ValueTask<bool> nonMemberBehind = runtime.WhenAsync(cown, l => gate.IsSet && l.Count == 1);
        scope.Cancel();
        Assert.True(scope.IsCancellationRequested);
        Assert.True(seenByRunning.IsCancellationRequested);
        gate.Set();

        await finish.Guard();   // canceled by Cancel(): a normal finish
        BehaviourWithdrawnException withdrawn = await Assert.ThrowsAsync<BehaviourWithdrawnException>(() => queuedAwaited.Guard());
        Assert.Equal(scope.Token, withdrawn.CancellationToken);
        Assert.True(await nonMemberBehind.Guard());
        Assert.Equal(["running, saw the cancel"], await runtime.WhenAsync(cown, l => l.ToArray()).Guard());
    }

    [Fact]
    public async Task ACanceledScope_RefusesSpawns_BeforeAnythingIsEnqueuedOrCounted()
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { MaxPendingBehaviours = 4, FullMode = BocFullMode.Throw });
        var cown = new Cown<List<string>>([]);
        BocScope scope = runtime.BeginScope();
        scope.Cancel();

        OperationCanceledException refused = Assert.Throws<OperationCanceledException>(() => runtime.When(cown, l => l.Add("when")));
        Assert.Equal(scope.Token, refused.CancellationToken);
        Assert.Throws<OperationCanceledException>(() => runtime.TryWhen(cown, l => l.Add("try")));
        Assert.Throws<OperationCanceledException>(() => runtime.Batch(b => b.When(cown, l => l.Add("batch"))));
        ValueTask<int> awaited = runtime.WhenAsync(cown, l => l.Count);
        Assert.True(awaited.IsCanceled);
        await Assert.ThrowsAsync<BehaviourWithdrawnException>(() => awaited.AsTask());
        Assert.Throws<OperationCanceledException>(() => runtime.BeginScope());

        // Nothing took room or stayed counted.
        Assert.Equal(0, runtime.PendingCount);
        Assert.Equal(0, scope.PendingCount);
        await scope.FinishAsync().Guard();
        await using (runtime.BeginScope())
        {
        }

        Assert.Empty(await runtime.WhenAsync(cown, l => l.ToArray()).Guard());
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task ACanceledMember_HoldingOneCownAndWaitingForAnother_PassesTheHeldOneOnAtOnce(bool readsTheFreeCown)
    {
        await using var runtime = new BocRuntime();
        var held = new Cown<List<string>>([]);
        var free = new Cown<List<string>>([]);
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();

        // Not a member: it holds `held` until the gate opens.
        // The gate's wait is bounded: the behaviour behind must see the blocker still inside, not merely the gate shut.
        int blockerDone = 0;
        ValueTask blocker = runtime.WhenAsync(held, l =>
        {
            started.Set();
            gate.Wait(Progress.Limit);
            Volatile.Write(ref blockerDone, 1);
            l.Add("blocker");
        });
        started.Wait(Progress.Limit);

        BocScope scope = runtime.BeginScope();
        IAcquirable<List<string>> second = readsTheFreeCown ? Cown.Read(free) : free;
        runtime.When(held, second, (h, f) => h.Add("member"));   // holds `free`, waits for `held`
        Task finish = scope.FinishAsync();

        // The block has ended, so not a member: queued behind the member on `free`.
        ValueTask<bool> behind = runtime.WhenAsync(free, f =>
        {
            f.Add("behind");
            return Volatile.Read(ref blockerDone) == 1;
        });
        scope.Cancel();

        Assert.False(await behind.Guard(), "the behaviour behind the withdrawn member waited for the blocker on the member's other cown");
        gate.Set();
        await blocker.Guard();
        await finish.Guard();
        Assert.Equal(["blocker"], await runtime.WhenAsync(held, l => l.ToArray()).Guard());
        Assert.Equal(["behind"], await runtime.WhenAsync(free, l => l.ToArray()).Guard());
    }

    [Fact]
    public async Task TheDeadline_CancelsTheScope_AndTheFinishFailsWithTimeout()
    {
        // The deadline fires from a manual clock once the first member runs, so the outcome does not depend on the
        // machine's speed: the running member ends, the queued one is withdrawn, and a later spawn is refused.
        var clock = new ManualClock();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { TimeProvider = clock });
        var cown = new Cown<List<string>>([]);
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        BocScope scope = runtime.BeginScope(TimeSpan.FromMilliseconds(50));
        runtime.When(cown, l =>
        {
            started.Set();
            gate.Wait(Progress.Limit);
            l.Add("first");
        });
        started.Wait(Progress.Limit);
        runtime.When(cown, l => l.Add("second"));   // queued behind the first: withdrawn at the deadline
        clock.FireAll();
        Assert.True(scope.IsCancellationRequested);
        Assert.False(TrySpawn(() => runtime.When(cown, l => l.Add("third"))));
        gate.Set();
        await Assert.ThrowsAsync<TimeoutException>(() => scope.FinishAsync().GuardTimeout());
        Assert.Equal(["first"], await runtime.WhenAsync(cown, l => l.ToArray()).Guard());
    }

    [Fact]
    public async Task TheToken_CancelsTheScope_AndTheFinishIsCanceledWithIt()
    {
        await using var runtime = new BocRuntime();
        using var cts = new CancellationTokenSource();
        var cown = new Cown<int[]>(new int[1]);
        BocScope scope = runtime.BeginScope(cts.Token);
        cts.Cancel();
        Assert.True(scope.IsCancellationRequested);
        Assert.Throws<OperationCanceledException>(() => runtime.When(cown, c => c[0]++));
        TaskCanceledException canceled = await Assert.ThrowsAsync<TaskCanceledException>(() => scope.FinishAsync().Guard());
        Assert.Equal(cts.Token, canceled.CancellationToken);

        // Begun with a token canceled already: canceled from the start, so its first spawn is refused.
        BocScope late = runtime.BeginScope(cts.Token);
        Assert.True(late.IsCancellationRequested);
        await Assert.ThrowsAsync<BehaviourWithdrawnException>(() => runtime.WhenAsync(cown, c => c[0]++).AsTask());
        await Assert.ThrowsAsync<TaskCanceledException>(() => late.FinishAsync().Guard());
        Assert.Throws<ArgumentOutOfRangeException>(() => runtime.BeginScope(TimeSpan.FromSeconds(-2)));
        Assert.Equal(0, await runtime.WhenAsync(cown, c => c[0]).Guard());
    }

    [Fact]
    public async Task AMemberThatGivesUpOnTheCancellation_IsNotAFailure_AndTheFinishIsCanceled()
    {
        // Nothing is withdrawn or refused: the only member has started, and gives up when the token is canceled.
        await using var runtime = new BocRuntime();
        using var cts = new CancellationTokenSource();
        using var started = new ManualResetEventSlim();
        var cown = new Cown<int[]>(new int[1]);
        BocScope scope = runtime.BeginScope(cts.Token);
        runtime.When(cown, async c =>
        {
            started.Set();
            await Task.Delay(Timeout.InfiniteTimeSpan, Behaviours.CurrentCancellationToken);
            c[0]++;
        });
        started.Wait(Progress.Limit);
        cts.Cancel();
        TaskCanceledException canceled = await Assert.ThrowsAsync<TaskCanceledException>(() => scope.FinishAsync().Guard());
        Assert.Equal(cts.Token, canceled.CancellationToken);
        Assert.Equal(0, await runtime.WhenAsync(cown, c => c[0]).Guard());
    }

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task AScopeBegunInABody_IsAChild_ItsParentWaitsForIt_AndCancelsIt(BocDispatcher dispatcher)
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var work = new Cown<List<string>>([]);
        var other = new Cown<List<string>>([]);
        using var gate = new ManualResetEventSlim();
        using var childStarted = new ManualResetEventSlim();
        BocScope? child = null;
        BocScope parent = runtime.BeginScope();
        runtime.When(other, l =>
        {
            // A synchronous body begins a child and ends without finishing it: the parent still waits for its members.
            child = runtime.BeginScope();
            runtime.When(work, w =>
            {
                childStarted.Set();
                gate.Wait(Progress.Limit);
                w.Add("child member");
            });
            runtime.When(work, w => w.Add("queued in the child"));
            _ = child.FinishAsync();
        });
        Task finish = parent.FinishAsync();
        childStarted.Wait(Progress.Limit);
        Assert.Same(parent, child!.Parent);
        Assert.False(finish.IsCompleted, "the parent finished before its child's member");

        parent.Cancel();
        Assert.True(child.IsCancellationRequested, "cancelling the parent did not cancel the child");
        gate.Set();
        await finish.Guard();
        Assert.True(child.IsFinished);
        Assert.Equal(["child member"], await runtime.WhenAsync(work, w => w.ToArray()).Guard());
    }

    [Fact]
    public async Task AChildsFailures_GoToTheChildsFinish_AndOnToTheParentIfTheBodyLetsThemThrough()
    {
        await using var runtime = new BocRuntime();
        var cown = new Cown<int[]>(new int[1]);
        var other = new Cown<int[]>(new int[1]);
        var failure = new InvalidOperationException("in the child");
        AggregateException? seenByBody = null;
        BocScope parent = runtime.BeginScope();
        runtime.When(other, async o =>
        {
            try
            {
                await using BocScope child = runtime.BeginScope();
                runtime.When(cown, c => throw failure);
            }
            catch (AggregateException e)
            {
                seenByBody = e;
                throw;
            }
        });
        AggregateException outer = await Assert.ThrowsAsync<AggregateException>(() => parent.FinishAsync().Guard());
        Assert.Same(failure, Assert.Single(seenByBody!.InnerExceptions));
        Assert.Same(seenByBody, Assert.Single(outer.InnerExceptions));
    }

    [Fact]
    public async Task AMemberAwaitingItsOwnScope_Throws_InsteadOfHanging()
    {
        // A bounded drain: if the self-wait were missed, the runtime would never drain, and the test must fail, not hang.
        var runtime = new BocRuntime();
        await using var drain = runtime.DrainOnExit();
        var cown = new Cown<int[]>(new int[1]);
        BocScope scope = runtime.BeginScope();
        ValueTask<Exception?> asyncMember = runtime.WhenAsync(cown, async c =>
        {
            try
            {
                await scope.FinishAsync();
                return null;
            }
            catch (InvalidOperationException e)
            {
                return (Exception?)e;
            }
        });
        ValueTask<Exception?> blockingMember = runtime.WhenAsync(cown, c =>
        {
            try
            {
                scope.DisposeAsync().AsTask().GetAwaiter().GetResult();
                return null;
            }
            catch (InvalidOperationException e)
            {
                return (Exception?)e;
            }
        });
        Assert.Contains("scope it belongs to", (await asyncMember.Guard())?.Message, StringComparison.Ordinal);
        Assert.Contains("scope it belongs to", (await blockingMember.Guard())?.Message, StringComparison.Ordinal);
        await scope.FinishAsync().Guard();
    }

    [Fact]
    public async Task ABodyAwaitingAChildWhoseMemberNeedsItsCown_Throws_InsteadOfHanging()
    {
        // A bounded drain: if the self-wait were missed, the runtime would never drain, and the test must fail, not hang.
        var runtime = new BocRuntime();
        await using var drain = runtime.DrainOnExit();
        var cown = new Cown<List<string>>([]);
        ValueTask<string> body = runtime.WhenAsync(cown, async l =>
        {
            BocScope child = runtime.BeginScope();
            runtime.When(cown, l2 => l2.Add("member"));   // queued behind this body
            try
            {
                await child.FinishAsync();
                return "finished";
            }
            catch (InvalidOperationException e)
            {
                return e.Message;
            }
        });
        Assert.Contains("needs a cown the body holds", await body.Guard(), StringComparison.Ordinal);

        // The member still runs once the body has released the cown.
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(["member"], await runtime.WhenAsync(cown, l => l.ToArray()).Guard());
    }

    [Fact]
    public async Task ADisposedRuntime_RefusesScopesAndMembers_AndAnOpenScopeStillFinishes()
    {
        var runtime = new BocRuntime();
        var cown = new Cown<int[]>(new int[1]);
        using var gate = new ManualResetEventSlim();
        BocScope scope = runtime.BeginScope();
        runtime.When(cown, c => gate.Wait(Progress.Limit));
        Task shutdown = runtime.ShutdownAsync(CancellationToken.None);
        Assert.Throws<ObjectDisposedException>(() => runtime.When(cown, c => c[0]++));
        Assert.Throws<ObjectDisposedException>(() => runtime.BeginScope());
        Assert.Equal(1, scope.PendingCount);
        gate.Set();
        await scope.FinishAsync().Guard();
        await shutdown.Guard();
    }

    [Fact]
    public async Task AProducerBlockedForRoom_GivesUpWhenItsScopeIsCanceled()
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { MaxPendingBehaviours = 1 });
        var cown = new Cown<int[]>(new int[1]);
        using var gate = new ManualResetEventSlim();
        runtime.When(cown, c => gate.Wait(Progress.Limit));   // takes the only unit of room
        using var cts = new CancellationTokenSource();
        BocScope? scope = null;
        Task<Exception?> producer = Task.Run<Exception?>(() =>
        {
            scope = runtime.BeginScope(cts.Token);
            try
            {
                runtime.When(cown, c => c[0]++);   // blocks: the runtime is full
                return null;
            }
            catch (OperationCanceledException e)
            {
                return e;
            }
        });
        await WaitUntil(() => runtime.RoomWaiters == 1);
        cts.Cancel();
        Assert.IsType<OperationCanceledException>(await producer.Guard());
        Assert.Equal(1, runtime.PendingCount);

        // The refused spawn is work the cancellation cost: the finish says so.
        await Assert.ThrowsAsync<TaskCanceledException>(() => scope!.FinishAsync().Guard());
        gate.Set();
        Assert.Equal(0, await runtime.WhenAsync(cown, c => c[0]).Guard());
    }

    [Fact]
    public async Task ABatchJoinsAsItsMembers_AndACanceledScopeRefusesItWhole()
    {
        await using var runtime = new BocRuntime();
        var cown = new Cown<List<string>>([]);
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        runtime.When(cown, l =>
        {
            started.Set();
            gate.Wait(Progress.Limit);
        });
        started.Wait(Progress.Limit);
        BocScope scope = runtime.BeginScope();
        ValueTask<int> second = default;
        runtime.Batch(b =>
        {
            b.When(cown, l => l.Add("first"));
            second = b.WhenAsync(cown, l => l.Count);
        });
        Assert.Equal(2, scope.PendingCount);
        scope.Cancel();
        gate.Set();
        await Assert.ThrowsAsync<BehaviourWithdrawnException>(() => second.Guard());
        await scope.FinishAsync().Guard();
        Assert.Empty(await runtime.WhenAsync(cown, l => l.ToArray()).Guard());
    }

    [Fact]
    public async Task AMemberCancellingItsScope_StopsTheRest_AndTheirCooperativeCancellationIsNotAFailure()
    {
        await using var runtime = new BocRuntime();
        var cowns = Enumerable.Range(0, 8).Select(_ => new Cown<int[]>(new int[1])).ToArray();
        int finders = 0;
        int steps = 0;
        await using (runtime.BeginScope())
        {
            foreach (Cown<int[]> cown in cowns)
            {
                runtime.When(cown, async c =>
                {
                    for (int step = 0; step < 1000; step++)
                    {
                        // Gives up once another member has found it: an OperationCanceledException, not a failure.
                        await Task.Delay(1, Behaviours.CurrentCancellationToken);
                        Interlocked.Increment(ref steps);
                        if (step == 3)
                        {
                            // Not a behaviour: a member spawned now would be withdrawn by the Cancel below.
                            Interlocked.Increment(ref finders);
                            Behaviours.CurrentScope!.Cancel();
                        }
                    }
                });
            }
        }

        Assert.InRange(finders, 1, 8);
        Assert.InRange(steps, 4, 8 * 5);
    }

    [Theory]
    [MemberData(nameof(Dispatchers))]
    public async Task AMember_AllocatesNothingPerSpawn_OnceItsScopesStructuresAreWarm(BocDispatcher dispatcher)
    {
        // The README's bound (docs/guide/scopes.md, "Cost"): being a member allocates nothing per spawn in steady state.
        // Rounds of fire-and-forget spawns onto idle cowns from one thread, each round spun for (a blocking wait may
        // allocate), so the pool refills between rounds; measured on the spawning thread, where every spawn-side
        // allocation lands, outside any scope and then as members of one scope. The runtime's own machinery may still
        // allocate now and then (a .NET 8 thread-pool queue segment), so each phase is measured five times and its least
        // figure counts: an allocation per member (at least 24 bytes) shows in every one of them, and the bound is under
        // one byte per spawn. The state type is private to this test, so no parallel test shares its behaviours' pool.
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        AllocationProbe[] probes = [.. Enumerable.Range(0, 32).Select(_ => new AllocationProbe())];
        Cown<AllocationProbe>[] cowns = [.. probes.Select(p => new Cown<AllocationProbe>(p))];
        const int Rounds = 100, Repetitions = 5;

        (double outside, double members, int counted) = await Task.Run(async () =>
        {
            var done = new StrongBox<int>();

            double LeastBytesPerSpawn()
            {
                double least = double.MaxValue;
                for (int repetition = 0; repetition < Repetitions; repetition++)
                {
                    long before = GC.GetAllocatedBytesForCurrentThread();
                    for (int r = 0; r < Rounds; r++)
                    {
                        int target = Volatile.Read(ref done.Value) + cowns.Length;
                        foreach (Cown<AllocationProbe> cown in cowns)
                        {
                            runtime.When(cown, static (p, d) =>
                            {
                                p.Value++;
                                Interlocked.Increment(ref d.Value);
                            }, done);
                        }

                        long deadline = Environment.TickCount64 + (long)Progress.Limit.TotalMilliseconds;
                        var spin = default(SpinWait);
                        while (Volatile.Read(ref done.Value) != target)
                        {
                            Assert.True(Environment.TickCount64 < deadline, "a round of spawns did not finish");
                            spin.SpinOnce();
                        }
                    }

                    least = Math.Min(least, (GC.GetAllocatedBytesForCurrentThread() - before) / (double)(Rounds * cowns.Length));
                }

                return least;
            }

            _ = LeastBytesPerSpawn();
            double outside = LeastBytesPerSpawn();

            BocScope scope = runtime.BeginScope();
            _ = LeastBytesPerSpawn();   // the scope's stripes and registries grow to what a round needs, then are reused
            double members = LeastBytesPerSpawn();
            await scope.FinishAsync();
            return (outside, members, probes.Sum(p => p.Value));   // every body has run: the finish came after the last
        });   // no overall limit: 2,000 rounds on a loaded machine take long, and each round has its own progress limit

        Assert.Equal(4 * Repetitions * Rounds * cowns.Length, counted);
        Assert.True(members < 1, $"{dispatcher}: a member's spawn allocated {members:F2} bytes on average at the least (a spawn outside any scope {outside:F2})");
    }

    private sealed class AllocationProbe
    {
        public int Value { get; set; }
    }

    private static bool TrySpawn(Action spawn)
    {
        try
        {
            spawn();
            return true;
        }
        catch (OperationCanceledException)
        {
            return false;
        }
    }

    private static async Task WaitUntil(Func<bool> condition)
    {
        using var limit = new CancellationTokenSource(Progress.Limit);
        while (!condition())
        {
            await Task.Delay(1, limit.Token);
        }
    }
}
