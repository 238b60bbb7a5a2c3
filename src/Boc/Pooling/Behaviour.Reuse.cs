using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;

namespace Boc;

// =====================================================================================================================
// Reuse (behaviours are pooled; see BehaviourPool). A behaviour may go back to the pool only when nothing can reach it:
//   * predecessors: they reach it through the countdown, which is zero once it runs, so none touches it again;
//   * successors: a successor's spawner reads our slot (Scheduled) and writes our slot's Next; PassOn waits for that
//     write before returning, and every PassOn of ours happens before we return to the pool (a writer's in Finish; a
//     reader's before its countdown unit is resolved, so before the behaviour can even run);
//   * cowns: the cown's tail points at us until PassOn's CAS clears it or a successor replaces it; the cown's pending
//     writer points at us only while we wait for readers, and is cleared before we are resolved (by the last reader, or
//     by GrantWrite itself when its CAS loses to a leaving reader and it looks again).
//   * appenders ("Appending"): an appender writes to a behaviour only while it holds the Writing bit of an open word,
//     and the runner closes the word (waiting for Writing to clear) before the body starts, so before Finish; what an
//     appender reads before its CAS may belong to a later life, but then the generation makes the CAS fail.
// So after Finish has passed on or left every slot, nothing points at the behaviour. A spawn refused after renting (a
// runtime disposed between admission and Enqueue) returns its behaviour before Enqueue, while its awaitable is still a
// local of the spawning method that is never handed out: nothing has pointed at it (Discard). A behaviour awaited through a
// ValueTask returns to the pool only when both the delivering thread has finished setting the outcome and the awaiter
// has taken it (GetResult), whichever is last; the reset then moves the ValueTask's token (the completion core's
// version) on, so a second use of the ValueTask is detected. Debug builds also stamp links with a generation number
// and check it (Slot.NextGeneration), and refuse any protocol step on a behaviour that sits in the pool.
// =====================================================================================================================

internal abstract partial class Behaviour
{
    // ---------------------------------------------------------------------------------------------------------------
    // Body and outcome: implemented by the generated classes and their bases (BehaviourKinds.cs)
    // ---------------------------------------------------------------------------------------------------------------

    /// <summary>Runs the body. Returns the task of an asynchronous body, or null for a synchronous one.</summary>
    protected abstract Task? InvokeBody();

    /// <summary>Gets the body delegate this spawn stored (a Boc wrapper for the forms without state), or null when pooled.</summary>
    internal abstract Delegate? Body { get; }

    /// <summary>
    /// Gets the spawn's state if it is a delegate (the user's body, for the forms without state, whose
    /// <see cref="Body"/> is a Boc wrapper), or null. For diagnostics only: a value-type state is boxed to look.
    /// </summary>
    internal abstract Delegate? StateAsDelegate { get; }

    /// <summary>
    /// Delivers the outcome after the cowns are released. Returns true if an awaiter still holds the behaviour (it
    /// recycles it when it takes the result), false if the caller must recycle it now.
    /// </summary>
    protected abstract bool Deliver(Exception? error, Task? bodyTask);

    /// <summary>
    /// Delivers a withdrawn behaviour's outcome when the withdrawal is decided, before the behaviour completes
    /// (Protocol/Behaviour.Cancellation.cs, "Cancellation"); the delivering party keeps its hold until
    /// <see cref="ReleaseDeliveredShare"/>. Only awaited behaviours have an outcome to deliver.
    /// </summary>
    protected virtual void DeliverWithdrawn(Exception error)
    {
    }

    /// <summary>
    /// The withdrawal has completed: the delivering party gives up its hold, after <see cref="DeliverWithdrawn"/>.
    /// Returns true if an awaiter still holds the behaviour (it recycles it when it takes the outcome), false if the
    /// caller must recycle it now.
    /// </summary>
    protected virtual bool ReleaseDeliveredShare() => false;

    /// <summary>Clears references held by the body and returns the behaviour to the calling thread's pool cache.</summary>
    protected void Recycle() => Recycle(BocThread.Current);

    /// <summary>
    /// Clears references held by the body and returns the behaviour to the pool cache of <paramref name="thread"/>, the
    /// calling thread's.
    /// </summary>
    protected abstract void Recycle(BocThread thread);

