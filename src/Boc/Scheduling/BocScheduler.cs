using System.Collections.Concurrent;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Boc.Diagnostics;
using Boc.Dispatch;
using Boc.Scheduling;

namespace Boc;

// =====================================================================================================================
// How the workers share work, and why nothing is lost, run twice, or left asleep. (The BoC protocol itself, which
// decides when a behaviour is ready, is in Protocol/; this file only runs ready work.)
//
// Where an item can be, and who may take it from there:
//   * Worker.Next - the next slot. Filled only by its owner (Dispatch on a worker: a behaviour made ready there runs
//     next there, cache-warm). Emptied by the owner (NextItem; or OnSpawn, which moves it to the queue when the
//     item that filled it spawns again, so is not about to finish) or, when the owner looks blocked, by a parked
//     peer (TakeStuckWork). The owner fills an empty slot with a release store (nobody else writes a non-null value,
//     so it cannot race a fill). Takes inside a body (OnSpawn, Dispatch's displacement) and a thief's are
//     Interlocked.Exchange; the owner's take between items (NextItem, once per chain hop) is a plain read and write,
//     kept apart from thieves by an asymmetric pair (next paragraph). So an item in the slot is taken exactly once.
//   * The owner's plain take. A thief takes only from a worker that is inside a body (InBody, set by the owner
//     before each item and cleared at the start of NextItem) and has run nothing for an interval. The owner clears
//     InBody, then reads Stealing, then takes; a thief sets Stealing (a CAS, so one thief at a time), issues a
//     process-wide barrier (Interlocked.MemoryBarrierProcessWide), then reads InBody and takes only if it is set.
//     The barrier orders the owner's store and load as if the owner had fenced between them, so either the owner
//     sees Stealing (and waits for the thief, then takes by Exchange) or the thief sees InBody clear, or set again
//     by the next item, whose release store comes after the owner's take. The owner reads the slot only after its
//     acquire read of Stealing, so a thief that finished first left the slot empty for it. Only a thief pays a
//     barrier (a system call), once per stuck worker per interval.
//   * Worker.Queue - a bounded ring (Scheduling/RunQueue.cs). Pushed only by its owner; taken by anyone by CAS on its
//     head, one item (TryTake) or half the queue at once (StealHalfInto, into the thief's own empty queue). Its
//     argument (why a consumer may read a slot before claiming it, and the release/acquire pairs) is in that file.
//   * _inbox - a ConcurrentQueue for work from threads that are not workers of this scheduler, and for a full ring's
//     overflow (PushLocal moves the older half there). Linearizable on its own.
// An item moves only by being taken (an atomic claim) and then put somewhere by the taker, so it is in exactly one
// place or running, never in two.
//
// Batching, and its bounds:
//   * next slot: at most NextSlotRunLimit runs in a row while the queue holds work, then the item goes to the back
//     of the queue (stealable);
//   * inbox: every InboxCheckInterval-th item a worker runs is taken from the inbox if it has one (Ticks counts every
//     item); a worker that finds its queue empty takes up to InboxBatch more from the inbox into its queue;
//   * stealing takes half of a victim's queue, so an idle worker gets a batch, not one item;
//   * a behaviour running appended bodies (a flood's batch, up to 32 bodies in one item) offers its worker, between two
//     bodies, once it has run for AppendedRunSliceMilliseconds while other work waits: the rest of its run goes to the
//     back of the inbox (EnqueueYielded; AppendableBehaviour.cs, "Yielding", has why that keeps every guarantee).
//
// Parking without a lost wake-up (see WakeOne for the store/load pairs):
//   * an idle worker first spins, if fewer than _maxSpinning (half the workers) already do, looking at every queue;
//   * then it increments _idle, looks at every queue once more, and only then waits on _wake;
//   * whoever queues an item issues a full fence and then reads _spinning and _idle: if a worker is spinning it will
//     see the item; if one is registered as idle, the waker takes one registration and releases one permit. So either
//     the idle worker's last look sees the item, or the waker sees the registration.
//   * one exception, for speed only: a thread that is not a worker wakes a sleeper even while a worker spins, if that
//     spinner last ran on the waker's own processor (WakeOne says why). Waking one more worker than needed is always
//     safe: it finds nothing, or what another would have taken, and parks again.
//   * the next slot needs no wake-up: its only runner is its owner, which is awake (it filled it). If the owner then
//     blocks in a body, a parked peer's timed wait (StuckCheckInterval) notices that the owner's Ticks did not move and
//     takes the slot's item.
//
// Memory ordering, x64 and ARM64. Nothing here relies on x64's strong (TSO) ordering. Every hand-over between threads
// is an interlocked operation (full fence on both), a Volatile.Write paired with a Volatile.Read (emitted as stlr/ldar
// on ARM64), or goes through ConcurrentQueue/SemaphoreSlim, which order themselves. The one store-then-load order the
// wake-up needs (publish the item, then read the sleeper count) is the one that even x64 may reorder, so it has an
// explicit Interlocked.MemoryBarrier. The next slot's take between items needs no fence on the owner's side: the thief's
// process-wide barrier stands in for it (above), on ARM64 as on x64. Plain fields are owner-only (NextRuns,
// LastSeenTicks, Spill, the ring's tail as read by its owner) or a heuristic read by others (Ticks, written with a
// release store: a stale value only delays a stuck-work takeover by one interval).
// =====================================================================================================================

