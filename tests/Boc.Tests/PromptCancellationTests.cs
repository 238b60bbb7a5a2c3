namespace Boc.Tests;

/// <summary>
/// A canceled wait returns when the cancellation is processed, whoever holds the cowns: a <c>WhenAsync</c> withdrawn
/// while queued completes as withdrawn at once, and a scope's deadline stops its finish waiting for members that never
/// started. The withdrawn behaviour still keeps its place in each queue (it counts as pending and passes each turn on
/// in order when it arrives). Every "at once" here is an event: the holder is blocked on a gate that the test opens
/// only after it has seen the completion, so the completion cannot have waited for the holder.
/// </summary>
public sealed class PromptCancellationTests
{
    public static TheoryData<BocDispatcher, string> DispatchersAndShapes()
    {
        var data = new TheoryData<BocDispatcher, string>();
        foreach (BocDispatcher dispatcher in new[] { BocDispatcher.BocScheduler, BocDispatcher.ThreadPool })
        {
            foreach (string shape in new[] { "writer", "reader", "two cowns, one free", "two cowns, both held" })
            {
                data.Add(dispatcher, shape);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(DispatchersAndShapes))]
    public async Task ACanceledWait_CompletesAtTheCancellation_WhileTheHolderStillRuns(BocDispatcher dispatcher, string shape)
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var held = new Cown<List<string>>([]);
        var other = new Cown<List<string>>([]);
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        using var cts = new CancellationTokenSource();

        // Fire-and-forget holders: an awaited spawn on free cowns may run inline, on this thread, and block it.
        var holderDone = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        runtime.When(held, other, (h, o) =>
        {
            started.Set();
            gate.Wait(Progress.Limit);
            h.Add("holder");
            holderDone.SetResult();
        });
        Task holder = holderDone.Task;
        started.Wait(Progress.Limit);
        if (shape == "two cowns, one free")
        {
            // Let `other` go: the holder keeps `held` only (a new holder on `held`, the old one finished).
            gate.Set();
            await holder.Guard();
            await runtime.WaitForQuiescenceAsync().Guard();
            gate.Reset();
            started.Reset();
            var secondDone = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            runtime.When(held, h =>
            {
                started.Set();
                gate.Wait(Progress.Limit);
                h.Add("holder");
                secondDone.SetResult();
            });
            holder = secondDone.Task;
            started.Wait(Progress.Limit);
        }

        ValueTask canceled = shape switch
        {
            "writer" => runtime.WhenAsync(held, h => h.Add("canceled"), cts.Token),
            "reader" => runtime.WhenAsync(Cown.Read(held), h => { _ = h.Count; }, cts.Token),
            _ => runtime.WhenAsync(held, other, (h, o) => h.Add("canceled"), cts.Token),
        };
        ValueTask<string> next = runtime.WhenAsync(held, h => string.Join(",", h));
        Assert.False(canceled.IsCompleted);

        cts.Cancel();

        BehaviourWithdrawnException withdrawn = await Assert.ThrowsAsync<BehaviourWithdrawnException>(() => canceled.Guard());
        Assert.Equal(cts.Token, withdrawn.CancellationToken);
        Assert.False(holder.IsCompleted, "the holder is blocked on the gate: the canceled wait did not wait for it");

        // Still pending until its place in the queue has been passed on: the holder, the withdrawn one, the next.
        Assert.Equal(3, runtime.PendingCount);

        gate.Set();
        await holder.Guard();
        string[] holders = shape == "two cowns, one free" ? ["holder", "holder"] : ["holder"];
        Assert.Equal(string.Join(",", holders), await next.Guard());
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(0, runtime.PendingCount);
        Assert.Equal(holders, await runtime.WhenAsync(held, h => h.ToArray()).Guard());
    }

    [Fact]
    public async Task AWithdrawnResult_TakenBeforeTheBehaviourCompletes_CannotBeTakenTwice_AndItsObjectIsReusedOnlyAfter()
    {
        // The awaiter takes the outcome while the withdrawn behaviour still waits in the queue; the behaviour returns to
        // its pool only once its place has been passed on. A second await of the same ValueTask fails, before and after.
        await using var runtime = new BocRuntime();
        var cown = new Cown<List<string>>([]);
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        using var cts = new CancellationTokenSource();

        runtime.When(cown, l =>
        {
            started.Set();
            gate.Wait(Progress.Limit);
            l.Add("holder");
        });
        started.Wait(Progress.Limit);
#pragma warning disable CA2012 // Awaited more than once on purpose: the second await must fail with Boc's message.
        ValueTask<int> canceled = runtime.WhenAsync(cown, l => l.Count, cts.Token);
#pragma warning restore CA2012
        cts.Cancel();
        await Assert.ThrowsAsync<BehaviourWithdrawnException>(async () => await canceled);
        InvalidOperationException twice = await Assert.ThrowsAsync<InvalidOperationException>(async () => await canceled);
        Assert.Contains("only once", twice.Message, StringComparison.Ordinal);

        // Many spawns meanwhile: none may be given the withdrawn behaviour's object while it is still queued (the Debug
        // pool checks fail any protocol step on a pooled behaviour, and the stamps on links catch a reuse).
        var results = new List<Task<int>>();
        for (int i = 0; i < 100; i++)
        {
            results.Add(runtime.WhenAsync(cown, l => l.Count).AsTask());
        }

        gate.Set();
        for (int i = 0; i < results.Count; i++)
        {
            Assert.Equal(1, await results[i].Guard());
        }

        await Assert.ThrowsAsync<InvalidOperationException>(async () => await canceled);
        Assert.Equal(["holder"], await runtime.WhenAsync(cown, l => l.ToArray()).Guard());
    }

    [Theory]
    [InlineData(BocDispatcher.BocScheduler, false)]
    [InlineData(BocDispatcher.BocScheduler, true)]
    [InlineData(BocDispatcher.ThreadPool, false)]
    [InlineData(BocDispatcher.ThreadPool, true)]
    public async Task AtTheScopesDeadline_MembersNotStartedNoLongerHoldTheFinishBack(BocDispatcher dispatcher, bool awaitedMember)
    {
        var clock = new ManualClock();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher, TimeProvider = clock });
        var cown = new Cown<List<string>>([]);
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();

        // The holder is outside the scope: the scope's finish has nothing to wait for once its member is withdrawn.
        var holderDone = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        runtime.When(cown, l =>
        {
            started.Set();
            gate.Wait(Progress.Limit);
            l.Add("holder");
            holderDone.SetResult();
        });
        Task holder = holderDone.Task;
        started.Wait(Progress.Limit);

        BocScope scope = runtime.BeginScope(TimeSpan.FromSeconds(1));
        ValueTask member = default;
        if (awaitedMember)
        {
            member = runtime.WhenAsync(cown, l => l.Add("member"));
        }
        else
        {
            runtime.When(cown, l => l.Add("member"));
        }

        Task finish = scope.FinishAsync();
        Assert.False(finish.IsCompleted);
        clock.FireAll();

        await Assert.ThrowsAsync<TimeoutException>(() => finish.GuardTimeout());
        if (awaitedMember)
        {
            await Assert.ThrowsAsync<BehaviourWithdrawnException>(() => member.Guard());
        }

        Assert.False(holder.IsCompleted, "the holder is blocked on the gate: the finish did not wait for it");
        gate.Set();
        await holder.Guard();
        Assert.Equal(["holder"], await runtime.WhenAsync(cown, l => l.ToArray()).Guard());
    }
}
