using System.Diagnostics;

namespace Boc;

// =====================================================================================================================
// Batches (BocRuntime.Batch; Behaviour.EnqueueBatch). A batch spawns several behaviours ("members") as one step, as the
// reference runtime's schedule_many does: no other behaviour is queued between two members on any cown they share,
// and on each cown the members are queued in batch order. The members are ordinary behaviours (slots, countdown,
// Finish); only the spawn differs, and it is the general spawn (Behaviour.Enqueue.cs) done once for the whole batch:
//   0. Each member sorts and merges its slots (step 0) and sets countdown = slots + 1 (step 1), the extra unit held by
//      the batch's spawner. Then every request of the batch is sorted by (cown id, member index); the keys are unique,
//      so on each cown the members' requests stay in batch order.
//   1. Phase 1, per distinct cown in ascending id: link the batch's requests on that cown to each other first (slot
//      Next = the following member; plain writes), then ONE exchange of the cown's tail (the last member of the run).
//      If the queue was empty, the run's head takes the turn exactly as a single spawner does (TakeTurnFromEmptyQueue;
//      its unit is resolved with an atomic decrement, which cannot reach zero while the extra unit is held); otherwise
//      wait for the old tail to be Scheduled and link it to the head (LinkBehind), as a single spawner does.
//   2. Phase 2 and step 4, member by member in batch order: Scheduled on every slot (a reader granted meanwhile passes
//      the turn on here, FinishEnqueue as always), then resolve the member's extra unit.
// Why it is correct:
//   * Nothing comes between. A foreign request enters a cown's queue only by its own Exchange on Last, which adds it
//     after the current tail. The batch's whole run on that cown enters with one Exchange, already linked inside, so
//     no foreign Exchange can fall between two of its requests: the run is contiguous in the queue, and the turn
//     moves strictly along the queue (including its reader rules), so no foreign behaviour gets the turn between two
//     members either. A foreign writer behind the run waits for the run's readers through ReadState, as for any readers.
//   * Order within the batch: the run is in member order (the sort), so on each cown member i's request is ahead of
//     member j's for i < j, with everything "Ordered" (Behaviour.Enqueue.cs) says about a queue.
//   * Two-phase locking over the whole batch: no slot of any member is Scheduled before the batch has exchanged on all
//     its cowns, and the batch waits for each predecessor's Scheduled before linking. So the batch behaves, towards
//     every other spawner, like one behaviour that requests the union of its members' cowns: the promise "Scheduled"
//     makes (Behaviour.Enqueue.cs) holds for each member's slots (everything ahead of the run, and the whole batch, has taken its
//     place on every cown), and the order of spawns (the batch as one) is the same on every cown they share.
//   * Deadlock free: the batch's spawner visits cowns in ascending id and waits only as a single spawner does (for a
//     predecessor's Scheduled, then in phase 2 only in PassOn for a spawner already past its Exchange), so the
//     argument under "Deadlock free" (Behaviour.Enqueue.cs) holds with the batch as one spawner. Inside the batch, member i waits for member
//     j on a shared cown only if i > j: no cycle. Between the batch and others, the queues agree with one total order
//     of spawns (previous point), so the waits-for graph of behaviours follows it: no cycle.
//   * Reader hand-over: within a run a reader's turn is passed on by the same Granted/Scheduled arbitration. During
//     phase 1 only a run's head can receive the turn (a writer head holds it until its body ends, which cannot start
//     before step 4; a reader head passes it on only once Scheduled, in phase 2), so pre-linked successors are first
//     reached in phase 2 or later, when their own flags are about to be set or set.
//   * Nothing half-enqueued: the batch is validated while it is built (each b.When checks its arguments before it
//     records anything), admitted whole (BocRuntime.AdmitBatch: room for every member, or none), and counted in and
//     checked for disposal before EnqueueBatch starts; from phase 1 on nothing throws. A batch that fails before (the
//     builder throws, admission or disposal refuses it) enqueued nothing: its members were never published, so they
//     are abandoned (Behaviour.Abandon: an awaitable fails as canceled, the object returns to its pool).
//   * Cancellation: members have no cancellation request of their own (no token is offered inside a batch). A member
//     of a scope has its scope's arbiter (Scopes/), so FinishEnqueue takes its interlocked path for that member, as it
//     does for any cancellable behaviour; the others keep the plain Scheduled store on writers, which stays sound (only
//     readers' state words are written by other threads). The scope registers its members only after EnqueueBatch,
//     so no canceller meets the batch's spawner in phase 1 or 2.
//   * One-cown members take the general path (countdown with the extra unit, phase 2), not EnqueueOne: a pre-linked
//     successor may be reached before the batch's spawner is done, and the extra unit is what keeps it from running.
// =====================================================================================================================

