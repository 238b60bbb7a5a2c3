namespace Boc.Tests;

/// <summary>
/// Issue 39, item 1: the protocol's cross-thread waits (Protocol/Behaviour.cs, <c>LongWaitSleepThreshold</c>) must
/// yield, never sleep. They used to sleep a millisecond per iteration after 100 iterations, and two workers that each
/// waited for a step of the other then took turns sleeping: each woke to find its partner asleep in its own wait, and
/// Dining Philosophers (full) ran about one behaviour per millisecond per worker for seconds. That convoy needs a
/// preemption at the wrong moment and showed up about once in a few million behaviours, too rarely to reproduce in a
/// test run; its cause can be pinned: these tests pause one thread mid-step (a Debug hook) and watch the thread that
/// waits for it.
/// </summary>
/// <remarks>
/// The oracle is the waiter's thread state, not time. A thread inside <see cref="Thread.Sleep(int)"/> reports
/// <see cref="ThreadState.WaitSleepJoin"/>. A waiter that sleeps from its 100th iteration on is in that state at every
/// later iteration for a millisecond, so a sampler sees nearly all of them. A waiter that only spins and yields is in
/// it only inside <c>SpinWait</c>'s occasional <c>Thread.Sleep(0)</c>, one iteration in ten, however loaded the
/// machine is; a sampler's off-by-one attribution can at most double that. So the bound below (half the watched
/// iterations) separates the two without a clock. Measured: 784-800 of the 800 watched iterations seen asleep with the
/// threshold put back to 100 (every case fails), 0-157 as it is.
/// </remarks>
public sealed class ProtocolWaitTests
{
    private const int WatchFrom = 200;
    private const int WatchUntil = 1_000;

#if DEBUG
    [Theory]
    [InlineData(BocDispatcher.BocScheduler)]
    [InlineData(BocDispatcher.ThreadPool)]
    public async Task ASpawnerWaitingForItsPredecessorsPhaseOne_YieldsAndNeverSleeps(BocDispatcher dispatcher)
    {
        // A pair spawner is paused between its Exchange on the lower cown and its phase 2, so its request there is not
        // Scheduled. A one-cown spawner on that cown then finds it as its predecessor and must wait for the flag
        // (WaitUntilScheduled) before it may link.
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var lower = new Cown<List<string>>([]);
        var higher = new Cown<List<string>>([]);
        Assert.True(lower.Id < higher.Id);
        using var pause = new PausePoint(lower);
        var watch = new WaitWatch(lower);

        var pairSpawner = new Thread(() => runtime.When(lower, higher, static (log, _) => log.Add("pair")));
        pause.Start(pairSpawner);
        Assert.True(pause.Reached.Wait(Progress.Limit), "the pair's spawner never reached its Exchange");

        var waiter = new Thread(() => runtime.When(lower, static log => log.Add("single")));
        waiter.Start();
        int seenAsleep = watch.IterationsSeenAsleep();
        pause.Release();
        Assert.True(pairSpawner.Join(Progress.Limit) && waiter.Join(Progress.Limit), "a spawner never returned");

        Assert.Same(waiter, watch.Waiter);
        Assert.True(
            seenAsleep < (WatchUntil - WatchFrom) / 2,
            $"the waiting spawner was seen asleep at {seenAsleep} of its iterations {WatchFrom}-{WatchUntil}: the wait sleeps");
        Assert.Equal(["pair", "single"], await runtime.WhenAsync(lower, static log => log.ToArray()).Guard());
    }

