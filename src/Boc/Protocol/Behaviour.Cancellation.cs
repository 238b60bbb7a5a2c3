using Boc.Diagnostics;

namespace Boc;

// Withdrawal of a cancellable behaviour: the canceller's side of the protocol ("Cancellation" in Behaviour.cs).
internal abstract partial class Behaviour
{
    /// <summary>Gets the token of the behaviour whose body is running in the current flow, or none.</summary>
    internal static CancellationToken CurrentCancellationToken => Current?.Cancellation?.Token ?? default;

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
    /// The canceller, having won Pending -> Withdrawn: marks every slot Withdrawn and passes on the turns the behaviour
    /// already holds (a writer's, once Held) or counts out (a reader that counted itself in). Slots whose turn has not
    /// arrived are passed on by whoever delivers it.
    /// </summary>
    internal void WithdrawSlots()
    {
        AssertLive();
        int count = _slotCount;
        for (int i = 0; i < count; i++)
        {
            ref Slot slot = ref SlotAt(i);
            Cown cown = slot.Target;
            int old = Interlocked.Or(ref slot.State, Slot.Withdrawn);
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

            if ((old & Slot.Held) != 0)
            {
                Behaviour? next = PassOn(ref slot);
                if (next is not null)
                {
                    Grant(next, cown);
                }
            }
        }
    }

    /// <summary>Both parties of the withdrawal are done: deliver the canceled outcome and finish.</summary>
    internal void CompleteWithdrawn(CancellationRequest request)
    {
        AssertLive();
        request.Unregister();
        BocRuntime runtime = _runtime!;
        BocMetrics.Canceled(runtime.Name);
        runtime.GiveRoomBack();
        try
        {
            if (!Deliver(new BehaviourWithdrawnException(request.Token), null))
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