/// <summary>One request of a batch while it is enqueued: the cown's id, the member's index, the slot's index in it.</summary>
internal readonly record struct BatchRequest(long CownId, int Member, int Slot);

internal abstract partial class Behaviour
{
    /// <summary>
    /// Enqueues the first <paramref name="count"/> of <paramref name="members"/> as one batch ("Batches" at the top of this
    /// file): every request of every member in one two-phase step, with the members' requests on each cown linked to
    /// each other in batch order before one Exchange puts the whole run at that cown's tail. Must not throw once phase 1
    /// has started; the members are fresh from Init, and none has a token (a scope's members register for its
    /// cancellation only after this returns).
    /// </summary>
    internal static void EnqueueBatch(Behaviour[] members, int count)
    {
        // Step 0 and step 1 per member; then the batch's requests, sorted by (cown id, member index). Keys are unique
        // (a member names each cown once after the merge), so the sort keeps batch order on each cown.
        int total = 0;
        for (int m = 0; m < count; m++)
        {
            Behaviour member = members[m];
            member.AssertLive();
            Debug.Assert(member.Cancellation is null or ScopeMembership, "Batch members have no token of their own.");
            member.SortAndMerge();

            // Plain write: the first Exchange below is a full fence that publishes it (and the slots).
            member._countdown = member._slotCount + 1;
            total += member._slotCount;
        }

        var requests = new BatchRequest[total];
        int next = 0;
        for (int m = 0; m < count; m++)
        {
            Behaviour member = members[m];
            for (int i = 0; i < member._slotCount; i++)
            {
                requests[next++] = new BatchRequest(member.SlotAt(i).Target.Id, m, i);
            }
        }

        requests.AsSpan().Sort(static (x, y) => x.CownId != y.CownId ? x.CownId.CompareTo(y.CownId) : x.Member.CompareTo(y.Member));

        // Phase 1, per cown in ascending id: link the batch's run on the cown, then place it with one Exchange.
        int start = 0;
        while (start < total)
        {
            int end = start + 1;
            while (end < total && requests[end].CownId == requests[start].CownId)
            {
                end++;
            }

            for (int k = start; k < end - 1; k++)
            {
                // Plain writes: nobody reaches these slots before the Exchange below publishes them.
                Behaviour successor = members[requests[k + 1].Member];
                members[requests[k].Member].SlotAt(requests[k].Slot).LinkBeforePublication(successor, GenerationOf(successor));
            }

            Behaviour head = members[requests[start].Member];
            ref Slot headSlot = ref head.SlotAt(requests[start].Slot);
            Cown cown = headSlot.Target;
            Behaviour? previous = cown.Queue.ExchangeTail(members[requests[end - 1].Member]);
            if (previous is null)
            {
                if (head.TakeTurnFromEmptyQueue(ref headSlot))
                {
                    // Never the last unit: the member's extra unit is still held (step 4 below).
                    Atomic.Decrement(ref head._countdown);
                }
            }
            else
            {
                head.LinkBehind(previous, cown);
            }

            start = end;
        }

        // Phase 2 and step 4, member by member in batch order. A member released here may run and finish while later
        // members are still in phase 2; it then gives the turn to a batch successor as it would to any successor.
        for (int m = 0; m < count; m++)
        {
            Behaviour member = members[m];
            for (int i = 0; i < member._slotCount; i++)
            {
                member.FinishEnqueue(ref member.SlotAt(i));
            }

            member.ResolveOne();
        }
    }
}
