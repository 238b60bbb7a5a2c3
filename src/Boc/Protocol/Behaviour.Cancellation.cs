using Boc.Diagnostics;

namespace Boc;

// =====================================================================================================================
// Withdrawal of a cancellable behaviour: the canceller's side of the protocol.
//
// Cancellation (WhenAsync(..., CancellationToken); this file, CancellationRequest.cs). A spawn whose
// token can be canceled gets a CancellationRequest (Behaviour.Cancellation; null otherwise, and then no step below
// does more than read that field). Its state word goes Pending -> Started (CAS in Run, before the body) or Pending ->
// Withdrawn (CAS by the token callback, "the canceller"); exactly one wins, so a behaviour either runs entirely or is
// withdrawn, and its awaitable says which (a BehaviourWithdrawnException, an OperationCanceledException with the
// token). A Started behaviour is plain from then on: the canceller touches nothing but the request, and the body can
// read the token (Behaviours.CurrentCancellationToken). A token canceled already, or canceled while the spawn waits for
// room on a full runtime (BocRuntime.Admit(CancellationToken) then returns false having counted nothing), completes the
// awaitable at once (CompleteUnspawned) and enqueues nothing: there is no queue state to undo. Otherwise the callback is registered only after Enqueue has returned, so the canceller never meets
// a spawner in phase 1 or 2: every slot is Scheduled and the spawner's own countdown unit is resolved.
//   A withdrawn behaviour keeps its place in every queue, and the turn still travels through it, so the order among
// the other behaviours is the one they would have had with it. What changes is what it does with a turn. Per slot, one
// more pair of bits arbitrates who passes it on, like Granted/Scheduled for readers: the canceller sets Withdrawn on
// each slot (after winning the state word); the deliverer sets a bit when the turn has become the behaviour's:
//   * a writer: Held, set where it would resolve its unit, i.e. holding the turn with no active readers (Hold: from
//     GrantWrite, from the last leaving reader, and, as plain writes, by the spawner when it took the turn from an
//     empty queue; no canceller exists then). A writer still waiting for readers (registered as the cown's pending
//     writer with WriterWaiting set) has not set Held, so the canceller leaves it alone and it keeps waiting: passing
//     the turn on from there would let a successor writer take the turn while GrantWrite's invariant says the holder
//     waits. If the turn arrives after Withdrawn is set (GrantWrite sees the bit first), the writer does not wait for
//     readers at all: it needs no exclusivity, and a writer behind it still waits for them through ReadState. Whoever
//     sets the second of {Held, Withdrawn} passes the turn on (PassOn + Grant): exactly once.
//   * a reader: Granted, set after it counted itself in, as before; its turn is passed on by the Granted/Scheduled
//     hand-over as always (Scheduled is set, so the deliverer passes it on at once). What is left to arbitrate is its
//     count in ReadState: whoever sets the second of {Granted, Withdrawn} counts it out (LeaveRead), exactly once. The
//     deliverer counts in before setting Granted, so the canceller never counts out a reader that is not counted in.
//     (The one-cown path sets Granted too when it counts a reader in from an empty queue.)
// The deliverer resolves the slot's countdown unit whether or not the behaviour was withdrawn, after passing the turn
// on if it was (once resolved, the behaviour may complete and be pooled, so the slot is read before). So the countdown
// still reaches zero exactly once, when every slot has received the turn; by then every slot has been passed on or
// is held and will be passed on by the canceller. The behaviour is dispatched; Run loses the CAS and joins.
// The caller's wait ends at the withdrawal, not at its completion. Once the canceller has marked every slot
// (Withdraw), the outcome is decided and nothing the queues do can change it, so the canceller delivers it then: an
// awaited behaviour's awaitable fails with BehaviourWithdrawnException at once, whoever holds its cowns (a wait that a
// token or a deadline bounds must end when they fire, as SemaphoreSlim.WaitAsync's does), and a scope member counts out
// of its scope, which no longer waits for it (it will never run a body, so it spawns nothing). Delivering is not
// completing: the behaviour still has places in queues that have not received the turn, so it stays live and counts
// as pending until the join below; the awaiter that takes the outcome meanwhile gives up only its half of the
// hand-over (ResultBehaviour, "_owners"), and the join gives up the other half, so whichever is later recycles.
// Completion of a withdrawal is a join of two: the canceller, once it has marked every slot (passing on the turns
// already held) and delivered the outcome, and Run, reached when every slot has received the turn. The second
// completes it: the pending count counts it finished, and the behaviour goes back to the pool once the awaiter, if it
// has one, has also taken the outcome.
//   Why it is correct:
//   * Exactly one pass per slot: the bit pairs above; a writer slot whose turn never arrives has no pass to make.
//   * No use of a pooled behaviour: the canceller touches the behaviour only after winning Pending -> Withdrawn, and
//     then the body never runs, so the behaviour completes only through the join, which waits for the canceller. A
//     deliverer touches a slot only before resolving its unit, and the join waits for the countdown. A callback that
//     fires late (the behaviour ran and was pooled, even reused) finds the request's state decided and stops: the
//     request is a fresh object per spawn, never pooled, and is unregistered when the behaviour completes (the
//     spawner or the completer unregisters, whichever is later, through one Exchange). The spawner touches only the
//     request after Enqueue; the behaviour cannot be pooled before that, since the awaiter holds half of it and gets
//     its awaitable only when WhenAsync returns.
//   * Order among the rest: the queues are unchanged, and a withdrawn request passes the turn on only after it
//     arrives, i.e. after every earlier writer on that cown has finished; readers ahead that still run keep their
//     count, so a later writer still waits for them. So whatever the turn could reach before, it reaches in the same
//     order, only sooner.
//   * Deadlock freedom: the canceller waits only in PassOn, for a spawner linking behind a Scheduled slot, as Finish
//     does; a withdrawn writer waiting for readers waits for bodies that are running. A withdrawn slot never waits for
//     the behaviour's other cowns, so it adds no waits-for edge between cowns.
// =====================================================================================================================