/// <summary>
/// A <see cref="TaskScheduler"/> with a fixed set of worker threads, built to run BoC behaviours: per-worker run
/// queues with batch stealing, a global inbox for work from other threads, and a per-worker "next" slot so that a
/// behaviour made ready on a worker runs next on that worker, cache-warm.
/// </summary>
/// <remarks>
/// <para>
/// Behaviours are not <see cref="Task"/>s: a <see cref="BocRuntime"/> using this scheduler hands them to the workers
/// directly. The same workers also run <see cref="Task"/>s queued to this scheduler (for example with
/// <c>Task.Factory.StartNew(…, scheduler)</c>), and continuations of <c>await</c>s inside behaviour bodies: each worker
/// thread carries a <see cref="SynchronizationContext"/> that posts back to this scheduler.
/// </para>
/// <para>
/// Latency bounds. A behaviour made ready on a worker runs next on it; after <see cref="NextSlotRunLimit"/> such runs
/// in a row it goes to the back of the worker's queue whenever that queue holds work, so queued work waits for at most
/// that many runs of a chain.
/// Every <see cref="InboxCheckInterval"/>-th item a worker runs, wherever it came from, is taken from the inbox if the
/// inbox is not empty, so work queued from outside the workers (a request handler, a timer, an <c>await</c>
/// continuation completing on another thread) waits behind at most that many items per worker for each item ahead of
/// it in the inbox, however busy the workers are.
/// One item can be a flood's batch of up to 32 bodies of one behaviour. If those bodies are long, a behaviour that has
/// run them for about 10 ms while other work waits hands its worker over between two bodies: the rest of its bodies
/// run later, still before anything else on its cowns.
/// </para>
/// <para>
/// Every work item starts with the worker's default <see cref="ExecutionContext"/> and this scheduler's
/// <see cref="SynchronizationContext"/>: <c>AsyncLocal</c> values, the culture, or <c>Activity.Current</c> set by one
/// item are not seen by the next, as on the .NET thread pool.
/// </para>
/// <para>
/// Idle workers spin briefly (at most half of them at a time, so that spinning never takes the cores a producer
/// thread needs), then park. Work queued while workers sleep wakes one; the protocol that makes a lost wake-up
/// impossible is written next to <see cref="WakeOne"/>. Parked workers also wake every
/// <see cref="StuckCheckInterval"/> to take work held in the next slot of a worker that has run nothing since they
/// parked (its body blocks): do not block in bodies, but if one does, the work it holds back moves to another worker
/// within about one interval. With every worker blocked nothing can run.
/// </para>
/// <para>
/// <see cref="Dispose"/> lets the workers drain every queued item, then stops them and waits for their threads to
/// exit. Work queued after that runs on the .NET thread pool, so nothing queued is lost.
/// </para>
/// </remarks>
public sealed class BocScheduler : TaskScheduler, IDispatcher, IDisposable
{
    /// <summary>
    /// How many behaviours a worker runs from its next slot in a row before the next one goes to the back of its queue
    /// (if the queue holds work; with nothing queued there is nobody to be fair to, and the chain keeps the slot).
    /// </summary>
    public const int NextSlotRunLimit = 100;

    /// <summary>
    /// Every this many items a worker runs, it takes its next item from the inbox of work queued from other threads,
    /// if there is any (the bound on how long outside work can wait behind busy workers).
    /// </summary>
    public const int InboxCheckInterval = 61;

    /// <summary>
    /// <see cref="Thread.SpinWait(int)"/> iterations in one poll interval of a runner's hold on a flood's tail that is
    /// still filling (<c>Behaviour.Appending.cs</c>, "Holding a filling tail"): about 1.4 µs on the 2-vCPU benchmark machine,
    /// where a body that floods a cown appends 30 to 60 bodies in that time. A shorter interval ends the hold on a
    /// spawner's brief stall; a longer one makes the runner wait longer for a spawner that has finished.
    /// </summary>
    internal const int FloodPollSpins = 50;

    /// <summary>
    /// How long, in milliseconds, a behaviour may run appended bodies before it offers its worker to waiting work
    /// between two of them (<c>AppendableBehaviour.cs</c>, "Yielding"); see <see cref="AppendedRunSliceMilliseconds"/>.
    /// </summary>
    internal const int DefaultAppendedRunSliceMilliseconds = 10;

    /// <summary>How often parked workers look for work stuck in the next slot of a blocked worker.</summary>
    public static readonly TimeSpan StuckCheckInterval = TimeSpan.FromMilliseconds(50);

    // A worker that finds its queue empty moves up to this many items from the inbox to its queue at once.
    private const int InboxBatch = 32;

    private const int SpinIterations = 50;

    private readonly Worker[] _workers;

    // The workers' run queues, apart from the Worker objects: an idle worker polls every queue while it spins, and
    // reading a queue through its Worker would share a cache line with the fields its owner writes on every item.
    private readonly RunQueue[] _queues;
    private readonly ConcurrentQueue<object> _inbox = new();
    private readonly SemaphoreSlim _wake = new(0);
    private readonly BocSynchronizationContext _context;
    private readonly int _maxSpinning;
    private readonly bool _stuckCheck;

