using System.Collections.Concurrent;
using System.Runtime.CompilerServices;
using Boc.Dispatch;

namespace Boc;

/// <summary>
/// A <see cref="TaskScheduler"/> with a fixed set of worker threads, built to run BoC behaviours: per-worker
/// work-stealing queues, a global inbox for work from other threads, and a per-worker "next" slot so that a behaviour
/// made ready on a worker runs next on that worker, cache-warm.
/// </summary>
/// <remarks>
/// <para>
/// Behaviours are not <see cref="Task"/>s: a <see cref="BocRuntime"/> created with
/// <see cref="BocDispatcher.BocScheduler"/> hands them to the workers directly. The same workers also run
/// <see cref="Task"/>s queued to this scheduler (for example with <c>Task.Factory.StartNew(…, scheduler)</c>), and
/// continuations of <c>await</c>s inside behaviour bodies: each worker thread carries a
/// <see cref="SynchronizationContext"/> that posts back to this scheduler.
/// </para>
/// <para>
/// Batching: when a behaviour becomes ready on a worker (because the worker's current behaviour released a cown it
/// waited for, or spawned it), it goes into that worker's next slot and runs as soon as the current one finishes. After
/// <see cref="NextSlotRunLimit"/> such runs in a row the worker takes from its queue instead, so nothing starves.
/// </para>
/// <para>
/// Idle workers spin briefly, then park. Work queued while workers sleep wakes one (a sleeper count and a semaphore,
/// updated so that a queueing thread and a worker going to sleep cannot miss each other). Parked workers also wake
/// every <see cref="StuckCheckInterval"/> to take work held in the next slot of a worker whose body has blocked; a body
/// that blocks on work it spawned therefore stalls only for that long, but do not block in bodies: with all workers
/// blocked nothing can run.
/// </para>
/// <para>
/// <see cref="Dispose"/> lets the workers drain every queued item, then stops them and waits for their threads to
/// exit. Work queued after that runs on the .NET thread pool, so nothing queued is lost.
/// </para>
/// </remarks>
public sealed class BocScheduler : TaskScheduler, IDispatcher, IDisposable
{
    /// <summary>How many behaviours a worker runs from its next slot in a row before it goes back to its queue.</summary>
    public const int NextSlotRunLimit = 100;

    /// <summary>How often parked workers look for work stuck in the next slot of a blocked worker.</summary>
    public static readonly TimeSpan StuckCheckInterval = TimeSpan.FromMilliseconds(50);

    private const int SpinIterations = 64;
    private const int InboxCheckPeriod = 61;

    [ThreadStatic]
    private static Worker? t_worker;

    private readonly Worker[] _workers;
    private readonly ConcurrentQueue<object> _inbox = new();
    private readonly SemaphoreSlim _wake = new(0);
    private readonly BocSynchronizationContext _context;

    // Workers registered as going to sleep (or asleep) that no waker has claimed yet. Each claim is paired with one
    // Release of _wake, so every registered sleeper consumes exactly one permit. Written only when workers go idle or
    // wake, but read by every enqueue: kept apart from the fields the hot path reads.
    private PaddedCounter _idle;

    // Workers spinning in search of work. While one spins, an enqueue need not wake a sleeper (a futex call): the
    // spinner will find the item, or see it in its re-check before it parks.
    private PaddedCounter _spinning;
    private volatile bool _stopping;
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
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(workerCount, 1);
        _context = new BocSynchronizationContext(this);
        _workers = new Worker[workerCount];
        for (int i = 0; i < workerCount; i++)
        {
            _workers[i] = new Worker(this, i);
        }

