using System.Collections.Concurrent;

namespace Boc.Tests;

/// <summary>
/// One outcome per cause: a scope whose deadline passes before it finishes gives the code that opened it a
/// <see cref="TimeoutException"/>, and one whose token is canceled a <see cref="TaskCanceledException"/> with that token,
/// whatever each member was doing (queued, running and giving up, running to its end) and whether it was fire-and-forget
/// or awaited inside the block. Members' failures travel inside that exception. Deadlines fire from a
/// <see cref="ManualClock"/> at a chosen point, so no outcome depends on the machine's speed.
/// </summary>
public sealed class ScopeOutcomeTests
{
    public static TheoryData<string, bool> Stages()
    {
        var data = new TheoryData<string, bool>();
        foreach (string stage in new[] { "queued", "running, gives up", "running to its end" })
        {
            data.Add(stage, false);
            data.Add(stage, true);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Stages))]
    public async Task ADeadline_GivesTheBlockOneTimeoutException_WhateverTheMemberWasDoing(string stage, bool awaitedInTheBlock)
    {
        var clock = new ManualClock();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { TimeProvider = clock });
        await using var member = new MemberAtAStage(runtime, stage);

        Task block = member.RunBlockAsync(() => runtime.BeginScope(TimeSpan.FromSeconds(1)), awaitedInTheBlock);
        member.WaitUntilAtItsStage();
        clock.FireAll();
        member.LetItEnd();

        TimeoutException timeout = await Assert.ThrowsAsync<TimeoutException>(() => block.GuardTimeout());
        Assert.Null(timeout.InnerException);
        Assert.Equal(stage != "queued", member.BodyRan);
    }

    [Theory]
    [MemberData(nameof(Stages))]
    public async Task AToken_GivesTheBlockOneCancellation_WithThatToken_WhateverTheMemberWasDoing(string stage, bool awaitedInTheBlock)
    {
        await using var runtime = new BocRuntime();
        await using var member = new MemberAtAStage(runtime, stage);
        using var cts = new CancellationTokenSource();

        Task block = member.RunBlockAsync(() => runtime.BeginScope(cts.Token), awaitedInTheBlock);
        member.WaitUntilAtItsStage();
        cts.Cancel();
        member.LetItEnd();

        TaskCanceledException canceled = await Assert.ThrowsAsync<TaskCanceledException>(() => block.Guard());
        Assert.Equal(cts.Token, canceled.CancellationToken);
    }

    [Fact]
    public async Task MembersFailures_TravelInsideTheTimeout_NotInsteadOfIt()
    {
        var clock = new ManualClock();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { TimeProvider = clock });
        var cown = new Cown<int[]>(new int[1]);
        var other = new Cown<int[]>(new int[1]);
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        BocScope scope = runtime.BeginScope(TimeSpan.FromSeconds(1));
        runtime.When(other, _ => throw new InvalidOperationException("member failed"));
        runtime.When(cown, _ =>
        {
            started.Set();
            gate.Wait(Progress.Limit);
        });
        runtime.When(cown, c => c[0]++);   // queued behind the running member: withdrawn at the deadline
        started.Wait(Progress.Limit);
        Task finish = scope.FinishAsync();
        clock.FireAll();
        gate.Set();

        TimeoutException timeout = await Assert.ThrowsAsync<TimeoutException>(() => finish.GuardTimeout());
        AggregateException failures = Assert.IsType<AggregateException>(timeout.InnerException);
        Assert.Equal("member failed", Assert.Single(failures.InnerExceptions).Message);
        Assert.Equal(0, await runtime.WhenAsync(cown, c => c[0]).Guard());
    }

    [Fact]
    public async Task ACancellationAfterTheFinish_ChangesNothing_AndOneBeforeItAfterTheWorkRan_IsStillTheOutcome()
    {
        await using var runtime = new BocRuntime();
        var cown = new Cown<int[]>(new int[1]);

        using var late = new CancellationTokenSource();
        BocScope finished = runtime.BeginScope(late.Token);
        runtime.When(cown, c => c[0]++);
        await finished.FinishAsync().Guard();
        late.Cancel();
        await finished.FinishAsync().Guard();

        // Every member has run, but the block had not ended: the scope had not finished, so the token is its outcome.
        using var early = new CancellationTokenSource();
        BocScope open = runtime.BeginScope(early.Token);
        Assert.Equal(2, await runtime.WhenAsync(cown, c => ++c[0]).Guard());
        early.Cancel();
        TaskCanceledException canceled = await Assert.ThrowsAsync<TaskCanceledException>(() => open.FinishAsync().Guard());
        Assert.Equal(early.Token, canceled.CancellationToken);
    }

    [Fact]
    public async Task AChildCanceledByItsParent_WhoseAwaitedMemberGivesUp_IsCanceled()
    {
        // The child's only member is awaited, starts, and gives up on the cancellation: nothing was withdrawn or refused,
        // yet the child was canceled before it finished, and its finish says so.
        await using var runtime = new BocRuntime();
        var job = new Cown<int[]>(new int[1]);
        var item = new Cown<int[]>(new int[1]);
        using var cts = new CancellationTokenSource();
        using var memberStarted = new ManualResetEventSlim();
        var childOutcome = new TaskCompletionSource<Exception?>(TaskCreationOptions.RunContinuationsAsynchronously);

        BocScope parent = runtime.BeginScope(cts.Token);
        runtime.When(job, async _ =>
        {
            BocScope child = runtime.BeginScope();
            try
            {
                await runtime.WhenAsync(item, async i =>
                {
                    memberStarted.Set();
                    await Task.Delay(Timeout.InfiniteTimeSpan, Behaviours.CurrentCancellationToken);
                    i[0]++;
                });
            }
            catch (OperationCanceledException)
            {
            }

            try
            {
                await child.FinishAsync();
                childOutcome.SetResult(null);
            }
            catch (Exception e)
            {
                childOutcome.SetResult(e);
            }
        });
        memberStarted.Wait(Progress.Limit);
        cts.Cancel();

        Assert.IsType<TaskCanceledException>(await childOutcome.Task.Guard());
        await Assert.ThrowsAsync<TaskCanceledException>(() => parent.FinishAsync().Guard());
        Assert.Equal(0, await runtime.WhenAsync(item, i => i[0]).Guard());
    }

    [Fact]
    public async Task ASelfWaitThroughAChildScope_EndsItsBlock_SoTheParentFinishes_AndNothingIsLost()
    {
        var unhandled = new ConcurrentQueue<Exception>();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { UnhandledExceptionHandler = unhandled.Enqueue });
        var cown = new Cown<List<string>>([]);

        BocScope parent = runtime.BeginScope();
        runtime.When(cown, async l =>
        {
            await using (runtime.BeginScope())
            {
                // Needs the cown this body holds: it can run only after the body ends.
                runtime.When(cown, l2 =>
                {
                    l2.Add("member");
                    throw new InvalidOperationException("the child's member failed");
                });
            }   // DisposeAsync: a self-wait, refused at once

            l.Add("not reached");
        });

        AggregateException failures = await Assert.ThrowsAsync<AggregateException>(() => parent.FinishAsync().Guard());
        Assert.Equal(2, failures.InnerExceptions.Count);
        Assert.Contains(failures.InnerExceptions, e => e is InvalidOperationException && e.Message.Contains("needs a cown the body holds", StringComparison.Ordinal));
        Assert.Contains(failures.InnerExceptions, e => e.Message == "the child's member failed");
        Assert.Empty(unhandled);
        Assert.Equal(["member"], await runtime.WhenAsync(cown, l => l.ToArray()).Guard());
    }

    [Fact]
    public async Task AnInnerBlockEndedInAnAsyncHelper_LeavesTheOuterBlocksLaterSpawnsInTheOuterScope()
    {
        var unhandled = new ConcurrentQueue<Exception>();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { UnhandledExceptionHandler = unhandled.Enqueue });
        var cown = new Cown<int[]>(new int[1]);
        using var gate = new ManualResetEventSlim();

        BocScope outer = runtime.BeginScope();
        BocScope inner = runtime.BeginScope();
        runtime.When(cown, c => c[0]++);
        await EndInAHelperAsync(inner);
        Assert.Same(outer, Behaviours.CurrentScope);

        runtime.When(cown, c =>
        {
            gate.Wait(Progress.Limit);
            c[0]++;
            throw new InvalidOperationException("late member");
        });
        Task finish = outer.FinishAsync();
        Assert.False(finish.IsCompleted, "the outer scope waits for the member spawned after the helper");
        gate.Set();

        AggregateException failures = await Assert.ThrowsAsync<AggregateException>(() => finish.Guard());
        Assert.Equal("late member", Assert.Single(failures.InnerExceptions).Message);
        Assert.Empty(unhandled);
        Assert.Equal(2, await runtime.WhenAsync(cown, c => c[0]).Guard());

        static async Task EndInAHelperAsync(BocScope scope)
        {
            await Task.Yield();
            await scope.DisposeAsync();
        }
    }

    /// <summary>
    /// One member at a chosen stage when the scope is canceled: queued behind a holder outside the scope, running and
    /// giving up when the scope's token fires, or running and ignoring it until the test lets it end.
    /// </summary>
    private sealed class MemberAtAStage(BocRuntime runtime, string stage) : IAsyncDisposable
    {
        private readonly Cown<int[]> _cown = new(new int[1]);
        private readonly ManualResetEventSlim _holderGate = new();
        private readonly ManualResetEventSlim _started = new();
        private readonly ManualResetEventSlim _end = new();
        private Task _holder = Task.CompletedTask;
        private int _bodyRan;

        public bool BodyRan => Volatile.Read(ref _bodyRan) != 0;

        public Task RunBlockAsync(Func<BocScope> begin, bool awaitedInTheBlock)
        {
            if (stage == "queued")
            {
                // Fire-and-forget: an awaited spawn on a free cown may run inline, on this thread, and block it.
                var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                runtime.When(_cown, _ =>
                {
                    _started.Set();
                    _holderGate.Wait(Progress.Limit);
                    done.SetResult();
                });
                _holder = done.Task;
            }

            return Task.Run(async () =>
            {
                await using (begin())
                {
                    if (awaitedInTheBlock)
                    {
                        await runtime.WhenAsync(_cown, Body);
                    }
                    else
                    {
                        runtime.When(_cown, Body);
                    }
                }
            });
        }

        public void WaitUntilAtItsStage()
        {
            _started.Wait(Progress.Limit);
            if (stage == "queued")
            {
                // The member is spawned after the holder started; wait until it is queued (the block's task spawns it).
                SpinWait.SpinUntil(() => runtime.PendingCount >= 2, Progress.Limit);
            }
        }

        public void LetItEnd() => _end.Set();

        public async ValueTask DisposeAsync()
        {
            _holderGate.Set();
            _end.Set();
            await _holder.Guard();
            _holderGate.Dispose();
            _started.Dispose();
            _end.Dispose();
        }

        private async Task Body(int[] state)
        {
            Volatile.Write(ref _bodyRan, 1);
            _started.Set();
            if (stage == "running, gives up")
            {
                await Task.Delay(Timeout.InfiniteTimeSpan, Behaviours.CurrentCancellationToken);
            }
            else
            {
                _end.Wait(Progress.Limit);
            }

            state[0]++;
        }
    }
}