internal abstract partial class Behaviour
{
    /// <summary>Gets the token of the behaviour whose body is running in the current flow, or none.</summary>
    internal static CancellationToken CurrentCancellationToken => Current?.Cancellation?.BodyToken ?? default;

    /// <summary>Makes this (not yet enqueued) spawn cancellable by <paramref name="token"/>.</summary>
    internal CancellationRequest MakeCancellable(CancellationToken token)
    {
        AssertLive();
        var request = new CancellationRequest(this, token);
        (_extras ??= new BehaviourExtras()).Cancellation = request;
        return request;
    }

    /// <summary>Completes a spawn that was never enqueued (its token was canceled already) as withdrawn.</summary>
    internal void CompleteUnspawned(CancellationToken token)
    {
        AssertLive();
        if (!Deliver(new BehaviourWithdrawnException(token), null))
        {
            Recycle();
        }
    }

    /// <summary>
    /// The canceller's whole part, having won Pending -> Withdrawn for <paramref name="request"/>: marks the slots
    /// (<see cref="WithdrawSlots"/>), delivers the withdrawn outcome at once (an awaited behaviour's awaitable, a scope
    /// member's count), then joins (see "Cancellation": the caller's wait ends here, the behaviour completes at the join).
    /// </summary>
    internal void Withdraw(Withdrawal request)
    {
        AssertLive();
        WithdrawSlots();

        // Read before the join: once both parties have joined, the behaviour may go back to its pool.
        BocScope? scope = Scope;
        if (IsAwaited)
        {
            DeliverWithdrawn(new BehaviourWithdrawnException(request.Token));
        }

        // After the outcome, as a finished member counts out after delivering its own.
        scope?.CountOut();
        request.Join();
    }

    /// <summary>
    /// Marks every slot Withdrawn and passes on the turns the behaviour already holds (a writer's, once Held) or counts
    /// out (a reader that counted itself in). Slots whose turn has not arrived are passed on by whoever delivers it.
    /// </summary>
    private void WithdrawSlots()
    {
        AssertLive();
        int count = _slotCount;
        for (int i = 0; i < count; i++)
        {
            ref Slot slot = ref SlotAt(i);
            Cown cown = slot.Target;
            int old = slot.Withdraw();
            if (slot.IsRead)
            {
                // A reader's turn is passed on by the Granted/Scheduled hand-over as usual (it is Scheduled: the
                // canceller runs after Enqueue); only its place among the active readers is ours to give back.
                if ((old & Slot.Granted) != 0)
                {
                    LeaveRead(cown);
                }

                continue;
            }

            bool held = (old & Slot.Held) != 0;
#if BOC_MODEL
            held |= ModelMutations.Is(ModelMutations.WithdrawIgnoresHeld);
#endif
            if (held)
            {
                Behaviour? next = PassOn(ref slot);
                if (next is not null)
                {
                    Grant(next, cown);
                }
            }
        }
    }

    /// <summary>
    /// Both parties of the withdrawal are done: every slot has passed its turn on. The outcome was delivered by
    /// <see cref="Withdraw"/>; what is left is the count and the pool (after the awaiter, if it has not taken the outcome yet).
    /// </summary>
    internal void CompleteWithdrawn(Withdrawal request)
    {
        AssertLive();
        request.Unregister();
        BocRuntime runtime = _runtime!;
        BocMetrics.Canceled(runtime.Name);
        runtime.GiveRoomBack();
        try
        {
            if (!ReleaseDeliveredShare())
            {
                Recycle();
            }
        }
        finally
        {
            runtime.CountOut();
        }
    }
}
