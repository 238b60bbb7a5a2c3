namespace Boc.Tests;

/// <summary>
/// The next slot's hand-over (BocScheduler.OnSpawn): a body that keeps spawning lets another worker run what it made
/// ready; an actor's reply-then-send keeps the reply on its worker while the second spawn is blocked; and a ready second
/// spawn takes the slot and queues the reply. The stuck-work poll is off in each, so only the hand-over can move work.
/// </summary>
public sealed class NextSlotHandOverTests
{
    private sealed class Counter
    {
        public int Value;
    }

    [Fact]
    public async Task ABodyThatKeepsSpawning_LetsAnotherWorkerRunTheBehaviourItMadeReady()
    {
        // The first spawn is ready at once and goes to this worker's next slot; the second queues behind it on the same
        // cown, so the body spawns again while the first still waits in its slot. The scheduler then moves it where the
        // other worker takes it. The poll for stuck work is off, so nothing else can: without the hand-over the body
        // waits for a behaviour held back by itself, and the wait gives up (it does with OnSpawn disabled).
        using var scheduler = new BocScheduler(2, stuckCheck: false);
        await using var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, scheduler, TimeProvider.System);
        var producer = new Cown<Counter>(new Counter());
        var target = new Cown<Counter>(new Counter());
        for (int round = 0; round < 20; round++)
        {
            using var firstRan = new ManualResetEventSlim();
            bool ranWhileProducing = await runtime.WhenAsync(producer, _ =>
            {
                runtime.When(target, t => { t.Value++; firstRan.Set(); });
                runtime.When(target, t => t.Value++);
                return firstRan.Wait(Progress.Limit);
            }).Guard();
            Assert.True(ranWhileProducing, $"round {round}: the first behaviour stayed in the producing worker's next slot");
        }

        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(40, await runtime.WhenAsync(target, t => t.Value).Guard());
    }

    [Fact]
    public async Task ABodyThatThenSpawnsOntoAnotherCown_KeepsTheBehaviourItMadeReadyOnItsOwnWorker()
    {
        // An actor's reply-then-send: the first spawn is ready at once and goes to this worker's next slot; the second
        // goes onto another cown, held by an asynchronous body, so it cannot be ready and cannot queue behind the first.
        // The first then stays in the slot and runs next on the same worker, after the body. The body waits a while
        // after its second spawn (until the reply has run, or 20 ms): long enough for the idle worker to take a
        // behaviour handed over to the queue, as every second spawn did before this rule. The stuck-work poll is off, so
        // only a hand-over can move the reply; the body's thread and the reply's are the oracle.
        using var scheduler = new BocScheduler(2, stuckCheck: false);
        await using var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, scheduler, TimeProvider.System);
        var sender = new Cown<Counter>(new Counter());
        var partner = new Cown<Counter>(new Counter());
        var gate = new Cown<Counter>(new Counter());
        var open = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        runtime.When(gate, async _ => await open.Task);
        var moved = new List<int>();
        const int Rounds = 40;
        for (int round = 0; round < Rounds; round++)
        {
            // The last round's reply signalled from inside its body: wait until it has also let go of the partner, or this
            // round's reply could be queued behind it and made ready by its release, on whichever worker ran it.
            await runtime.WhenAsync(partner, p => p.Value).Guard();
            int bodyThread = -1;
            int replyThread = -1;
            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            runtime.When(sender, _ =>
            {
                bodyThread = Environment.CurrentManagedThreadId;
                runtime.When(partner, p =>
                {
                    p.Value++;
                    Volatile.Write(ref replyThread, Environment.CurrentManagedThreadId);
                    done.SetResult();
                });
                runtime.When(gate, g => g.Value++);
                SpinWait.SpinUntil(() => Volatile.Read(ref replyThread) != -1, TimeSpan.FromMilliseconds(20));
            });
            await done.Task.Guard();
            if (replyThread != bodyThread)
            {
                moved.Add(round);
            }
        }

        open.SetResult();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.True(moved.Count == 0, $"the reply left its worker's next slot in rounds {string.Join(", ", moved)} of {Rounds}");
        Assert.Equal(Rounds, await runtime.WhenAsync(partner, p => p.Value).Guard());
        Assert.Equal(Rounds, await runtime.WhenAsync(gate, g => g.Value).Guard());
    }

    [Fact]
    public async Task ABodyThatThenSpawnsAReadyBehaviourOntoAnotherCown_GivesItTheSlot_AndQueuesTheReply()
    {
        // Where the exception above ends (the dispatchers guide says so): when the second spawn is ready at once, it takes
        // the next slot and runs next on this worker; the reply moves to the worker's queue, and the idle worker takes it
        // and runs it while the body is still running. The body spins until the reply has run (bounded, so a reply
        // wrongly kept in the slot fails the test instead of hanging it); the stuck-work poll is off, so only the
        // hand-over can move the reply. The threads, and whether the reply ran inside the body, are the oracle.
        using var scheduler = new BocScheduler(2, stuckCheck: false);
        await using var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, scheduler, TimeProvider.System);
        var sender = new Cown<Counter>(new Counter());
        var partner = new Cown<Counter>(new Counter());
        var other = new Cown<Counter>(new Counter());
        var wrong = new List<string>();
        const int Rounds = 40;
        for (int round = 0; round < Rounds; round++)
        {
            // Both earlier behaviours have let go of their cowns: this round's spawns find them free.
            await runtime.WhenAsync(partner, p => p.Value).Guard();
            await runtime.WhenAsync(other, o => o.Value).Guard();
            int bodyThread = -1;
            int replyThread = -1;
            int secondThread = -1;
            bool replyRanInsideBody = false;
            var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            runtime.When(sender, _ =>
            {
                bodyThread = Environment.CurrentManagedThreadId;
                runtime.When(partner, p =>
                {
                    p.Value++;
                    Volatile.Write(ref replyThread, Environment.CurrentManagedThreadId);
                });
                runtime.When(other, o =>
                {
                    o.Value++;
                    secondThread = Environment.CurrentManagedThreadId;
                    done.SetResult();
                });
                replyRanInsideBody = SpinWait.SpinUntil(() => Volatile.Read(ref replyThread) != -1, TimeSpan.FromSeconds(5));
            });
            await done.Task.Guard();
            if (!replyRanInsideBody || secondThread != bodyThread || Volatile.Read(ref replyThread) == bodyThread)
            {
                wrong.Add($"round {round}: reply ran inside the body {replyRanInsideBody}, second spawn on the body's worker {secondThread == bodyThread}");
                break;
            }
        }

        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.True(wrong.Count == 0, string.Join("; ", wrong));
        Assert.Equal(Rounds, await runtime.WhenAsync(partner, p => p.Value).Guard());
        Assert.Equal(Rounds, await runtime.WhenAsync(other, o => o.Value).Guard());
    }
}
