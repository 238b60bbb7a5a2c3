using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Boc;

// =====================================================================================================================
// Spawn (Behaviour.Enqueue), two-phase as in the paper. A bounded runtime admits the spawn first, before the behaviour
// object is even rented (BocRuntime.Admit: it may wait, refuse, or, for a cancellable spawn, give up when the token is
// canceled while it waits); a refused spawn never reaches these steps, so no queue ever holds half a behaviour. A spawn
// that finds the runtime disposed after admission (BocRuntime.SpawnAdmitted) returns its behaviour unenqueued (Discard).
//   0. Slots are sorted by Cown.Id and duplicates merged (write wins): each cown appears once, so a behaviour never
//      waits on its own request, and every spawner visits cowns in the same global order.
//   1. countdown = slots + 1. The extra unit is held by the spawner until step 4, so the behaviour cannot run (and
//      cannot complete and release) while it is still being linked into other queues.
//   2. Phase 1, per slot in order: exchange the cown's tail for this (CownQueue.ExchangeTail). If the old tail is null
//      the queue was empty and the request receives the turn now. Otherwise wait until the old tail's slot for this
//      cown is Scheduled (its own spawner has finished phase 1 for *all* its cowns), then link old tail -> this. The
//      wait is two-phase locking across cowns: once we are past it, the predecessor's Exchange on every cown it needs
//      has happened, so on any later cown we share (higher Id, still ahead of us in phase 1) it is queued ahead of us
//      too. Without it we could Exchange on such a cown first: ahead of it there, behind it here, each waiting for the
//      other (or, with readers, an order that is not the spawn order). Atomicity is not what it protects: a writer
//      predecessor passes the turn on only after its body, which cannot start before step 4, and a reader only once it
//      is Scheduled.
//   3. Phase 2, per slot: set Scheduled. If a reader already received the turn, pass it on now (Behaviour.Turn.cs, "Readers").
//   4. Resolve the extra unit, together with the units of the cowns this spawner found free in phase 1 (one atomic
//      add; none at all when every cown was free, since then no other thread can reach the countdown).
//   Note what "Scheduled" therefore promises a successor: not only that its predecessor has exchanged on all its cowns,
//   but, because the predecessor waited in turn before linking, that so has everything queued ahead of it. A spawner
//   that links behind P on one cown and then moves on to another relies on that: whatever is ahead of P there has
//   already taken its place.
//
// One cown (Behaviour.EnqueueOne, the reference runtime's schedule_one). With a single request there is nothing to sort
// or merge and no other queue to be linked into, so phases 1 and 2 collapse: Exchange; if there is a predecessor, wait
// for it to be Scheduled (the promise above must hold for us too, so we may not set our flag before that), set our
// own flag, and only then link. The countdown is 1 and there is no extra unit: from the link on, the predecessor may
// give us the turn and we may run, so the spawner touches the behaviour no more; before the link no one can reach the
// countdown. Exactly one party resolves it: the spawner (empty queue, no active readers), a predecessor's release
// (Grant), or the last reader leaving (the pending writer of GrantWrite). A reader that takes the turn from an empty
// queue counts itself in and passes the turn on before it is dispatched, as every reader does.
//   (A first version set the flag before the Exchange, so that the Exchange would publish it. That breaks the promise:
//   a two-cown spawner could link behind the one-cown behaviour, move on, and overtake on its second cown the
//   two-cown behaviour queued just ahead of the one-cown one: opposite orders on two cowns, a deadlock. The oracle
//   stress tests found it.)
//
//     inside the tail's run, which holds both cowns; only writes of both are taken, so no reader is involved.
//
// Why it is correct:
//   * Ordered. Each cown's queue is in Exchange order. If b1 and b2 share a cown and b1 was spawned first, b1's
//     Exchange on that cown came first (both Exchanges happen inside When, before it returns), so b1's request is
//     ahead of b2's. The turn moves strictly along the queue, so b2 cannot get it before b1 has passed it on: a writer
//     passes it on after its body; a reader passes it on immediately, but a writer behind it also waits for the
//     reader count to drain. Two readers are not ordered, as specified.
//   * Atomic. A behaviour runs only when its countdown hits zero, i.e. it holds the turn (writer, no active readers)
//     or is counted as a reader on every cown; it releases nothing before its body ends. The extra countdown unit
//     stops it running before phase 2 has finished.
//   * Deadlock free. A spawner waits in phase 1 only for a predecessor that is between its Exchange on some cown and
//     its phase 2. Spawners visit cowns in ascending Id, so "waits for" only points from a spawner at cown k to a
//     spawner that already holds its place at k and is moving to higher Ids: no cycle. The other waits (PassOn's wait
//     for a link, including a reader's PassOn in phase 2) wait for a spawner that is past its Exchange on that cown
//     and has seen (or is about to see) the Scheduled flag, which is already set; so it links without waiting on us.
//     Behaviours themselves never wait: the countdown turns waiting into dispatch.
//   * Exactly once. The countdown reaches zero once, so Dispatch runs once; Finish runs once after the body.
// =====================================================================================================================

