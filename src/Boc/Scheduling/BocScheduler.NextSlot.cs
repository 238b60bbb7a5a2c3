using System.Runtime.CompilerServices;
using System.Diagnostics;
using Boc.Dispatch;

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

    /// <summary>
    /// <see cref="IDispatcher.Dispatch"/> for a caller that already holds the calling thread's <see cref="BocThread"/>
    /// (or null if it has none): a spawn or a release on a worker, which saves the thread-static lookup.
    /// </summary>
    internal void Dispatch(Behaviour behaviour, BocThread? thread)
    {
        Worker? worker = thread?.Worker;
        if (worker is not null && worker.Scheduler == this && !Atomic.Read(ref _stopping))
        {
            // Ready on this worker: run it next, here. Only the owner fills the slot; other threads only empty it
            // (TakeStuckWork, by Exchange). So a slot seen empty here stays empty until this store, and a release store
            // fills it without a locked instruction (a chain spawns once per item, so this is one atomic fewer per
            // item); it publishes the behaviour to whichever thread later takes it by Exchange.
            if (Atomic.Read(ref worker.Next) is null)
            {
                Atomic.Write(ref worker.Next, behaviour);
                return;
            }

            // A behaviour already waiting in the slot moves to the queue, where other workers can steal it, so wake one
            // if any sleeps. Exchange, not a plain store: an idle worker may be taking that item as stuck work.
            Behaviour? displaced = Atomic.Exchange(ref worker.Next, behaviour);
            if (displaced is not null)
            {
                PushLocal(worker, displaced);
                WakeOne();
            }

            return;
        }

        EnqueueFromOutside(behaviour);
    }

    /// <summary>
    /// Called before every spawn. If the calling worker's next slot is already full, the item running now made a
    /// behaviour ready earlier and is still going (it spawns again): it is not about to finish, so the waiting
    /// behaviour moves to the worker's queue, where an idle worker can take it, and one is woken; unless this spawn is
    /// known not to queue behind it (<paramref name="target"/>, below).
    /// </summary>
    /// <remarks>
    /// <para>
    /// Without this, a long body that spawns a stream of messages (a producer, Savina's Sleeping Barber factory) holds
    /// the first one it made ready in its next slot until it ends, and every behaviour queued behind that one on the
    /// same cown waits with it; only a parked peer's stuck-work poll took it over, one interval later. A body that
    /// spawns once and returns (a message chain) never gets here with a full slot, so chains keep the slot and pay no
    /// wake-up. Nothing but the owner fills the slot, and the owner takes it (empty) before each item it runs, so a
    /// full slot here was filled by the running item.
    /// </para>
    /// <para>
    /// The exception: a one-cown spawn (<paramref name="target"/>, its cown) while the slot holds a one-cown behaviour
    /// on another cown. The spawn cannot queue directly behind that behaviour (only through a behaviour on both cowns
    /// queued earlier, the rare case, which then waits as after any body's only spawn), so it stays to run next here,
    /// on the core that made it ready. This is the actor's reply-then-send: Chameneos' chameneo sends Change to its
    /// partner (ready: into the slot) and then Meet to the busy Mall; handing Change over sent it to the other worker,
    /// so each meeting crossed cores once more (<c>docs/performance/decisions.md</c>, "A spawn onto another cown keeps
    /// the next slot"). If the body then runs long, the behaviour waits for it (at worst until a parked peer's
    /// stuck-work poll), as after a body's only spawn. If the new spawn is ready it takes the slot and Dispatch moves
    /// the old one to the queue as before; with more cowns on either side (<paramref name="target"/> null, or a slot
    /// behaviour of another layout), the slot is handed over as before. The slot's behaviour is read without taking it,
    /// so a thief may take it meanwhile; its cown is then a stale hint, and either branch is safe: keeping leaves an
    /// emptied slot alone, and the hand-over's Exchange finds what is really there.
    /// </para>
    /// </remarks>
    /// <param name="thread">The calling thread's <see cref="BocThread"/>.</param>
    /// <param name="target">The spawn's cown if it requests exactly one (a one-cown append), else null (a batch, a pair).</param>
    /// <returns>The calling thread's index among this scheduler's workers, or -1 (see <see cref="WorkerIndexOf"/>).</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal int OnSpawn(BocThread thread, Cown? target)
    {
        Worker? worker = thread.Worker;
        if (worker is null || worker.Scheduler != this)
        {
            return -1;
        }

        if (Atomic.Read(ref worker.Next) is { } waiting)
        {
            HandOverUnlessApart(worker, waiting, target);
        }

        return worker.Index;
    }

    /// <summary>
    /// <see cref="OnSpawn(BocThread, Cown)"/> for one behaviour, <paramref name="spawn"/>: its cown is looked up only if
    /// the slot is full, so a spawn from outside the workers, or onto an empty slot, pays nothing for the exception.
    /// </summary>
    /// <param name="thread">The calling thread's <see cref="BocThread"/>.</param>
    /// <param name="spawn">The behaviour being spawned, its cowns sorted and merged.</param>
    /// <returns>The calling thread's index among this scheduler's workers, or -1.</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal int OnSpawn(BocThread thread, Behaviour spawn)
    {
        Worker? worker = thread.Worker;
        if (worker is null || worker.Scheduler != this)
        {
            return -1;
        }

        if (Atomic.Read(ref worker.Next) is { } waiting)
        {
            HandOverUnlessApart(worker, waiting, spawn.LoneCown);
        }

        return worker.Index;
    }

    /// <summary>
    /// The slow path of <see cref="OnSpawn(BocThread, Cown)"/>, with the slot seen full: moves <paramref name="waiting"/> to
    /// the queue and wakes a peer, unless it and the spawn are one-cown behaviours on different cowns.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void HandOverUnlessApart(Worker worker, Behaviour waiting, Cown? target)
    {
        if (target is not null && waiting.LoneCown is { } lone && !ReferenceEquals(lone, target))
        {
            return;
        }

        // Exchange: a parked peer may be taking the same item as stuck work.
        if (Atomic.Exchange(ref worker.Next, null) is { } taken)
        {
            PushLocal(worker, taken);
            WakeOne();
        }
    }
}