    // Workers registered as going to sleep (or asleep) that no waker has claimed yet. Each claim is paired with one
    // Release of _wake, so every registered sleeper consumes exactly one permit. Written only when workers go idle or
    // wake, but read by every enqueue: kept apart from the fields the hot path reads.
    private PaddedCounter _idle;

    // Workers spinning in search of work, and the processor a spinner last ran on. While one spins, an enqueue need
    // not wake a sleeper (a futex call): the spinner will find the item, or see it in its re-check before it parks.
    private SpinnerLine _spinning;
    private volatile bool _stopping;
    private int _terminated;

    // Counted on the rare path only (a yield follows at least a slice of running).
    private long _yieldedRuns;
    private int _disposed;

    /// <summary>Creates a scheduler with one worker per processor.</summary>
    public BocScheduler()
        : this(Environment.ProcessorCount)
    {
    }

    /// <summary>Creates a scheduler with <paramref name="workerCount"/> worker threads.</summary>
    /// <param name="workerCount">The number of worker threads; at least 1.</param>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="workerCount"/> is less than 1.</exception>
    public BocScheduler(int workerCount)
        : this(workerCount, stuckCheck: true)
    {
    }

    /// <summary>
    /// Creates a scheduler; <paramref name="stuckCheck"/> false turns off the parked workers' periodic wake-up, so a
    /// test of the wake-up protocol cannot be rescued by the poll.
    /// </summary>
    internal BocScheduler(int workerCount, bool stuckCheck)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(workerCount, 1);
        _stuckCheck = stuckCheck;
        _maxSpinning = Math.Max(1, workerCount / 2);
        _spinning.Processor = -1;
        _context = new BocSynchronizationContext(this);
        _workers = new Worker[workerCount];
        _queues = new RunQueue[workerCount];
        for (int i = 0; i < workerCount; i++)
        {
            _workers[i] = new Worker(this, i);
            _queues[i] = _workers[i].Queue;
        }

        BocMetrics.Schedulers.Add(this);

        // Started only once every worker exists: a worker looks at the others' queues from its first iteration.
        foreach (Worker worker in _workers)
        {
            worker.Thread.UnsafeStart(worker);
        }
    }

    /// <summary>Test hook: runs on a worker at each poll interval of a hold on a filling tail, before it waits.</summary>
    internal Action? FloodPollHook { get; set; }

#if DEBUG
    /// <summary>
    /// Debug builds only: called by a worker that has decided to take another's stuck next-slot item, just before it
    /// takes it (a test pauses the thief there to check that the owner then leaves the item alone).
    /// </summary>
    internal Action? ThiefDecidedHook { get; set; }