    /// <summary>
    /// Gives up a behaviour that was initialised but will never be enqueued (a batch that was not spawned): an awaited
    /// one fails its awaitable with <paramref name="reason"/>; a fire-and-forget one just returns to its pool.
    /// </summary>
    internal abstract void Abandon(Exception reason);

    /// <summary>
    /// Returns a behaviour whose spawn was refused after it was rented to its pool. Only before
    /// <see cref="Enqueue()"/>, and only while its awaitable, if it has one, has not left the spawning method: then
    /// nothing else can reach it ("Reuse" at the top of this file), and no one else returns it.
    /// </summary>
    internal void Discard()
    {
        AssertLive();
        ForgetCompletion();
        Recycle();
    }

    /// <summary>For <see cref="Discard"/>: makes an awaited behaviour's unused awaitable stale.</summary>
    protected virtual void ForgetCompletion()
    {
    }

    /// <summary>Clears what the base class holds; called by <see cref="Recycle(BocThread)"/> implementations.</summary>
    protected void ClearForPool() => ClearForPool(keepReferences: false);

    /// <summary>
    /// <see cref="ClearForPool()"/>, except that with <paramref name="keepReferences"/> the runtime and the cowns stay
    /// (a worker's warm spare: see <see cref="BocThread.Spare"/>); <see cref="ForgetReferences"/> clears them later.
    /// </summary>
    protected void ClearForPool(bool keepReferences)
    {
        for (int i = 0; i < _slotCount; i++)
        {
            ref Slot slot = ref SlotAt(i);
#if DEBUG
            // "Reuse" at the top of this file: nothing may point at a pooled behaviour. The cown's tail and a slot's
            // link are checked through the generation stamps; PendingWriter is checked here.
            if (slot.Target is { } cown && cown.Queue.IsPendingWriter(this))
            {
                throw new InvalidOperationException("A behaviour went back to the pool while a cown still named it as its pending writer.");
            }
#endif
            if (keepReferences)
            {
                // Field by field: copying the cown back into a cleared slot would be the write barrier this avoids.
                slot.ClearKeepingTarget();
            }
            else
            {
                slot = default;
            }
        }

        _slotCount = 0;
        if (!keepReferences)
        {
            _runtime = null;
        }

        _started = false;
        ClearDiagnostics();
        if (_extras is { } extras)
        {
            extras.Cancellation = null;
            extras.Scope = null;
        }
#if DEBUG
        if (_pooled)
        {
            throw new InvalidOperationException("A behaviour was returned to the pool twice.");
        }

        _pooled = true;
        _generation++;
#endif
    }

    /// <summary>
    /// Clears the references a warm spare kept (<see cref="ClearForPool(bool)"/>): the runtime and the cown here, the
    /// body and its state in the class that keeps them. Called by the owning worker before it parks, so an idle worker
    /// keeps nothing of the user's alive.
    /// </summary>
    internal virtual void ForgetReferences()
    {
        _runtime = null;
        _first.Target = null!;
    }

    /// <summary>Marks the behaviour as taken from the pool (debug builds check it is not used while pooled).</summary>
    [SuppressMessage("Performance", "CA1822", Justification = "Reads instance state in debug builds.")]
    internal void MarkRented()
    {
#if DEBUG
        _pooled = false;
#endif
    }

    [Conditional("DEBUG")]
    [SuppressMessage("Performance", "CA1822", Justification = "Reads instance state in debug builds.")]
    private void AssertLive()
    {
#if DEBUG
        if (_pooled)
        {
            throw new InvalidOperationException("A behaviour was used after it returned to the pool.");
        }
#endif
    }

    /// <summary>
    /// The states of a dynamic set (the first <paramref name="count"/> of <paramref name="cowns"/>), in the caller's
    /// order. A new array per run: the list is handed to user code, which may keep it past the body; a list reused with
    /// the pooled behaviour would then show another behaviour's states.
    /// </summary>
    protected static IReadOnlyList<T> StatesOf<T>(IAcquirable<T>[] cowns, int count)
        where T : class
    {
        var states = new T[count];
        for (int i = 0; i < count; i++)
        {
            // Every state in a dynamic set was stored by a cown whose state type is assignable to T (the list's static
            // type says so), so the cast check would only cost time.
            states[i] = Unsafe.As<T>(cowns[i].Cown.State);
        }

        return states;
    }

    protected static InvalidOperationException NullTask() =>
        new("The asynchronous body of a behaviour returned a null Task.");
}