internal abstract partial class Behaviour
{
    // ---------------------------------------------------------------------------------------------------------------
    // Spawn
    // ---------------------------------------------------------------------------------------------------------------

    /// <summary>Enqueues on every cown (steps 0-4 of the protocol). Must not throw once phase 1 has started.</summary>
    internal void Enqueue() => Enqueue(null, runInline: false);

    /// <summary>
    /// <see cref="Enqueue()"/> for a spawner that holds the calling thread's <see cref="BocThread"/> (null to look it
    /// up only if needed): a behaviour ready at once goes to the worker's next slot without another thread-static
    /// lookup. <paramref name="runInline"/>: the spawner may run the behaviour itself if it is ready at once
    /// ("Inline runs", Behaviour.Inline.cs); <paramref name="thread"/> is then the calling thread's.
    /// </summary>
    internal void Enqueue(BocThread? thread, bool runInline)
    {
        AssertLive();
        int count = _slotCount;
        if (count == 1)
        {
            EnqueueOne(thread, runInline);
            return;
        }

        SortAndMerge();
        count = _slotCount;

        // Plain write: the first Exchange in phase 1 is a full fence that publishes it (and the slots).
        _countdown = count + 1;

        // Turns this thread takes from empty queues are counted here rather than decremented one by one.
        int ownGrants = 0;
        Behaviour? firstPrevious = null;
        for (int i = 0; i < count; i++)
        {
            if (StartEnqueue(ref SlotAt(i), out Behaviour? previous))
            {
                ownGrants++;
            }

            if (i == 0)
            {
                firstPrevious = previous;
            }
            else if (count == 2 && previous is not null && ReferenceEquals(previous, firstPrevious))
            {
                // A pair queued behind one behaviour on both cowns (a flood on one pair), which nothing can run before
                // our extra countdown unit is resolved below: an appendable pair opens for appends now (Appending/Behaviour.Appending.cs,
                // pairs); for every other class this does nothing. Not behind the body running on this thread, as in
                // EnqueueOne. Behind different behaviours no spawn could append, since both cowns' tails must be one.
                if (!ReferenceEquals(previous, thread?.Running))
                {
                    OpenAppends();
                }
            }
        }

        for (int i = 0; i < count; i++)
        {
            FinishEnqueue(ref SlotAt(i));
        }

        if (ownGrants == count)
        {
            // Fast path (every cown was free): every unit of the countdown is ours, and no other thread can reach it
            // (no predecessor will grant us anything, and we wait for no reader), so no atomic decrement is needed.
            StartReady(thread, runInline);
            return;
        }

        // Resolve our own units, plus the extra one, in one step; whoever brings the count to zero dispatches.
        if (Atomic.Add(ref _countdown, -(ownGrants + 1)) == 0)
        {
            StartReady(thread, runInline);
        }
    }

