using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Boc;

// =====================================================================================================================
// Completion (Behaviour.Finish): writers pass the turn on (PassOn), readers count themselves out (LeaveRead).
//
// PassOn is the MCS release: if Next is linked, give it the turn. Otherwise try to clear the cown's tail
// (CownQueue.TryClearTail: CAS from this to null); if that succeeds the queue is empty and the next spawner takes the
// turn from the empty queue. If the CAS fails, a spawner has swapped itself in behind us and will link Next as soon as
// it sees us Scheduled, so wait for the link.
//
// Readers. The cown's readers' word (CownQueue) = number of active readers | WriterWaiting. A reader that receives the
// turn increments the count *before* passing the turn on, so any writer later in the queue sees it. A writer that
// receives the turn:
//   * if the count is zero, it holds the cown (no reader can join: the turn is with the writer);
//   * otherwise it records itself as the pending writer and sets WriterWaiting with one CAS on the same word the
//     readers decrement, so "the last reader left" and "a writer is waiting" cannot both be missed (with two separate
//     fields a reader could leave between the writer's check and its flag, and nobody would wake the writer).
//   The reader whose decrement leaves exactly WriterWaiting clears the word and resolves the pending writer.
// A reader passes the turn on only once it is Scheduled. A reader can receive the turn during its own phase 1 (empty
// queue); passing it on then could mean waiting for a successor that is itself waiting for this behaviour's
// Scheduled flag, which is set only in phase 2: a self-deadlock. Slot.State arbitrates, with one atomic OR each,
// between the thread that delivers the turn (sets Granted) and the spawner's phase 2 (sets Scheduled): whichever sets
// the second bit does the PassOn. This is the race the Verona runtime once got wrong (a reader still mid-enqueue
// taken for a finished one); here the reader's state word makes the hand-over exactly-once.
// =====================================================================================================================

internal abstract partial class Behaviour
{
    // ---------------------------------------------------------------------------------------------------------------
    // The turn
    // ---------------------------------------------------------------------------------------------------------------

    /// <summary>
    /// Gives the turn on <paramref name="cown"/> to <paramref name="behaviour"/>, then along any run of readers that
    /// are already Scheduled. Iterative, so that a long run of readers does not grow the stack. <paramref name="thread"/>
    /// is the calling thread's <see cref="BocThread"/> if the caller holds it (a release on a worker), for the dispatch.
    /// </summary>
    private static void Grant(Behaviour behaviour, Cown cown, BocThread? thread = null)
    {
        while (true)
        {
            behaviour.AssertLive();
            ref Slot slot = ref behaviour.SlotFor(cown);
            if (!slot.IsRead)
            {
                // A withdrawn writer hands back the successor it passed the turn on to: continue with it here, so a
                // long run of withdrawn writers does not grow the stack either.
                Behaviour? following = GrantWrite(behaviour, cown, thread);
                if (following is null)
                {
                    return;
                }

                behaviour = following;
                continue;
            }

            // Count ourselves in before the turn moves on, so a writer behind us sees an active reader.
#if BOC_MODEL
            bool late = ModelMutations.Is(ModelMutations.ReaderCountsInLate);
            if (!late)
            {
                cown.Queue.AddReader();
            }
#else
            cown.Queue.AddReader();
#endif

            Behaviour? next = null;
            int old = slot.Grant();
            if ((old & Slot.Withdrawn) != 0)
            {
                // Withdrawn before the turn reached it: the canceller saw no Granted and left the count to us. Count
                // out again; the turn is still ours, so no writer waits on this cown and this only decrements.
                LeaveRead(cown);
            }

            if ((old & Slot.Scheduled) != 0)
            {
                // Our spawner is done with phase 1, so successors can link: pass the turn on now, before resolving
                // (once resolved, the behaviour may run, finish and be reused while we would still read its slot).
                next = behaviour.PassOn(ref slot);
            }

#if BOC_MODEL
            if (late)
            {
                cown.Queue.AddReader();
            }
#endif

            // Otherwise the spawner's phase 2 passes the turn on (FinishEnqueue); its final ResolveOne comes after.
            behaviour.ResolveOne(thread);

            if (next is null)
            {
                return;
            }

            behaviour = next;
        }
    }

