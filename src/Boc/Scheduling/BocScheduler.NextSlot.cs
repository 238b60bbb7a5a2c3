using System.Runtime.CompilerServices;
using System.Diagnostics;

namespace Boc;

// =====================================================================================================================
// The next slot: a behaviour made ready on a worker runs next there, cache-warm; taken exactly once.
//
//   * Worker.Next - the next slot. Filled only by its owner (Dispatch on a worker: a behaviour made ready there runs
//     next there, cache-warm). Emptied by the owner (NextItem; or OnSpawn, which moves it to the queue when the
//     item that filled it spawns again, so is not about to finish, onto a cown that may queue behind it) or, when the
//     owner looks blocked, by a parked peer (TakeStuckWork). The owner fills an empty slot with a release store
//     (nobody else writes a non-null value, so it cannot race a fill). Takes inside a body (OnSpawn, Dispatch's
//     displacement) and a thief's are Interlocked.Exchange; the owner's take between items (NextItem, once per chain
//     hop) is a plain read and write, kept apart from thieves by an asymmetric pair (next paragraph). So an item in
//     the slot is taken exactly once.
//   * The owner's plain take. A thief takes only from a worker that is inside a body (InBody, set by the owner
//     before each item and cleared at the start of NextItem) and has run nothing for an interval. The owner clears
//     InBody, then reads Stealing, then takes; a thief sets Stealing (a CAS, so one thief at a time), issues a
//     process-wide barrier (Interlocked.MemoryBarrierProcessWide), then reads InBody and takes only if it is set.
//     The barrier orders the owner's store and load as if the owner had fenced between them, so either the owner
//     sees Stealing (and waits for the thief, then takes by Exchange) or the thief sees InBody clear, or set again
//     by the next item, whose release store comes after the owner's take. The owner reads the slot only after its
//     acquire read of Stealing, so a thief that finished first left the slot empty for it. Only a thief pays a
//     barrier (a system call), once per stuck worker per interval.
// =====================================================================================================================

public sealed partial class BocScheduler
{
    /// <summary>
    /// The owner's take of its next slot between items, after NextItem cleared <see cref="Worker.InBody"/>: a plain read and
    /// write unless a thief is at work (the file comment, "The owner's plain take", has the argument).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Behaviour? TakeNext(Worker self)
    {
        // After the store of InBody: the store-then-load pair whose fence the thief's process-wide barrier provides.
        if (Atomic.Read(ref self.Stealing) != 0)
        {
            return TakeNextBesideAThief(self);
        }

        // Read after the acquire read above, so a thief that finished before it left the slot empty here. No thief can
        // take the item now: one that starts sees InBody clear.
        Behaviour? next = Atomic.Read(ref self.Next);
        if (next is not null)
        {
            Atomic.PlainWrite(ref self.Next, null);
        }

        return next;
    }

    /// <summary>The rare take: a thief holds <see cref="Worker.Stealing"/>; it finishes in a few steps without waiting for us.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static Behaviour? TakeNextBesideAThief(Worker self)
    {
        var spin = default(SpinWait);
        while (Atomic.Read(ref self.Stealing) != 0)
        {
            Atomic.SpinOnce(ref spin, sleep1Threshold: -1);
        }

        // It may have taken the item (by Exchange, as here); a later thief sees InBody clear and takes nothing.
        return Atomic.Exchange(ref self.Next, null);
    }

    /// <summary>
    /// Moves work out of the next slot of any worker that has run nothing since this worker parked: its body is
    /// blocked (or very long), and the slot would otherwise wait for it.
    /// </summary>
    private void TakeStuckWork(Worker self)
    {
        foreach (Worker other in _workers)
        {
            if (other == self)
            {
                continue;
            }

            long seen = self.LastSeenTicks[other.Index];
            bool ranSince = seen != Atomic.Read(ref other.Ticks);
#if BOC_MODEL
            ranSince &= !ModelMutations.Is(ModelMutations.ThiefIgnoresOwner);
#endif
            if (ranSince || Atomic.Read(ref other.Next) is null
                || Atomic.CompareExchange(ref other.Stealing, 1, 0) != 0)
            {
                continue;
            }

            // The thief's side of the owner's plain take (the file comment, "The owner's plain take"): Stealing is set;
            // the barrier makes the owner's InBody store and Stealing load behave as if fenced; then InBody decides.
            // Still inside the same item (Ticks unchanged), the owner takes only by Exchange, as this does.
            Atomic.MemoryBarrierProcessWide();
            Behaviour? stuck = null;
            bool stillInBody = Atomic.Read(ref other.InBody) != 0 && Atomic.Read(ref other.Ticks) == seen;
#if BOC_MODEL
            stillInBody |= ModelMutations.Is(ModelMutations.ThiefIgnoresOwner);
#endif
            if (stillInBody)
            {
#if DEBUG
                ThiefDecidedHook?.Invoke();
#endif
                stuck = Atomic.Exchange(ref other.Next, null);
            }

            Atomic.Write(ref other.Stealing, 0);
            if (stuck is not null)
            {
                PushLocal(self, stuck);
            }
        }
    }
}
