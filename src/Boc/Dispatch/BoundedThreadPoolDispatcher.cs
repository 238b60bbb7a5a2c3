using System.Collections.Concurrent;

namespace Boc.Dispatch;

/// <summary>
/// Runs ready behaviours on the .NET thread pool with at most <c>workerCount</c> of them running at once: a FIFO
/// queue drained by at most that many pool work items ("workers"). Used when the runtime options fix a worker count
/// (for example to measure scaling on 1, 2, … workers).
/// </summary>
internal sealed class BoundedThreadPoolDispatcher : IDispatcher, IThreadPoolWorkItem
{
    // A worker gives its pool thread back after this many behaviours, so other pool work (async continuations, timers)
    // is not starved by a long stream of behaviours.
    private const int BatchSize = 64;

    private readonly ConcurrentQueue<Behaviour> _ready = new();
    private readonly int _workerCount;
    private int _activeWorkers;

    public BoundedThreadPoolDispatcher(int workerCount)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(workerCount, 1);
        _workerCount = workerCount;
    }

    public void Dispatch(Behaviour behaviour)
    {
        _ready.Enqueue(behaviour);
        TryStartWorker();
    }

    private void TryStartWorker()
    {
        int active = Atomic.Read(ref _activeWorkers);
        while (active < _workerCount)
        {
            int seen = Atomic.CompareExchange(ref _activeWorkers, active + 1, active);
            if (seen == active)
            {
                // The dispatcher object itself is the work item: every worker runs the same loop.
                ThreadPool.UnsafeQueueUserWorkItem(this, preferLocal: false);
                return;
            }

            active = seen;
        }
    }

    void IThreadPoolWorkItem.Execute()
    {
        // The pool starts this item with the default execution context; each behaviour of the batch must start from it
        // too, not from whatever AsyncLocals (culture, Activity.Current, log scopes) the previous body set.
        ExecutionContext? clean = ExecutionContext.Capture();
        for (int i = 0; i < BatchSize && _ready.TryDequeue(out Behaviour? behaviour); i++)
        {
            behaviour.Run(BocThread.Current);
            if (!ReferenceEquals(ExecutionContext.Capture(), clean) && clean is not null)
            {
                ExecutionContext.Restore(clean);
            }
        }

        Atomic.Decrement(ref _activeWorkers);

        // No lost wake-up: a Dispatch that enqueued after our last TryDequeue either saw our slot still taken (and
        // relied on us), or will start a worker itself. Checking the queue after giving the slot back covers the
        // first case; TryStartWorker's CAS keeps the worker count bounded if both happen.
        if (!_ready.IsEmpty)
        {
            TryStartWorker();
        }
    }
}
