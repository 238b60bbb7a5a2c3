using Boc.Diagnostics;

namespace Boc;

// Atomic batches: the admission and acceptance of a batch as a whole; the enqueue itself is Behaviour.EnqueueBatch
// (Protocol/Behaviour.Batch.cs). Separate from Spawn, so that the ordinary spawn path carries nothing for batches.
public sealed partial class BocRuntime
{
    /// <summary>
    /// Spawns several behaviours as one atomic step: <paramref name="build"/> records them on a <see cref="BocBatch"/>
    /// (<c>b.When(…)</c>, <c>b.WhenAsync(…)</c>), and when it returns all of them are enqueued together. No other
    /// behaviour comes between two members of the batch on any cown they share, and on each cown the members are queued
    /// in the order <paramref name="build"/> added them: Verona's <c>(when(a) &lt;&lt; f) + (when(b) &lt;&lt; g)</c>.
    /// </summary>
    /// <param name="build">Records the members. It runs on the calling thread, before anything is enqueued.</param>
    /// <remarks>
    /// <para>
    /// All or nothing: if <paramref name="build"/> throws, or the batch is refused (a full bounded runtime in
    /// <see cref="BocFullMode.Throw"/> mode, a disposed runtime), no member is enqueued, the exception propagates, and
    /// the awaitables the builder's <c>WhenAsync</c> returned complete as canceled (an
    /// <see cref="OperationCanceledException"/> whose inner exception is the reason). A batch with no member does
    /// nothing.
    /// </para>
    /// <para>
    /// Each member is an ordinary behaviour once enqueued: it runs when it holds its own cowns (members that share no
    /// cown may run in any order, or at the same time), its exceptions are reported like those of <c>When</c> and
    /// <c>WhenAsync</c>, and it counts as one pending behaviour. A bounded runtime (<see cref="BocRuntimeOptions.MaxPendingBehaviours"/>)
    /// admits the batch whole: from outside the runtime it waits (or, in <see cref="BocFullMode.Throw"/> mode, throws)
    /// until there is room for every member; from inside a body it is admitted at once, like every spawn there.
    /// </para>
    /// </remarks>
    /// <exception cref="ArgumentNullException"><paramref name="build"/> is null.</exception>
    /// <exception cref="ObjectDisposedException">The runtime has been disposed; nothing was enqueued.</exception>
    /// <exception cref="BocRuntimeFullException">
    /// Called from outside the runtime while it has no room for every member, with <see cref="BocRuntimeOptions.FullMode"/>
    /// <see cref="BocFullMode.Throw"/>; nothing was enqueued. In <see cref="BocFullMode.Wait"/> mode the call blocks until
    /// there is room instead.
    /// </exception>
    /// <exception cref="InvalidOperationException">
    /// Called from outside the runtime with more members than <see cref="BocRuntimeOptions.MaxPendingBehaviours"/>: such a
    /// batch could never be admitted. Nothing was enqueued.
    /// </exception>
    public void Batch(Action<BocBatch> build)
    {
        ArgumentNullException.ThrowIfNull(build);
        var batch = new BocBatch(this);
        try
        {
            build(batch);
        }
        catch (Exception error)
        {
            batch.Abandon(error);
            throw;
        }

        Behaviour[] members = batch.Close(out int count);
        if (count == 0)
        {
            return;
        }

        try
        {
            _admission?.AdmitBatch(count);
        }
        catch (Exception refused)
        {
            AbandonAll(members, count, refused);
            throw;
        }

        // Count every member in, then check for disposal (the Dekker pair of SpawnAdmitted); a disposed runtime counts
        // them out again and enqueues none. OnSpawn first, as in SpawnAdmitted: it also says which worker counts.
        BocThread thread = BocThread.Current;
        int worker = _bocScheduler?.OnSpawn(thread, target: null) ?? -1;

        // Scopes (Scopes/BocRuntime.Scopes.cs): the members join the calling flow's scope together, or the whole batch
        // is refused (a canceled scope) before anything is counted.
        ScopeJoin[]? joins = BocScope.AnyBegun ? JoinBatchToScope(members, count, thread) : null;
        for (int i = 0; i < count; i++)
        {
            _pending.Spawned(worker, thread);
        }

        if (Atomic.Read(ref _disposed) != 0)
        {
            for (int i = 0; i < count; i++)
            {
                OnBehaviourFinished();
                joins?[i].Scope?.CountOut();
            }

            ObjectDisposedException disposed = ShutDown();
            AbandonAll(members, count, disposed);
            throw disposed;
        }

        for (int i = 0; i < count; i++)
        {
            Behaviour member = members[i];
            if (BocMetrics.Spawned.Enabled)
            {
                BocMetrics.Add(BocMetrics.Spawned, Name);
            }

            if (BocMetrics.StartDelay.Enabled)
            {
                member.StampSpawn();
            }

            if (_traceBehaviours && BocTracing.Source.HasListeners())
            {
                member.CaptureTraceParent();
            }
        }

        if (_spawnHook is null)
        {
            Behaviour.EnqueueBatch(members, count);
        }
        else
        {
            _spawnHook.EnqueueBatch(members, count);
        }

        // Registered for the scope's cancellation once enqueued, as a single spawn is (SpawnAdmitted).
        if (joins is not null)
        {
            foreach (ScopeJoin join in joins)
            {
                join.Register();
            }
        }
    }

    /// <summary>Abandons members of a batch that is not enqueued (see <see cref="Behaviour.Abandon"/>).</summary>
    internal static void AbandonAll(Behaviour[] members, int count, Exception reason)
    {
        var canceled = new OperationCanceledException(
            "The behaviour was not spawned: the batch it belongs to was not enqueued (see the inner exception).", reason);
        for (int i = 0; i < count; i++)
        {
            members[i].Abandon(canceled);
        }
    }
}
