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
// decides when a behaviour is ready, is in Protocol/; the scheduler only runs ready work.) The parts, each with its
// own argument: BocScheduler.NextSlot.cs (the next slot and its exactly-once take), BocScheduler.Worker.cs (the worker
// loop and its latency bounds), BocScheduler.Parking.cs (spinning and parking without a lost wake-up), RunQueue.cs (the
// per-worker ring). The overview is docs/internals/scheduler.md.
//
// Where an item can be, and who may take it from there:
//   * Worker.Next - the next slot (BocScheduler.NextSlot.cs).
//   * Worker.Queue - a bounded ring (Scheduling/RunQueue.cs). Pushed only by its owner; taken by anyone by CAS on its
//     head, one item (TryTake) or half the queue at once (StealHalfInto, into the thief's own empty queue). Its
//     argument (why a consumer may read a slot before claiming it, and the release/acquire pairs) is in that file.
//   * _inbox - a ConcurrentQueue for work from threads that are not workers of this scheduler, and for a full ring's
//     overflow (PushLocal moves the older half there). Linearizable on its own.
// An item moves only by being taken (an atomic claim) and then put somewhere by the taker, so it is in exactly one
// place or running, never in two.
//
// Memory ordering, x64 and ARM64. Nothing here relies on x64's strong (TSO) ordering. Every hand-over between threads
// is an interlocked operation (full fence on both), a Volatile.Write paired with a Volatile.Read (emitted as stlr/ldar
// on ARM64), or goes through ConcurrentQueue/SemaphoreSlim, which order themselves. The one store-then-load order the
// wake-up needs (publish the item, then read the sleeper count) is the one that even x64 may reorder, so it has an
// explicit Interlocked.MemoryBarrier. The next slot's take between items needs no fence on the owner's side: the thief's
// process-wide barrier stands in for it (BocScheduler.NextSlot.cs), on ARM64 as on x64. Plain fields are owner-only (NextRunFrom, InboxDue,
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
/// inbox is not empty (with a batch more, if the worker's queue is empty), so work queued from outside the workers (a
/// request handler, a timer, an <c>await</c> continuation completing on another thread) waits behind at most that many
/// items per worker for each item ahead of it in the inbox, however busy the workers are.
/// One item can be a flood's batch of up to 32 bodies of one behaviour. Such a behaviour hands its worker over between
/// two bodies once it has run for about a tenth of a millisecond while work waits in the inbox, or about ten
/// milliseconds while other work waits: the rest of its bodies run later, still before anything else on its cowns.
/// </para>
/// <para>
/// Every work item starts with the worker's default <see cref="ExecutionContext"/> and this scheduler's
/// <see cref="SynchronizationContext"/>: <c>AsyncLocal</c> values, the culture, or <c>Activity.Current</c> set by one
/// item are not seen by the next, as on the .NET thread pool.
/// </para>
/// <para>
/// Idle workers spin briefly (at most half of them at a time, so that spinning never takes the cores a producer
/// thread needs), then park. Work queued while workers sleep wakes one, by a protocol that loses no wake-up
/// (its numbered steps are in src/Boc/Scheduling/IdleWorkers.cs). Parked workers also wake every
/// <see cref="StuckCheckInterval"/> to take work held in the next slot of a worker that has run nothing since they
/// parked (its body blocks): do not block in bodies, but if one does, the work it holds back moves to another worker
/// within about one interval. With every worker blocked nothing can run.
/// </para>
/// <para>
/// <see cref="Dispose"/> lets the workers drain every queued item, then stops them and waits for their threads to
/// exit. Work queued after that runs on the .NET thread pool, so nothing queued is lost.
/// </para>
/// </remarks>
public sealed partial class BocScheduler : TaskScheduler, IDispatcher, IDisposable
{
    /// <summary>
    /// How many bodies a worker runs from its next slot in a row (a behaviour's body and each body appended to it)
    /// before the slot's behaviour goes to the back of its queue (if the queue holds work; with nothing queued there is
    /// nobody to be fair to, and the chain keeps the slot).
    /// </summary>
    public const int NextSlotRunLimit = 100;

    /// <summary>
    /// Every this many bodies a worker runs (a behaviour's body, and each body appended to it), it takes its next item
    /// from the inbox of work queued from other threads, if there is any: the bound on how long outside work can wait
    /// behind busy workers.
    /// </summary>
    public const int InboxCheckInterval = 61;

    /// <summary>How often parked workers look for work stuck in the next slot of a blocked worker.</summary>
    public static readonly TimeSpan StuckCheckInterval = TimeSpan.FromMilliseconds(50);

    // A worker that finds its queue empty moves up to this many items from the inbox to its queue at once.
    private const int InboxBatch = 32;

    // How many looks an idle worker takes before it parks (a few in model builds, so the explored runs reach parking).
#if BOC_MODEL
    private const int SpinIterations = 2;
#else
    private const int SpinIterations = 50;
#endif

    private readonly Worker[] _workers;