    [Theory]
    [InlineData(BocDispatcher.BocScheduler)]
    [InlineData(BocDispatcher.ThreadPool)]
    public async Task AReleaseWaitingForItsSuccessorsLink_YieldsAndNeverSleeps(BocDispatcher dispatcher)
    {
        // A body holds the cown while a spawner is paused between its Exchange there and its link. When the body ends,
        // its worker finds no successor linked but the tail moved, so it must wait for the link (PassOn).
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var cown = new Cown<List<string>>([]);
        using var holding = new ManualResetEventSlim();
        using var letGo = new ManualResetEventSlim();
        runtime.When(cown, log =>
        {
            holding.Set();
            Assert.True(letGo.Wait(Progress.Limit));
            log.Add("holder");
        });
        Assert.True(holding.Wait(Progress.Limit), "the holder never ran");

        using var pause = new PausePoint(cown);
        var watch = new WaitWatch(cown);
        var successorSpawner = new Thread(() => runtime.When(cown, static log => log.Add("successor")));
        pause.Start(successorSpawner);
        Assert.True(pause.Reached.Wait(Progress.Limit), "the successor's spawner never reached its Exchange");

        letGo.Set();
        int seenAsleep = watch.IterationsSeenAsleep();
        pause.Release();
        Assert.True(successorSpawner.Join(Progress.Limit), "the successor's spawner never returned");

        Assert.NotNull(watch.Waiter);
        Assert.NotSame(successorSpawner, watch.Waiter);
        Assert.True(
            seenAsleep < (WatchUntil - WatchFrom) / 2,
            $"the releasing worker was seen asleep at {seenAsleep} of its iterations {WatchFrom}-{WatchUntil}: the wait sleeps");
        Assert.Equal(["holder", "successor"], await runtime.WhenAsync(cown, static log => log.ToArray()).Guard());
    }

    /// <summary>Pauses one chosen thread right after its Exchange on one cown, until released (or disposed).</summary>
    private sealed class PausePoint : IDisposable
    {
        private readonly Cown _cown;
        private readonly ManualResetEventSlim _release = new();
        private Thread? _thread;

        public PausePoint(Cown cown)
        {
            _cown = cown;
            ProtocolTestHooks.Exchanged = OnExchanged;
        }

        public ManualResetEventSlim Reached { get; } = new();

        /// <summary>Starts <paramref name="thread"/>, the one to pause (set first: Start publishes it to the thread).</summary>
        public void Start(Thread thread)
        {
            _thread = thread;
            thread.Start();
        }

        public void Release() => _release.Set();

        public void Dispose()
        {
            ProtocolTestHooks.Exchanged = null;
            _release.Set();
            Reached.Dispose();
        }

        private void OnExchanged(Cown cown)
        {
            if (ReferenceEquals(cown, _cown) && ReferenceEquals(Thread.CurrentThread, _thread))
            {
                Reached.Set();
                _release.Wait(Progress.Limit);
            }
        }
    }

    /// <summary>Watches the protocol waits on one cown: which thread waits, and how many iterations it has made.</summary>
    private sealed class WaitWatch
    {
        private readonly Cown _cown;
        private volatile Thread? _waiter;
        private volatile int _iterations = -1;

        public WaitWatch(Cown cown)
        {
            _cown = cown;
            ProtocolTestHooks.Waiting = OnWaiting;
        }

        public Thread? Waiter => _waiter;

        /// <summary>
        /// Samples the waiter's state until it has made <see cref="WatchUntil"/> iterations; returns how many of the
        /// iterations from <see cref="WatchFrom"/> on it was seen inside a sleep. Stops watching on return.
        /// </summary>
        public int IterationsSeenAsleep()
        {
            var asleep = new bool[WatchUntil];
            var limit = System.Diagnostics.Stopwatch.StartNew();
            try
            {
                while (true)
                {
                    int iteration = _iterations;
                    if (iteration >= WatchUntil)
                    {
                        return asleep.Count(seen => seen);
                    }

                    Assert.True(limit.Elapsed < Progress.Limit, $"the wait never reached {WatchUntil} iterations (at {iteration})");
                    if (iteration >= WatchFrom && (_waiter!.ThreadState & ThreadState.WaitSleepJoin) != 0)
                    {
                        asleep[iteration] = true;
                    }
                }
            }
            finally
            {
                ProtocolTestHooks.Waiting = null;
            }
        }

        private void OnWaiting(Cown cown, int iterations)
        {
            if (ReferenceEquals(cown, _cown))
            {
                // The waiter is published before the count that makes the sampler read it.
                _waiter ??= Thread.CurrentThread;
                _iterations = iterations;
            }
        }
    }
#endif
}