    /// <summary>
    /// Starts a behaviour that its spawner found ready (it holds every cown): runs it here if the spawner may
    /// (<paramref name="runInline"/>, decided as "Inline runs" in Behaviour.Inline.cs says), else dispatches it.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void StartReady(BocThread? thread, bool runInline)
    {
        if (runInline)
        {
            RunInline(thread!);
        }
        else
        {
            _runtime!.Dispatch(this, thread);
        }
    }

    /// <summary>
    /// Phase 1 for one slot. Returns true if this thread took the turn from an empty queue and the cown is ready for
    /// this request (the caller then resolves that unit of the countdown itself).
    /// </summary>
    /// <remarks><paramref name="previous"/> is the predecessor it linked behind, or null.</remarks>
    private bool StartEnqueue(ref Slot slot, out Behaviour? previous)
    {
        Cown cown = slot.Target;

        // Exchange is a full fence: everything this spawner wrote before (the slots, the countdown) is visible to
        // whoever reads Last and finds this behaviour.
        previous = cown.Queue.ExchangeTail(this);
#if DEBUG
        ProtocolTestHooks.Exchanged?.Invoke(cown);
#endif
        if (previous is null)
        {
            return TakeTurnFromEmptyQueue(ref slot);
        }

        LinkBehind(previous, cown);
        return false;
    }

    /// <summary>
    /// Phase 1 on a cown whose queue this spawner found empty: the turn is this request's. Returns true if the cown is
    /// ready for it (the caller resolves that unit of the countdown itself); false if a writer waits for active readers.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TakeTurnFromEmptyQueue(ref Slot slot)
    {
        Cown cown = slot.Target;

        // The queue was empty: no earlier behaviour holds or waits for the turn, so it is ours.
        if (slot.IsRead)
        {
            // Count in as a reader; passing the turn on waits for phase 2 (FinishEnqueue), as for any reader
            // granted before it is Scheduled. Nobody else writes this slot's state yet: no predecessor exists.
            cown.Queue.AddReader();
            slot.GrantFromEmptyQueue();
            return true;
        }

        // A writer also needs the readers that already left the queue (but still run) to finish. With the turn
        // ours no reader can join, so a zero seen here stays zero.
        if (cown.Queue.HasNoReaders)
        {
            // Held: the turn is ours with no readers. Plain write: no predecessor exists, and a canceller is
            // registered only after Enqueue ("Cancellation").
            slot.HoldFromEmptyQueue();
            return true;
        }

        // Nothing to pass on: no canceller exists before Enqueue returns, so the slot cannot be Withdrawn yet.
        _ = GrantWrite(this, cown);
        return false;
    }

    /// <summary>Phase 1's link: makes this behaviour the successor of <paramref name="previous"/> on <paramref name="cown"/>.</summary>
    private void LinkBehind(Behaviour previous, Cown cown) => Link(ref WaitUntilScheduled(previous, cown));

    /// <summary>Waits until <paramref name="previous"/>'s request on <paramref name="cown"/> is Scheduled; returns that slot.</summary>
    private static ref Slot WaitUntilScheduled(Behaviour previous, Cown cown)
    {
        previous.AssertLive();
        ref Slot previousSlot = ref previous.SlotFor(cown);

        // Link only after the predecessor's spawner has finished phase 1 everywhere: two-phase locking for our later
        // cowns. Until then it may still have to Exchange on a cown we are about to reach; waiting here keeps it
        // ahead of us on every cown we share, so no two behaviours are queued in opposite orders on two cowns.
        // (Atomicity is not what this protects: a predecessor passes the turn on only after step 4 or, a reader, once
        // Scheduled.)
        // The predecessor's spawner may be descheduled mid phase 1, so bound the spin and then yield (SpinWait's
        // default): with more spawners than cores, a pure spin takes the core the awaited spawner needs.
        if (!previousSlot.IsScheduled)
        {
            var spin = default(SpinWait);
            while (!previousSlot.IsScheduled)
            {
                AwaitStep(ref spin, cown);
            }
        }

        return ref previousSlot;
    }

    /// <summary>Links this behaviour behind the (Scheduled) request <paramref name="previousSlot"/>.</summary>
    private void Link(ref Slot previousSlot) =>
        // Release semantics: the predecessor's PassOn reads Next and then touches this behaviour.
        previousSlot.Link(this, GenerationOf(this));

