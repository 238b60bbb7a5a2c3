#if BOC_MODEL
namespace Boc;

// Model builds only (tests/Boc.ModelTests): the worker's steps, for a model test to run on threads of its own.
public sealed partial class BocScheduler
{
    /// <summary>Gets worker <paramref name="index"/>.</summary>
    internal Worker ModelWorker(int index) => _workers[index];

    /// <summary>The worker loop, run by a model's thread instead of the worker's own (created with startWorkers false).</summary>
    internal void ModelWorkerLoop(Worker self) => WorkerLoop(self);

    /// <summary>The owner's take of its next item (NextItem: the next slot, its queue, the inbox, a steal).</summary>
    internal object? ModelNextItem(Worker self, out bool fromNextSlot) => NextItem(self, out fromNextSlot);

    /// <summary>A parked peer's look for stuck work in the others' next slots.</summary>
    internal void ModelTakeStuckWork(Worker self) => TakeStuckWork(self);

    /// <summary>Records in <paramref name="self"/> how far the others had got, as a worker does when it parks.</summary>
    internal void ModelRememberTicks(Worker self)
    {
        foreach (Worker other in _workers)
        {
            self.LastSeenTicks[other.Index] = Atomic.Read(ref other.Ticks);
        }
    }

    /// <summary>Stops the workers as Dispose does, without joining their (never started) threads.</summary>
    internal void ModelStop()
    {
        Atomic.Write(ref _stopping, true);
        _idle.ReleaseAll(_workers.Length);
    }
}
#endif