    /// <summary>
    /// A writer receives the turn. Returns the successor to give the turn to next if the writer was withdrawn and passed
    /// it on (see "Cancellation"); null otherwise.
    /// </summary>
    /// <remarks>
    /// Not inlined (nor is <see cref="LeaveRead"/>): a call, as it was before the queue's state became a type of its own
    /// (CownQueue) and the body shrank below the JIT's inlining threshold; inlined, its rare paths (readers still active,
    /// a withdrawn writer) filled the spawn's and the release's code around their common path
    /// (docs/performance/decisions.md, "Protocol state behind transitions, atomics behind one facade").
    /// </remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static Behaviour? GrantWrite(Behaviour writer, Cown cown, BocThread? thread = null)
    {
        if (writer.Cancellation is not null && writer.SlotFor(cown).IsWithdrawn)
        {
            // Withdrawn before the turn arrived (the canceller saw no Held, so the slot is ours to pass on): it needs no
            // exclusivity, so it does not wait for active readers either.
            return writer.ArriveWithdrawn(ref writer.SlotFor(cown), thread);
        }

        // Active readers: wait for them as the pending writer (the last to leave resolves us). Otherwise no reader is
        // active, and none can join: the turn is ours until our behaviour finishes.
        return cown.Queue.TryParkWriter(writer) ? null : Hold(writer, cown, thread);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void LeaveRead(Cown cown)
    {
        // Null unless we were the last active reader and a writer holds the turn, waiting for us (CownQueue.RemoveReader
        // hands it over).
        if (cown.Queue.RemoveReader() is { } writer && Hold(writer, cown) is { } next)
        {
            Grant(next, cown);
        }
    }

    /// <summary>
    /// A writer holds the turn with no active readers: resolve its unit. A cancellable writer first arbitrates with
    /// the canceller (see "Cancellation") and, if withdrawn, passes the turn on; the successor is returned to be granted.
    /// </summary>
    private static Behaviour? Hold(Behaviour writer, Cown cown, BocThread? thread = null)
    {
        if (writer.Cancellation is null)
        {
            writer.ResolveOne(thread);
            return null;
        }

        ref Slot slot = ref writer.SlotFor(cown);
        if ((slot.Hold() & Slot.Withdrawn) != 0)
        {
            return writer.ArriveWithdrawn(ref slot, thread);
        }

        writer.ResolveOne(thread);
        return null;
    }

    /// <summary>
    /// The turn reached a withdrawn writer's slot and this thread is the one to pass it on: do so, then resolve the
    /// unit (last: once resolved, the behaviour may complete its withdrawal and go back to the pool).
    /// </summary>
    private Behaviour? ArriveWithdrawn(ref Slot slot, BocThread? thread = null)
    {
        Behaviour? next = PassOn(ref slot);
        ResolveOne(thread);
        return next;
    }

    /// <summary>MCS release: returns the successor that should get the turn, or null if the queue became empty.</summary>
    private Behaviour? PassOn(ref Slot slot)
    {
        Behaviour? next = slot.ReadNext();
        if (next is null)
        {
            if (slot.Target.Queue.TryClearTail(this))
            {
                return null;
            }

            // A spawner swapped itself in behind us; it links as soon as it sees us Scheduled, which we are. It may be
            // descheduled between its Exchange and the link, so spin a bounded while, then yield (SpinWait's default).
            var spin = default(SpinWait);
            while ((next = slot.ReadNext()) is null)
            {
                AwaitStep(ref spin, slot.Target);
            }
        }

#if DEBUG
        if (next._generation != slot.NextGeneration)
        {
            throw new InvalidOperationException("A linked successor was returned to the pool while still queued.");
        }
#endif
        return next;
    }

    /// <summary>
    /// One dependency resolved; the last one dispatches the behaviour (<paramref name="thread"/>: the calling thread's
    /// <see cref="BocThread"/>, if the caller holds it).
    /// </summary>
    internal void ResolveOne(BocThread? thread = null)
    {
        AssertLive();
        if (Atomic.Decrement(ref _countdown) == 0)
        {
            _runtime!.Dispatch(this, thread);
        }
    }
}
