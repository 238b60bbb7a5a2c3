namespace Boc.Tests;

/// <summary>
/// The next slot's take between items is a plain read and write on the owner's side; only a thief's flag and its
/// process-wide barrier keep the two apart (Scheduling/BocScheduler.NextSlot.cs, "The owner's plain take"). These tests pin the thief at
/// its decision and check what the owner does meanwhile.
/// </summary>
public sealed class NextSlotTakeTests
{
    private sealed class Counter
    {
        public int Value;
    }

#if DEBUG
    [Fact]
    public async Task AThiefThatHasDecidedToTakeTheNextSlot_KeepsTheOwnerOffIt_AndTheItemRunsOnce()
    {
        // Debug builds only: the pause point is a Debug hook. A body spawns X onto an idle cown (X goes to its worker's
        // next slot) and blocks. The other worker's stuck-work poll decides to take X and is paused right there. Then
        // the body ends, and its worker looks at its next slot between items. It must not take X while the thief holds
        // it: X may run only after the thief is let go, and then once. (Not necessarily on the thief's thread: the thief
        // queues X locally, and the owner, idle by then, may steal it from that queue first.) With the owner's check of
        // the thief's flag removed (TakeNext), the owner runs X at once, while the thief is still paused, and this fails.
        using var scheduler = new BocScheduler(2);
        await using var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, scheduler, TimeProvider.System);
        using var thiefDecided = new ManualResetEventSlim();
        using var releaseThief = new ManualResetEventSlim();
        using var releaseBody = new ManualResetEventSlim();
        using var xRan = new ManualResetEventSlim();
        scheduler.ThiefDecidedHook = () =>
        {
            thiefDecided.Set();
            releaseThief.Wait(Progress.Limit);
        };

        var a = new Cown<Counter>(new Counter());
        var b = new Cown<Counter>(new Counter());
        int runs = 0;
        bool ranBeforeTheThief = false;
        Task<bool> body = runtime.WhenAsync(a, _ =>
        {
            runtime.When(b, counter =>
            {
                counter.Value++;
                Interlocked.Increment(ref runs);
                ranBeforeTheThief |= !releaseThief.IsSet;
                xRan.Set();
            });
            return releaseBody.Wait(Progress.Limit);
        }).AsTask();

        Assert.True(thiefDecided.Wait(Progress.Limit), "the idle worker never decided to take the blocked worker's next slot");
        releaseBody.Set();
        Assert.True(await body.Guard());

        // The owner is between items now. With the thief paused X cannot run (the wait is only how long a wrong
        // owner gets to show itself; a correct one never runs X here).
        bool ranEarly = xRan.Wait(TimeSpan.FromMilliseconds(200));
        scheduler.ThiefDecidedHook = null;
        releaseThief.Set();
        Assert.False(ranEarly, "the owner took its next slot's item while a thief had decided to take it");
        Assert.True(xRan.Wait(Progress.Limit), "the item taken by the thief never ran");
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(1, Volatile.Read(ref runs));
        Assert.False(ranBeforeTheThief);
        Assert.Equal(1, await runtime.WhenAsync(b, counter => counter.Value).Guard());
    }
#endif

    [Fact]
    public async Task BodiesBlockingAroundTheStuckCheckInterval_RunEveryBehaviourOnce()
    {
        // Stuck-work takeovers racing the owner's own take: each round a body fills its worker's next slot and then
        // blocks for one to two StuckCheckIntervals, so that the other worker's poll (every interval while it is
        // parked) takes the item, and the body's end falls at a random point of the poll's period; chains keep the
        // owner's plain take busy in between. Every behaviour must run exactly once (a take by both would run one
        // twice; a lost item would leave the wait below unfinished). The exact interleaving is checked by the test
        // above; this one runs the real poll.
        int seed = Environment.TickCount;
        var random = new Random(seed);
        using var scheduler = new BocScheduler(2);
        await using var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, scheduler, TimeProvider.System);
        const int Rounds = 12;
        const int ChainLength = 200;
        var runs = new int[Rounds * (ChainLength + 1)];
        var blocker = new Cown<Counter>(new Counter());
        var targets = Enumerable.Range(0, Rounds).Select(_ => new Cown<Counter>(new Counter())).ToArray();
        var ring = Enumerable.Range(0, 8).Select(_ => new Cown<Counter>(new Counter())).ToArray();
        int interval = (int)BocScheduler.StuckCheckInterval.TotalMilliseconds;
        for (int round = 0; round < Rounds; round++)
        {
            int r = round;
            int block = interval + random.Next(interval);
            runtime.When(blocker, _ =>
            {
                runtime.When(targets[r], target =>
                {
                    target.Value++;
                    Interlocked.Increment(ref runs[r * (ChainLength + 1)]);
                });
                Thread.Sleep(block);
            });

            // A chain hopping around a ring of cowns: every hop is a take from a next slot.
            void Hop(int index, int left) => runtime.When(ring[left % ring.Length], actor =>
            {
                actor.Value++;
                Interlocked.Increment(ref runs[index]);
                if (left > 1)
                {
                    Hop(index + 1, left - 1);
                }
            });
            Hop((r * (ChainLength + 1)) + 1, ChainLength);
        }

        await runtime.WaitForQuiescenceAsync().Guard();
        for (int i = 0; i < runs.Length; i++)
        {
            Assert.True(runs[i] == 1, $"behaviour {i} ran {runs[i]} times (seed {seed})");
        }
    }
}