        // Started only once every worker exists: a worker looks at the others' queues from its first iteration.
        foreach (Worker worker in _workers)
        {
            worker.Thread.UnsafeStart(worker);
        }
    }

    /// <summary>Gets the number of worker threads.</summary>
    public int WorkerCount => _workers.Length;

    /// <inheritdoc/>
    public override int MaximumConcurrencyLevel => _workers.Length;

    /// <summary>Gets the worker threads (for tests that check they exit).</summary>
    internal IEnumerable<Thread> Threads => _workers.Select(w => w.Thread);

    /// <summary>Gets how many workers are parked or about to park (for tests of idle/burst cycles).</summary>
    internal int Sleepers => (int)Volatile.Read(ref _idle.Value);

    /// <summary>Gets whether the calling thread is one of this scheduler's workers.</summary>
    internal bool IsWorkerThread => t_worker?.Scheduler == this;

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

    /// <inheritdoc/>
    void IDispatcher.Dispatch(Behaviour behaviour)
    {
        Worker? worker = t_worker;
        if (worker is not null && worker.Scheduler == this && !_stopping)
        {
            // Ready on this worker: run it next, here. A behaviour already waiting in the slot moves to the queue,
            // where other workers can steal it, so wake one if any sleeps.
            object? displaced = Interlocked.Exchange(ref worker.Next, behaviour);
            if (displaced is not null)
            {
                worker.Queue.Enqueue(displaced);
                WakeOne();
            }

            return;
        }

        Enqueue(behaviour);
    }

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
        // queued task cannot be taken back out of a ConcurrentQueue, and the contract leaves it to the queue.
        return !taskWasPreviouslyQueued && IsWorkerThread && TryExecuteTask(task);
    }

    /// <inheritdoc/>
    protected override IEnumerable<Task> GetScheduledTasks()
    {
        // A snapshot for debuggers: ConcurrentQueue enumeration is a moment-in-time copy.
        var tasks = new List<Task>();
        tasks.AddRange(_inbox.OfType<Task>());
        foreach (Worker worker in _workers)
        {
            tasks.AddRange(worker.Queue.OfType<Task>());
        }

        return tasks;
    }

    /// <summary>Queues a posted callback (from the workers' synchronization context).</summary>
    internal void Post(SendOrPostCallback callback, object? state) => Enqueue(new PostedCallback(callback, state));

    private void Enqueue(object item)
    {
        Worker? worker = t_worker;
        if (worker is not null && worker.Scheduler == this)
        {
            worker.Queue.Enqueue(item);
        }
        else
        {
            _inbox.Enqueue(item);
        }

        WakeOne();
        if (Volatile.Read(ref _terminated) != 0)
        {
            DrainToThreadPool();
        }
    }

    /// <summary>Wakes one parked worker, if any is registered as sleeping.</summary>
    private void WakeOne()
    {
        // The Enqueue before this call is a full fence (ConcurrentQueue uses interlocked operations), and a worker
        // stops spinning and registers as a sleeper with interlocked operations before re-checking the queues: so
        // either we see it spinning or registered here, or it sees our item in its re-check. No wake-up is lost.
        if (Volatile.Read(ref _spinning.Value) > 0)
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
            while (worker.Queue.TryDequeue(out object? item))
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
        ThreadPool.UnsafeQueueUserWorkItem(static s => s.Scheduler.Execute(s.Item), (Scheduler: this, Item: item), preferLocal: false);

    private void Execute(object item)
    {
        switch (item)
        {
            case Behaviour behaviour:
                behaviour.Run();
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
        t_worker = self;
        SynchronizationContext.SetSynchronizationContext(_context);
        while (true)
        {
            object? item = self.TakeNext() ?? Find(self);
            if (item is null)
            {
                if (!WaitForWork(self))
                {
                    return;
                }

                continue;
            }

            Execute(item);
            Volatile.Write(ref self.Progress, self.Progress + 1);
        }
    }

    /// <summary>Own queue, then the inbox, then steal from the other workers' queues.</summary>
    private object? Find(Worker self)
    {
        // Every InboxCheckPeriod-th look starts at the inbox, so a worker kept busy by its own queue (a long chain
        // that keeps re-queueing itself) still picks up work from other threads.
        object? item;
        if (++self.Finds % InboxCheckPeriod == 0 && _inbox.TryDequeue(out item))
        {
            self.NextRuns = 0;
            return item;
        }

        if (self.Queue.TryDequeue(out item) || _inbox.TryDequeue(out item))
        {
            self.NextRuns = 0;
            return item;
        }

        Worker[] workers = _workers;
        for (int i = 1; i < workers.Length; i++)
        {
            Worker victim = workers[(self.Index + i) % workers.Length];
            if (victim.Queue.TryDequeue(out item))
            {
                self.NextRuns = 0;
                return item;
            }
        }

        return null;
    }

    private bool HasQueuedWork()
    {
        if (!_inbox.IsEmpty)
        {
            return true;
        }

        foreach (Worker worker in _workers)
        {
            if (!worker.Queue.IsEmpty)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Spins, then parks. Returns false when the scheduler is stopping and no work is left.</summary>
    private bool WaitForWork(Worker self)
    {
        var spin = default(SpinWait);
        Interlocked.Increment(ref _spinning.Value);
        for (int i = 0; i < SpinIterations; i++)
        {
            if (HasQueuedWork())
            {
                // The last spinner to find work wakes a sleeper, if any, to take over the spinning: otherwise enqueues
                // made while we spun (which woke nobody) could leave a backlog to this one worker.
                if (Interlocked.Decrement(ref _spinning.Value) == 0)
                {
                    WakeOne();
                }

                return true;
            }

            spin.SpinOnce(sleep1Threshold: -1);
        }

        Interlocked.Decrement(ref _spinning.Value);

        self.NextRuns = 0;
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
    /// Moves work out of the next slot of any worker that has made no progress since this worker last looked: its
    /// body is blocked, and the slot would otherwise wait for it.
    /// </summary>
    private void TakeStuckWork(Worker self)
    {
        foreach (Worker other in _workers)
        {
            if (other == self)
            {
                continue;
            }

            long progress = Volatile.Read(ref other.Progress);
            if (self.LastSeenProgress[other.Index] == progress && Volatile.Read(ref other.Next) is not null
                && Interlocked.Exchange(ref other.Next, null) is { } stuck)
            {
                self.Queue.Enqueue(stuck);
            }

            self.LastSeenProgress[other.Index] = progress;
        }
    }

    private sealed class Worker
    {
        public Worker(BocScheduler scheduler, int index)
        {
            Scheduler = scheduler;
            Index = index;
            LastSeenProgress = new long[scheduler._workers.Length];
            Array.Fill(LastSeenProgress, -1);
            Thread = new Thread(static w => ((Worker)w!).Scheduler.WorkerLoop((Worker)w!))
            {
                IsBackground = true,
                Name = $"Boc worker {index}",
            };
        }

        public BocScheduler Scheduler { get; }

        public int Index { get; }

        public Thread Thread { get; }

        public ConcurrentQueue<object> Queue { get; } = new();

        public long[] LastSeenProgress { get; }

        /// <summary>The behaviour to run next on this worker; taken by the owner, or by an idle worker if stuck.</summary>
        public object? Next;

        /// <summary>Items executed by this worker; read by idle workers to spot a blocked body.</summary>
        public long Progress;

        /// <summary>Consecutive runs from <see cref="Next"/>.</summary>
        public int NextRuns;

        /// <summary>Calls to <see cref="Find"/>, for the periodic inbox check.</summary>
        public int Finds;

        public object? TakeNext()
        {
            if (Volatile.Read(ref Next) is null)
            {
                return null;
            }

            object? item = Interlocked.Exchange(ref Next, null);
            if (item is null)
            {
                return null;
            }

            if (++NextRuns <= NextSlotRunLimit)
            {
                return item;
            }

            // Fairness: after a long batch, the slot's behaviour queues behind the others (and may be stolen).
            NextRuns = 0;
            Queue.Enqueue(item);
            Scheduler.WakeOne();
            return null;
        }
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