    /// <summary>
    /// The one-cown spawn (the reference runtime's <c>schedule_one</c>): no sort, no merge, no phase 2, no extra
    /// countdown unit. See "One cown" at the top of this file for why each step may be skipped.
    /// </summary>
    private void EnqueueOne(BocThread? thread, bool runInline)
    {
        ref Slot slot = ref SlotAt(0);
        Cown cown = slot.Target;

        // Plain write: the Exchange below is a full fence that publishes it (and the slot).
        _countdown = 1;
        Behaviour? previous = cown.Queue.ExchangeTail(this);
#if DEBUG
        ProtocolTestHooks.Exchanged?.Invoke(cown);
#endif
        if (previous is not null)
        {
            // At the tail of a busy queue, and nothing can run it before the link below: an appendable behaviour opens
            // for appends now ("Appending"); for every other class this does nothing. Not behind the body running on
            // this thread: that is a chain on one cown (each body spawning the next), which would pay a CAS to close
            // a word nobody appends to.
            if (!ReferenceEquals(previous, (thread ?? BocThread.CurrentOrNull)?.Running))
            {
                OpenAppends();
            }

            // Wait for the predecessor to be Scheduled before we say we are ("One cown" above), then link. From the link
            // on the predecessor may give us the turn and we may run: the spawner must not touch the behaviour again.
            ref Slot previousSlot = ref WaitUntilScheduled(previous, cown);
            slot.ScheduleAlone();
            Link(ref previousSlot);
            return;
        }

        // The queue was empty: nothing is ahead of us, so a successor may link at once.
        if (slot.IsRead)
        {
            // Count in as a reader, then pass the turn on before the body can run, as Grant does for every reader.
            // Granted too: a canceller (registered after Enqueue) must see that this reader counted itself in.
            cown.Queue.AddReader();
            slot.ScheduleGrantedAlone();
            Behaviour? next = PassOn(ref slot);
            if (next is not null)
            {
                Grant(next, cown);
            }

            StartReady(thread, runInline);
            return;
        }

        // A writer with the turn still waits for readers that left the queue but still run; with the turn ours none
        // can join, so a zero seen here stays zero, and it can be read before we say we are Scheduled.
        if (cown.Queue.HasNoReaders)
        {
            // Scheduled, and Held for a canceller registered after Enqueue ("Cancellation"), in one release store: nobody
            // else writes the slot now (no predecessor, no canceller yet; a successor's spawner only reads it, and links
            // once it sees Scheduled, which this store publishes with everything Init wrote).
            slot.ScheduleHeldAlone();
            StartReady(thread, runInline);
            return;
        }

        // Scheduled before the turn can be resolved: from then on the behaviour may run and finish, and a successor's
        // spawner may be waiting for this flag to link.
        slot.ScheduleAlone();
        _ = GrantWrite(this, cown);
    }

    /// <summary>Phase 2 for one slot.</summary>
    private void FinishEnqueue(ref Slot slot)
    {
        if (!slot.IsRead)
        {
            if (Cancellation is not null)
            {
                // A predecessor's release may be setting Held on this slot right now ("Cancellation"): keep both bits.
                slot.ScheduleWriterBesideDeliverer();
                return;
            }

            // Otherwise only readers ever have another thread write their state (Granted), so a writer's flag can be a
            // plain release store (keeping the Held bit this thread may have set): a successor spinning on it then sees
            // everything phase 1 wrote.
            slot.ScheduleWriter();
            return;
        }

        if (slot.ScheduleReader())
        {
            // A reader got the turn before it was Scheduled (during our phase 1, or from a predecessor meanwhile); the
            // deliverer left passing it on to us. Doing it here, before the spawner's final ResolveOne, keeps the
            // invariant that a reader has passed the turn on before its behaviour can run.
            Behaviour? next = PassOn(ref slot);
            if (next is not null)
            {
                Grant(next, slot.Target);
            }
        }
    }
}