    // The workers' run queues, apart from the Worker objects: an idle worker polls every queue while it spins, and
    // reading a queue through its Worker would share a cache line with the fields its owner writes on every item.
    private readonly RunQueue[] _queues;
    private readonly ConcurrentQueue<object> _inbox = new();
    private readonly BocSynchronizationContext _context;
    private readonly bool _stuckCheck;

    // The idle workers: who spins, who sleeps, and the semaphore they park on (Scheduling/IdleWorkers.cs). A struct
    // inside the scheduler, so an enqueue reads its lines as the scheduler's own fields.
    private IdleWorkers _idle;
    private bool _stopping;
    private int _terminated;

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
        : this(workerCount, stuckCheck, startWorkers: true)
    {
    }

    /// <summary>
    /// Creates a scheduler whose worker threads are started only if <paramref name="startWorkers"/>: a model test
    /// (tests/Boc.ModelTests) runs the workers' steps on threads of its own instead.
    /// </summary>
    internal BocScheduler(int workerCount, bool stuckCheck, bool startWorkers)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(workerCount, 1);
        _stuckCheck = stuckCheck;
        _idle = new IdleWorkers(workerCount);
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
        if (startWorkers)
        {
            foreach (Worker worker in _workers)
            {
                worker.Thread.UnsafeStart(worker);
            }
        }
    }

    /// <summary>How runs of appended bodies (a flood's batches) use this scheduler's workers: owned by the appending code.</summary>
    internal FloodPolicy Floods { get; } = new();

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
    internal int Sleepers => _idle.Sleepers;

    /// <summary>
    /// Gets whether some worker is spinning or parked for lack of work: a hint (racy by nature) that work made ready
    /// now would be taken by another core. Both counters sit on lines written only when workers go idle or wake.
    /// </summary>
    internal bool HasIdleWorker => _idle.AnyIdle;

    /// <summary>Gets or sets the name of the runtime that owns this scheduler (its metrics' <c>boc.runtime</c> tag), or null.</summary>
    internal string? RuntimeName { get; set; }

    /// <summary>Gets how many items the workers have run (the per-worker clocks summed).</summary>
    internal long ItemsRun => _workers.Sum(w => Atomic.Read(ref w.Ticks));

    /// <summary>Gets the time the workers spent running items, in <see cref="Stopwatch"/> ticks, while it was measured.</summary>
    internal long BusyTimestampTicks => _workers.Sum(w => Atomic.Read(ref w.BusyTicks));

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

        if (Atomic.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        BocMetrics.Schedulers.Remove(this);
        Atomic.Write(ref _stopping, true);
        _idle.ReleaseAll(_workers.Length);
        foreach (Worker worker in _workers)
        {
            worker.Thread.Join();
        }

        // Full fence, then drain: a thread that queued after the workers left either sees _terminated and drains
        // itself, or queued early enough for this drain to see it.
        Atomic.Exchange(ref _terminated, 1);
        DrainToThreadPool();
    }

    /// <inheritdoc/>
    void IDispatcher.Dispatch(Behaviour behaviour) => Dispatch(behaviour, BocThread.CurrentOrNull);

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

    /// <summary>
    /// The context every worker runs its items under: an <c>await</c> in a body posts its continuation back here. An
    /// inline run (Behaviour.Inline.cs) installs it for its body too, so that body's awaits also resume on the workers.
    /// </summary>
    internal SynchronizationContext Context => _context;

    private void Enqueue(object item)
    {
        Worker? worker = BocThread.CurrentOrNull?.Worker;
        if (worker is not null && worker.Scheduler == this && !Atomic.Read(ref _stopping))
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
        _inbox.Enqueue(rest);
        WakeOne();
        if (Atomic.Read(ref _terminated) != 0)
        {
            DrainToThreadPool();
        }
    }

    /// <summary>
    /// Queues the rest of a yielded run at the back of <paramref name="worker"/>'s own queue (the caller is that
    /// worker, inside the run), and wakes a worker if one sleeps: for a run that yielded to work waiting in that queue,
    /// while the inbox looked empty.
    /// </summary>
    /// <remarks>
    /// The rest still runs after everything queued there before it (the queue is first in, first out), which is the
    /// turn the yield owes; the owner takes it back after them unless a peer steals it. No drain check: the caller is
    /// a running worker, and the scheduler drains only after its workers have left.
    /// </remarks>
    internal void EnqueueYieldedLocal(Worker worker, IThreadPoolWorkItem rest)
    {
        PushLocal(worker, rest);
        WakeOne();
    }

    private void EnqueueFromOutside(object item)
    {
        _inbox.Enqueue(item);
        WakeOne(fromOutside: true);
        if (Atomic.Read(ref _terminated) != 0)
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

            if (Atomic.Exchange(ref worker.Next, null) is { } next)
            {
                RunOnThreadPool(next);
            }
        }
    }

    private void RunOnThreadPool(object item) =>
        ThreadPool.UnsafeQueueUserWorkItem(static s => s.Scheduler.Execute(s.Item, BocThread.Current), (Scheduler: this, Item: item), preferLocal: false);

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