#endif
    /// <summary>Gets the number of worker threads.</summary>
    public int WorkerCount => _workers.Length;

    /// <inheritdoc/>
    public override int MaximumConcurrencyLevel => _workers.Length;

    /// <summary>Gets the worker threads (for tests that check they exit).</summary>
    internal IEnumerable<Thread> Threads => _workers.Select(w => w.Thread);

    /// <summary>Gets how many workers are parked or about to park (for tests of idle/burst cycles).</summary>
    internal int Sleepers => (int)Volatile.Read(ref _idle.Value);

    /// <summary>
    /// Gets whether some worker is spinning or parked for lack of work: a hint (racy by nature) that work made ready
    /// now would be taken by another core. Both counters sit on lines written only when workers go idle or wake.
    /// </summary>
    internal bool HasIdleWorker => Volatile.Read(ref _spinning.Count) + Volatile.Read(ref _idle.Value) > 0;

    /// <summary>Gets or sets the name of the runtime that owns this scheduler (its metrics' <c>boc.runtime</c> tag), or null.</summary>
    internal string? RuntimeName { get; set; }

    /// <summary>Gets how many items the workers have run (the per-worker clocks summed).</summary>
    internal long ItemsRun => _workers.Sum(w => Volatile.Read(ref w.Ticks));

    /// <summary>Gets the time the workers spent running items, in <see cref="Stopwatch"/> ticks, while it was measured.</summary>
    internal long BusyTimestampTicks => _workers.Sum(w => Volatile.Read(ref w.BusyTicks));

    /// <summary>Gets whether the calling thread is one of this scheduler's workers.</summary>
    internal bool IsWorkerThread => BocThread.CurrentOrNull?.Worker?.Scheduler == this;

    /// <summary>
    /// Drains queued work, stops the workers and waits for their threads to exit. Work queued afterwards runs on the
    /// .NET thread pool.
    /// </summary>
    /// <exception cref="InvalidOperationException">Called from one of this scheduler's workers (it would wait for itself).</exception>
    public void Dispose()
    {
        if (IsWorkerThread)
        {
            throw new InvalidOperationException("A BocScheduler cannot be disposed from one of its own workers.");
        }

        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        BocMetrics.Schedulers.Remove(this);
        _stopping = true;
        _wake.Release(_workers.Length);
        foreach (Worker worker in _workers)
        {
            worker.Thread.Join();
        }

        // Full fence, then drain: a thread that queued after the workers left either sees _terminated and drains
        // itself, or queued early enough for this drain to see it.
        Interlocked.Exchange(ref _terminated, 1);
        DrainToThreadPool();
    }

    /// <summary>
    /// Gets or sets how long, in milliseconds, a behaviour may run appended bodies on this scheduler's workers before it
    /// offers its worker to waiting work (<see cref="DefaultAppendedRunSliceMilliseconds"/>; measured on
    /// <see cref="Environment.TickCount64"/>, so in steps of its resolution). Settable for tests: 0 makes every check
    /// that finds other work waiting yield.
    /// </summary>
    internal int AppendedRunSliceMilliseconds { get; set; } = DefaultAppendedRunSliceMilliseconds;

    /// <summary>Gets how many times a run of appended bodies has yielded on this scheduler (for tests and probes).</summary>
    internal long YieldedRuns => Volatile.Read(ref _yieldedRuns);

    /// <inheritdoc/>
    void IDispatcher.Dispatch(Behaviour behaviour) => Dispatch(behaviour, BocThread.CurrentOrNull);

    /// <summary>
    /// <see cref="IDispatcher.Dispatch"/> for a caller that already holds the calling thread's <see cref="BocThread"/>
    /// (or null if it has none): a spawn or a release on a worker, which saves the thread-static lookup.
    /// </summary>
    internal void Dispatch(Behaviour behaviour, BocThread? thread)
    {
        Worker? worker = thread?.Worker;
        if (worker is not null && worker.Scheduler == this && !_stopping)
        {
            // Ready on this worker: run it next, here. Only the owner fills the slot; other threads only empty it
            // (TakeStuckWork, by Exchange). So a slot seen empty here stays empty until this store, and a release store
            // fills it without a locked instruction (a chain spawns once per item, so this is one atomic fewer per
            // item); it publishes the behaviour to whichever thread later takes it by Exchange.
            if (Volatile.Read(ref worker.Next) is null)
            {
                Volatile.Write(ref worker.Next, behaviour);
                return;
            }

            // A behaviour already waiting in the slot moves to the queue, where other workers can steal it, so wake one
            // if any sleeps. Exchange, not a plain store: an idle worker may be taking that item as stuck work.
            Behaviour? displaced = Interlocked.Exchange(ref worker.Next, behaviour);
            if (displaced is not null)
            {
                PushLocal(worker, displaced);
                WakeOne();
            }

            return;
        }

        EnqueueFromOutside(behaviour);
    }

    /// <summary>
    /// Called before every spawn. If the calling worker's next slot is already full, the item running now made a
    /// behaviour ready earlier and is still going (it spawns again): it is not about to finish, so the waiting
    /// behaviour moves to the worker's queue, where an idle worker can take it, and one is woken.
    /// </summary>
    /// <remarks>
    /// Without this, a long body that spawns a stream of messages (a producer, Savina's Sleeping Barber factory) holds
    /// the first one it made ready in its next slot until it ends, and every behaviour queued behind that one on the
    /// same cown waits with it; only a parked peer's stuck-work poll took it over, one interval later. A body that
    /// spawns once and returns (a message chain) never gets here with a full slot, so chains keep the slot and pay no
    /// wake-up. Nothing but the owner fills the slot, and the owner takes it (empty) before each item it runs, so a
    /// full slot here was filled by the running item.
    /// </remarks>
    /// <returns>The calling thread's index among this scheduler's workers, or -1 (see <see cref="WorkerIndexOf"/>).</returns>
    internal int OnSpawn(BocThread thread)
    {
        Worker? worker = thread.Worker;
        if (worker is null || worker.Scheduler != this)
        {
            return -1;
        }

        // Exchange: a parked peer may be taking the same item as stuck work.
        if (Volatile.Read(ref worker.Next) is not null && Interlocked.Exchange(ref worker.Next, null) is { } waiting)
        {
            PushLocal(worker, waiting);
            WakeOne();
        }

        return worker.Index;
    }

    /// <summary>
    /// Gets the index among this scheduler's workers (0 to <see cref="WorkerCount"/> - 1) of the thread that owns
    /// <paramref name="thread"/>, or -1 if it is not one of them (the runtime counts pending behaviours per worker:
    /// <c>PendingCount</c>).
    /// </summary>
    internal int WorkerIndexOf(BocThread? thread) => thread?.Worker is { } worker && worker.Scheduler == this ? worker.Index : -1;

    /// <inheritdoc/>
    protected override void QueueTask(Task task)
    {
        if ((task.CreationOptions & TaskCreationOptions.LongRunning) != 0)
        {
            // A long-running task would occupy a worker indefinitely; give it its own thread, as the default scheduler does.
            var thread = new Thread(static state =>
            {
                var (scheduler, longTask) = ((BocScheduler, Task))state!;
                scheduler.TryExecuteTask(longTask);
            })
            {
                IsBackground = true,
                Name = "Boc long-running task",
            };
            thread.Start((this, task));
            return;
        }

        Enqueue(task);
    }

    /// <inheritdoc/>
    protected override bool TryExecuteTaskInline(Task task, bool taskWasPreviouslyQueued)
    {
        // Inline only on our own workers (the task asked for this scheduler), and only tasks not already queued: a
        // queued task cannot be taken back out of a queue, and the contract leaves it to the queue.
        return !taskWasPreviouslyQueued && IsWorkerThread && TryExecuteTask(task);
    }

    /// <inheritdoc/>
    protected override IEnumerable<Task> GetScheduledTasks()
    {
        // A snapshot for debuggers. The inbox enumerates as a moment-in-time copy; the run queues are read without
        // taking anything, so a task taken meanwhile may still be listed. (Next slots hold behaviours only.)
        var tasks = new List<Task>();
        tasks.AddRange(_inbox.OfType<Task>());
        foreach (Worker worker in _workers)
        {
            tasks.AddRange(worker.Queue.Snapshot().OfType<Task>());
        }

        return tasks;
    }

    /// <summary>Queues a posted callback (from the workers' synchronization context).</summary>
    internal void Post(SendOrPostCallback callback, object? state) => Enqueue(new PostedCallback(callback, state));

    private void Enqueue(object item)
    {
        Worker? worker = BocThread.CurrentOrNull?.Worker;
        if (worker is not null && worker.Scheduler == this && !_stopping)
        {
            PushLocal(worker, item);
            WakeOne();
            return;
        }

        EnqueueFromOutside(item);
    }

    /// <summary>
    /// Queues the rest of a yielded run of appended bodies (<c>AppendableBehaviour.cs</c>, "Yielding") at the back of the inbox,
    /// and wakes a worker if one sleeps.
    /// </summary>
    /// <remarks>
    /// The inbox rather than the yielding worker's queue: the worker takes its own queue before the inbox, so the rest
    /// would be taken straight back ahead of outside work that has waited; at the back of the inbox it runs after
    /// everything already in the inbox, and the yielding worker takes work from its own queue meanwhile. Any worker may
    /// take it (the behaviour still holds its cowns, and a run of at least a slice is long enough not to miss its cache).
    /// </remarks>
    internal void EnqueueYielded(IThreadPoolWorkItem rest)
    {
        Interlocked.Increment(ref _yieldedRuns);
        _inbox.Enqueue(rest);
        WakeOne();
        if (Volatile.Read(ref _terminated) != 0)
        {
            DrainToThreadPool();
        }
    }

    private void EnqueueFromOutside(object item)
    {
        _inbox.Enqueue(item);
        WakeOne(fromOutside: true);
        if (Volatile.Read(ref _terminated) != 0)
        {
            DrainToThreadPool();
        }
    }

    /// <summary>Owner only: appends to the worker's queue; a full queue moves its older half to the inbox first.</summary>
    private void PushLocal(Worker worker, object item)
    {
        if (worker.Queue.TryPush(item))
        {
            return;
        }

        // Overflow (a body spawned more ready work than one queue holds): share the older half through the inbox,
        // where every worker can take it, then retry. The spill buffer is the worker's own, so this allocates nothing.
        object?[] spill = worker.Spill;
        int moved = worker.Queue.TakeOlderHalf(spill);
        for (int i = 0; i < moved; i++)
        {
            _inbox.Enqueue(spill[i]!);
            spill[i] = null;
        }

        if (!worker.Queue.TryPush(item))
        {
            _inbox.Enqueue(item);
        }
    }

    /// <summary>
    /// Wakes one parked worker, if any is registered as sleeping and none is spinning (or, for an enqueue from a thread
    /// that is not a worker, none is spinning on another processor).
    /// </summary>
    /// <remarks>
    /// <para>
    /// No lost wake-up. The item was queued before this call with an interlocked operation or a release store that
    /// this method's reads cannot pass (<see cref="Volatile.Read{T}(ref readonly T)"/> after an interlocked operation,
    /// or after the release store of a run queue's tail followed by the interlocked read below; on ARM64 the runtime
    /// emits full barriers for both). A worker going idle does, in order: interlocked increment of the spinning count
    /// (or of the sleeper count), then a look at every queue. So either the worker's look comes after our enqueue and
    /// finds the item, or its increment comes before our read here, and we see it spinning (it will look again before
    /// it parks) or registered as a sleeper (we release it). <see cref="Worker.Next"/> needs no wake-up: only its owner
    /// runs it, and the owner is awake (it is the thread that filled it).
    /// </para>
    /// <para>
    /// A spinner on the waker's own processor (<paramref name="fromOutside"/>). A spinner yields its core between looks
    /// (SpinWait), so when the kernel has put it on the same processor as a running thread, it runs again only when
    /// that thread blocks or its time slice ends, while the other processor may sit idle. An outside producer runs
    /// into this: the last behaviour of its previous batch woke it, and the kernel placed it on the spinner's
    /// processor. Measured on 2 vCPUs with an outside thread spawning 1,024 behaviours onto idle cowns and waiting for
    /// them (<c>eng/SpawnRunProbe.cs</c>): in a third of the batches the spinner found the first behaviour only when
    /// the producer had spawned them all and blocked, a median of 59 µs later (0.4 µs when it ran elsewhere). So an
    /// outside enqueue that finds the spinner last seen on its own processor wakes a sleeper, which the kernel places
    /// on an idle processor. Only outside enqueues check: one more processor-id read per spawn on a worker's hot path
    /// was not worth it without a measured case. The processor ids are hints (a thread may move at any time; .NET
    /// caches the id for a few calls), so a wrong guess costs one needless wake-up, or the old wait.
    /// </para>
    /// </remarks>
    /// <param name="fromOutside">The caller is a thread that is not one of this scheduler's workers.</param>
    private void WakeOne(bool fromOutside = false)
    {
        // Full fence: orders the caller's enqueue (a release store of a queue's tail, on the local path) before the
        // reads below, so the store-load pair with a parking worker cannot be reordered.
        Interlocked.MemoryBarrier();
        if (Volatile.Read(ref _spinning.Count) > 0
            && !(fromOutside && ShareProcessor(Volatile.Read(ref _spinning.Processor), Thread.GetCurrentProcessorId())))
        {
            return;
        }

        long sleepers = Volatile.Read(ref _idle.Value);
        while (sleepers > 0)
        {
            long seen = Interlocked.CompareExchange(ref _idle.Value, sleepers - 1, sleepers);
            if (seen == sleepers)
            {
                _wake.Release();
                return;
            }

            sleepers = seen;
        }
    }

    private void DrainToThreadPool()
    {
        while (_inbox.TryDequeue(out object? item))
        {
            RunOnThreadPool(item);
        }

        foreach (Worker worker in _workers)
        {
            while (worker.Queue.TryTake() is { } item)
            {
                RunOnThreadPool(item);
            }

            if (Interlocked.Exchange(ref worker.Next, null) is { } next)
            {
                RunOnThreadPool(next);
            }
        }
    }

    private void RunOnThreadPool(object item) =>
        ThreadPool.UnsafeQueueUserWorkItem(static s => s.Scheduler.Execute(s.Item, BocThread.Current), (Scheduler: this, Item: item), preferLocal: false);

    /// <summary>Runs an item; <paramref name="behaviour"/> says it is known to be a behaviour (it came from the next slot).</summary>
    private void Execute(object item, bool behaviour, BocThread thread)
    {
        if (behaviour)
        {
            // The next slot holds behaviours only (Dispatch fills it): no type test.
            Unsafe.As<Behaviour>(item).Run(thread);
            return;
        }

        Execute(item, thread);
    }

    private void Execute(object item, BocThread thread)
    {
        switch (item)
        {
            case Behaviour behaviour:
                behaviour.Run(thread);
                break;
            case Task task:
                TryExecuteTask(task);
                break;
            default:
                Unsafe.As<IThreadPoolWorkItem>(item).Execute();
                break;
        }
    }

    private void WorkerLoop(Worker self)
    {
        // This thread's object, looked up once: every behaviour run here gets it (BocThread says why).
        BocThread thread = BocThread.Current;
        thread.Worker = self;
        SynchronizationContext.SetSynchronizationContext(_context);

        // The thread was started with UnsafeStart: this is the default (empty) context, which every item starts from.
        ExecutionContext? defaultContext = ExecutionContext.Capture();
        while (true)
        {
            object? item = NextItem(self, out bool fromNextSlot);
            if (item is null)
            {
                if (!WaitForWork(self))
                {
                    return;
                }

                continue;
            }

            // Inside a body from here until the next NextItem: only now may a thief take what the body puts in the next
            // slot. A release store: a thief that sees it also sees this worker's take of the slot (NextItem).
            Volatile.Write(ref self.InBody, 1);
            if (BocMetrics.BusyTime.Enabled)
            {
                // Measured only while a listener wants it: two timestamps per item.
                long start = Stopwatch.GetTimestamp();
                Execute(item, fromNextSlot, thread);
                Volatile.Write(ref self.BusyTicks, self.BusyTicks + (Stopwatch.GetTimestamp() - start));
            }
            else
            {
                Execute(item, fromNextSlot, thread);
            }

            // An item may have set AsyncLocals (or the culture, or Activity.Current) or replaced the synchronization
            // context; the next, unrelated item must not see them. Both checks are reference compares when nothing
            // changed, which is the common case.
            if (!ReferenceEquals(ExecutionContext.Capture(), defaultContext))
            {
                ExecutionContext.Restore(defaultContext!);
            }

            if (!ReferenceEquals(SynchronizationContext.Current, _context))
            {
                SynchronizationContext.SetSynchronizationContext(_context);
            }

            // Read by idle workers looking for a blocked one; the owner is the only writer.
            Volatile.Write(ref self.Ticks, self.Ticks + 1);
        }
    }

    /// <summary>
    /// The item this worker runs next, or null if it found none anywhere; <paramref name="fromNextSlot"/> says it is the
    /// behaviour of the next slot.
    /// </summary>
    private object? NextItem(Worker self, out bool fromNextSlot)
    {
        object? item;
        fromNextSlot = false;

        // Out of the body: a thief now leaves the next slot alone (TakeNext's pair with TakeStuckWork).
        Volatile.Write(ref self.InBody, 0);

        // Fairness for outside work: however the worker is kept busy (a chain in its next slot, a queue that refills
        // itself), every InboxCheckInterval-th item comes from the inbox if the inbox has any.
        if (self.Ticks % InboxCheckInterval == 0 && !_inbox.IsEmpty && _inbox.TryDequeue(out item))
        {
            self.NextRuns = 0;
            return item;
        }

        if (TakeNext(self) is { } next)
        {
            if (self.NextRuns < NextSlotRunLimit)
            {
                self.NextRuns++;
                fromNextSlot = true;
                return next;
            }

            // Fairness for local work: after a long run from the slot, it queues behind the others (and may be stolen).
            // Only if there are others: behind an empty queue it would be taken straight back, and the wake-up would
            // only cost a futex call and send a peer to steal a chain onto a cold core (every 100 hops of a message
            // chain such as Thread Ring). The count stays at the limit, so the first item queued here later is not
            // made to wait for another full run.
            if (self.Queue.IsEmpty)
            {
                fromNextSlot = true;
                return next;
            }

            PushLocal(self, next);
            WakeOne();
        }

        self.NextRuns = 0;
        return self.Queue.TryTake() ?? TakeFromInbox(self) ?? Steal(self);
    }

    /// <summary>
    /// The owner's take of its next slot between items, after NextItem cleared <see cref="Worker.InBody"/>: a plain read and
    /// write unless a thief is at work (the file comment, "The owner's plain take", has the argument).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Behaviour? TakeNext(Worker self)
    {
        // After the store of InBody: the store-then-load pair whose fence the thief's process-wide barrier provides.
        if (Volatile.Read(ref self.Stealing) != 0)
        {
            return TakeNextBesideAThief(self);
        }

        // Read after the acquire read above, so a thief that finished before it left the slot empty here. No thief can
        // take the item now: one that starts sees InBody clear.
        Behaviour? next = Volatile.Read(ref self.Next);
        if (next is not null)
        {
            self.Next = null;
        }

        return next;
    }

    /// <summary>The rare take: a thief holds <see cref="Worker.Stealing"/>; it finishes in a few steps without waiting for us.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static Behaviour? TakeNextBesideAThief(Worker self)
    {
        var spin = default(SpinWait);
        while (Volatile.Read(ref self.Stealing) != 0)
        {
            spin.SpinOnce(sleep1Threshold: -1);
        }

        // It may have taken the item (by Exchange, as here); a later thief sees InBody clear and takes nothing.
        return Interlocked.Exchange(ref self.Next, null);
    }

    /// <summary>Takes one inbox item to run now and moves a batch more to the worker's (empty) queue.</summary>
    private object? TakeFromInbox(Worker self)
    {
        if (_inbox.IsEmpty || !_inbox.TryDequeue(out object? run))
        {
            return null;
        }

        // A batch, so that a flood from a producer thread does not cost every worker an inbox dequeue per item; the
        // share is bounded so the other workers still find some (and can steal from our queue).
        int batch = Math.Min(InboxBatch, (_inbox.Count / _workers.Length) + 1);
        for (int i = 0; i < batch && _inbox.TryDequeue(out object? more); i++)
        {
            if (!self.Queue.TryPush(more))
            {
                _inbox.Enqueue(more);
                break;
            }
        }

        if (!self.Queue.IsEmpty)
        {
            // Others may be parked while we hold a batch they could share.
            WakeOne();
        }

        return run;
    }

    /// <summary>Steals half of another worker's queue, trying each once, starting after this one.</summary>
    private object? Steal(Worker self)
    {
        RunQueue[] queues = _queues;
        for (int i = 1; i < queues.Length; i++)
        {
            RunQueue victim = queues[(self.Index + i) % queues.Length];
            if (victim.StealHalfInto(self.Queue) is { } item)
            {
                return item;
            }
        }

        return null;
    }

    /// <summary>
    /// Whether anything other than <paramref name="self"/>'s current item is waiting to run in this scheduler: its next
    /// slot, any worker's queue, or the inbox. A hint, read without fences: it ends a runner's hold on a filling tail
    /// (<c>Behaviour.Appending.cs</c>, "Holding a filling tail") as soon as some core could be given other work, and a wrong
    /// answer costs only one poll interval of that hold, or the hold.
    /// </summary>
    internal bool HasOtherWork(Worker self) => Volatile.Read(ref self.Next) is not null || HasQueuedWork();

    private bool HasQueuedWork()
    {
        if (!_inbox.IsEmpty)
        {
            return true;
        }

        foreach (RunQueue queue in _queues)
        {
            if (!queue.IsEmpty)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Spins (if few others do), then parks. Returns false when stopping and no work is left.</summary>
    private bool WaitForWork(Worker self)
    {
        self.NextRuns = 0;

        // At most half the workers spin at once: on a machine with few cores, spinners would otherwise take the very
        // cores that a producer thread needs to make the work they wait for.
        long spinners = Volatile.Read(ref _spinning.Count);
        if (spinners < _maxSpinning && Interlocked.CompareExchange(ref _spinning.Count, spinners + 1, spinners) == spinners)
        {
            var spin = default(SpinWait);
            for (int i = 0; i < SpinIterations; i++)
            {
                // Where this spinner runs now, for WakeOne (a hint; written only when it changes, since every outside
                // enqueue reads this line).
                int processor = Thread.GetCurrentProcessorId();
                if (processor != _spinning.Processor)
                {
                    Volatile.Write(ref _spinning.Processor, processor);
                }

                if (HasQueuedWork())
                {
                    // The last spinner to find work wakes a sleeper, if any, to take over the spinning: enqueues made
                    // while we spun woke nobody, and could otherwise leave a backlog to this one worker.
                    if (Interlocked.Decrement(ref _spinning.Count) == 0)
                    {
                        WakeOne();
                    }

                    return true;
                }

                // SpinWait yields the core (rather than only pausing) after its first few iterations.
                spin.SpinOnce(sleep1Threshold: -1);
            }

            Interlocked.Decrement(ref _spinning.Count);
        }

        if (_stopping)
        {
            return HasQueuedWork();
        }

        // Register, then re-check (see WakeOne for why this order loses no wake-up).
        Interlocked.Increment(ref _idle.Value);
        if (HasQueuedWork() || _stopping)
        {
            CancelSleep();
            return true;
        }

        if (!_stuckCheck)
        {
            _wake.Wait();
            return true;
        }

        // Remember how far the others had got, so that after one interval a worker that ran nothing is known blocked.
        foreach (Worker other in _workers)
        {
            self.LastSeenTicks[other.Index] = Volatile.Read(ref other.Ticks);
        }

        if (!_wake.Wait(StuckCheckInterval))
        {
            CancelSleep();
            TakeStuckWork(self);
        }

        return true;
    }

    /// <summary>Withdraws a sleeper registration; if a waker already claimed it, consumes the permit it released.</summary>
    private void CancelSleep()
    {
        long sleepers = Volatile.Read(ref _idle.Value);
        while (sleepers > 0)
        {
            long seen = Interlocked.CompareExchange(ref _idle.Value, sleepers - 1, sleepers);
            if (seen == sleepers)
            {
                return;
            }

            sleepers = seen;
        }

        _wake.Wait();
    }

    /// <summary>
    /// Moves work out of the next slot of any worker that has run nothing since this worker parked: its body is
    /// blocked (or very long), and the slot would otherwise wait for it.
    /// </summary>
    private void TakeStuckWork(Worker self)
    {
        foreach (Worker other in _workers)
        {
            if (other == self)
            {
                continue;
            }

            long seen = self.LastSeenTicks[other.Index];
            if (seen != Volatile.Read(ref other.Ticks) || Volatile.Read(ref other.Next) is null
                || Interlocked.CompareExchange(ref other.Stealing, 1, 0) != 0)
            {
                continue;
            }

            // The thief's side of the owner's plain take (the file comment, "The owner's plain take"): Stealing is set;
            // the barrier makes the owner's InBody store and Stealing load behave as if fenced; then InBody decides.
            // Still inside the same item (Ticks unchanged), the owner takes only by Exchange, as this does.
            Interlocked.MemoryBarrierProcessWide();
            Behaviour? stuck = null;
            if (Volatile.Read(ref other.InBody) != 0 && Volatile.Read(ref other.Ticks) == seen)
            {
#if DEBUG
                ThiefDecidedHook?.Invoke();
#endif
                stuck = Interlocked.Exchange(ref other.Next, null);
            }

            Volatile.Write(ref other.Stealing, 0);
            if (stuck is not null)
            {
                PushLocal(self, stuck);
            }
        }
    }

    /// <summary>
    /// Whether a spinner last seen on <paramref name="spinnerProcessor"/> shares the processor of a thread now on
    /// <paramref name="processor"/>, so that it cannot look for the thread's work while the thread runs (WakeOne).
    /// -1 means no spinner has recorded a processor yet.
    /// </summary>
    internal static bool ShareProcessor(int spinnerProcessor, int processor) => spinnerProcessor >= 0 && spinnerProcessor == processor;

    internal sealed class Worker
    {
        public Worker(BocScheduler scheduler, int index)
        {
            Scheduler = scheduler;
            Index = index;
            LastSeenTicks = new long[scheduler._workers.Length];
            Thread = new Thread(static w => ((Worker)w!).Scheduler.WorkerLoop((Worker)w!))
            {
                IsBackground = true,
                Name = $"Boc worker {index}",
            };
        }

        public BocScheduler Scheduler { get; }

        public int Index { get; }

        public Thread Thread { get; }

        public RunQueue Queue { get; } = new();

        /// <summary>Buffer for moving half a full queue to the inbox (owner only).</summary>
        public object?[] Spill { get; } = new object?[RunQueue.Capacity / 2];

        public long[] LastSeenTicks { get; }

        /// <summary>The behaviour to run next on this worker; taken by the owner, or by an idle worker if stuck.</summary>
        public Behaviour? Next;

        /// <summary>1 while the owner runs an item (set before it, cleared in NextItem): only then may a thief take <see cref="Next"/>.</summary>
        public int InBody;

        /// <summary>1 while a thief decides whether to take <see cref="Next"/> (TakeStuckWork; one thief at a time).</summary>
        public int Stealing;

        /// <summary>Items run by this worker: the inbox-check clock, and read by idle workers to spot a blocked body.</summary>
        public long Ticks;

        /// <summary>Time spent running items while <c>boc.scheduler.busy_time</c> is enabled (Stopwatch ticks; owner writes).</summary>
        public long BusyTicks;

        /// <summary>Consecutive runs from <see cref="Next"/>.</summary>
        public int NextRuns;
    }

    /// <summary>
    /// The spinning count and the processor a spinner last ran on, on one cache line of their own: both are written by
    /// spinners and read by every enqueue.
    /// </summary>
    [StructLayout(LayoutKind.Explicit, Size = 192)]
    private struct SpinnerLine
    {
        /// <summary>Workers spinning in search of work.</summary>
        [FieldOffset(64)]
        public long Count;

        /// <summary>The processor id a spinner last ran on (Thread.GetCurrentProcessorId), or -1.</summary>
        [FieldOffset(72)]
        public int Processor;
    }

    private sealed class PostedCallback(SendOrPostCallback callback, object? state) : IThreadPoolWorkItem
    {
        public void Execute() => callback(state);
    }

    /// <summary>Posts <c>await</c> continuations on worker threads back to the scheduler.</summary>
    private sealed class BocSynchronizationContext(BocScheduler scheduler) : SynchronizationContext
    {
        public override void Post(SendOrPostCallback d, object? state)
        {
            ArgumentNullException.ThrowIfNull(d);
            scheduler.Post(d, state);
        }

        public override SynchronizationContext CreateCopy() => this;
    }
}
