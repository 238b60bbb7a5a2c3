using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using Boc.Dispatch;

namespace Boc;

// =====================================================================================================================
// The BoC protocol: how a behaviour is enqueued on its cowns, learns it may run, runs, and lets the next one in. The
// overview and the vocabulary (behaviour, request, the turn) are in docs/internals/protocol.md; each part's invariants
// and its proof open the file that implements it:
//   * Protocol/Behaviour.Enqueue.cs - the spawn (two-phase enqueue, the one-cown path) and why the protocol is
//     ordered, atomic, deadlock free and exactly-once;
//   * Protocol/Behaviour.Turn.cs - completion: passing the turn on, readers, granting a waiting writer;
//   * Protocol/Behaviour.Run.cs - running the body and finishing (release, outcome, count);
//   * Protocol/Behaviour.Batch.cs - a batch spawned as one step;
//   * Protocol/Behaviour.Cancellation.cs - withdrawing a cancellable behaviour;
//   * Appending/Behaviour.Appending.cs - bodies appended to the behaviour at a cown's tail;
//   * Pooling/Behaviour.Reuse.cs - when a behaviour may go back to its pool.
// The queue state of a cown (Protocol/CownQueue.cs) and a request's state word and link (Protocol/Slot.cs) are private
// to their types: these files change them only through the named operations and transitions those types define, which
// debug builds check. Diagnostics/Behaviour.Diagnostics.cs only reads that state, through their racy snapshots, for the
// debugging dump Cown.DescribeQueue; its metrics and tracing hooks in Run and Finish touch only the behaviour's own
// diagnostics fields, so nothing in the protocol depends on them.
//
// This file: the behaviour's fields, its set-up (Prepare, AddRequest, on an object fresh from the pool) and where its
// slots live. Invariants of the fields:
//   * _slotCount slots, sorted by Cown.Id with no cown twice once the spawn has sorted and merged them (SortAndMerge);
//     the slot for a cown is found by looking the cown up (SlotFor), since a cown appears in a behaviour at most once.
//   * _countdown counts the units the behaviour still waits for (one per slot that has not received the turn, plus
//     the spawner's extra unit during a general spawn); whoever brings it to zero dispatches the behaviour, once.
// =====================================================================================================================

/// <summary>
/// A spawned behaviour: its request slots, its countdown, and (in derived classes) its body. Derived classes are
/// generated per arity and body shape (<c>Generated/Kinds.*.g.cs</c>); all queue logic is in this class.
/// </summary>
internal abstract partial class Behaviour : IThreadPoolWorkItem
{
    // Slot storage. A slot is 24 bytes, and every byte of a behaviour is paid per pending behaviour: a flood (one body
    // spawning a million one-cown behaviours that another worker runs) keeps hundreds of thousands pending, and its time
    // goes mostly to the GC copying them and to cache misses on them. So the base class carries exactly one inline slot
    // (what one-cown behaviours, the most common kind, need); the generated two-cown classes declare the second
    // (SecondSlot), so a pair costs no array and no slot is carried by a behaviour that does not use it; three or more
    // cowns, or a dynamic list, use an array kept with the pooled object, so steady-state reuse allocates nothing. The
    // same reasoning moved the rarely used fields (that array, an async body's continuation, a cancellation) into one
    // side object (_extras), and lets one- and two-cown classes find their cowns in their slots instead of keeping a
    // second reference (docs/performance/decisions.md, "Smaller pending behaviours"; SlotLayoutTests pins the sizes).

    // Cross-thread waits in the protocol (for a predecessor's Scheduled flag, for a successor's link, for an appender's
    // Writing bit) last nanoseconds unless the other thread was preempted mid-step. SpinWait yields the core after its
    // first few iterations, and never sleeps (-1): the thread waited for is running or runnable, so a yield is all it
    // needs. A threshold of 100 (then Thread.Sleep(1) at every later iteration) let two workers each wait for a step of
    // the other while the other slept: each woke a millisecond later to find its partner now asleep in its own wait,
    // a convoy in which Dining Philosophers (full) crawled (both workers seen in Thread.Sleep inside bodies, issue 39;
    // docs/performance/decisions.md, "Protocol waits never sleep").
    // ProtocolWaitTests pins a partner mid-step and checks that its waiter keeps yielding.
    private const int LongWaitSleepThreshold = -1;
    private const int InsertionSortLimit = 16;

    private Slot _first;
    private SlotLayout _layout;

    /// <summary>Set by <see cref="SortAndMergePair"/> when the cowns' order by id is the reverse of the arguments'.</summary>
    private bool _pairSwapped;
    private int _slotCount;
    private int _countdown;
    private BocRuntime? _runtime;

    /// <summary>
    /// What only some behaviours need (a slot array, an asynchronous body's continuation, a cancellation), off the
    /// common object because every byte of a behaviour is paid per pending behaviour in a flood. Created when first
    /// needed and kept with the pooled object, so steady-state reuse allocates nothing.
    /// </summary>
    private BehaviourExtras? _extras;

#if DEBUG
    /// <summary>Incremented each time the behaviour returns to its pool (debug builds check links against it).</summary>
    private int _generation;
#endif

    /// <summary>The pool generation that links to <paramref name="behaviour"/> are stamped with (0 in release builds).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
#if DEBUG
    private static int GenerationOf(Behaviour behaviour) => behaviour._generation;
#else
    private static int GenerationOf(Behaviour behaviour)
    {
        _ = behaviour;
        return 0;
    }
#endif

    /// <summary>Set when the body starts (see <see cref="WaitsFor"/>); cleared when the behaviour returns to its pool.</summary>
    private bool _started;

    /// <summary>
    /// Gets the spawn's withdrawal arbiter (a <c>WhenAsync</c> given a token that can be canceled, or a member of a
    /// <see cref="BocScope"/>), or null: the common case, in which no step of the protocol does anything for
    /// cancellation beyond reading this. Set before Enqueue.
    /// </summary>
    private Withdrawal? Cancellation => _extras?.Cancellation;

    /// <summary>Gets the slot array of the <see cref="SlotLayout.Overflow"/> layout.</summary>
    private Slot[]? Overflow => _extras?.Overflow;

#if DEBUG
    private bool _pooled;
#endif

    /// <summary>Gets the runtime this behaviour was spawned on.</summary>
    protected BocRuntime Runtime => _runtime!;

    /// <summary>
    /// Gets the cown of a behaviour spawned on exactly one cown: its only request, which stays in inline slot 0 (one
    /// request is neither sorted nor merged) until the behaviour returns to the pool.
    /// </summary>
    protected Cown OnlyCown => _first.Target;

    /// <summary>
    /// Gets the cown of a behaviour of the one-cown layout, or null for any other layout (where finding whether two
    /// behaviours share a cown would take more than one compare). The scheduler reads it on the behaviour in its next
    /// slot (<see cref="BocScheduler.OnSpawn(BocThread, Cown)"/>) while a thief may be taking that one: there it is a
    /// hint, and a stale value only picks the other, always safe, branch.
    /// </summary>
    internal Cown? LoneCown => _layout == SlotLayout.One ? _first.Target : null;

    /// <summary>
    /// The cown a two-cown behaviour's first or <paramref name="second"/> argument named, found in its slots once
    /// <see cref="SortAndMergePair"/> has ordered them (both arguments name the one merged slot if they were the same cown).
    /// </summary>
    protected Cown PairCown(bool second)
    {
        if (_slotCount == 1)
        {
            return _first.Target;
        }

        return second != _pairSwapped ? SecondSlot.Target : _first.Target;
    }

    /// <summary>
    /// Gets the second slot of a two-cown behaviour class (its <see cref="SlotLayout.Pair"/> storage). Only classes that
    /// pass <c>pair: true</c> to <see cref="Prepare"/> override it; the base is never reached otherwise.
    /// </summary>
    protected virtual ref Slot SecondSlot => throw new InvalidOperationException("Boc protocol error: this behaviour has no inline second slot.");


    /// <summary>The rarely needed parts of a behaviour (see <see cref="_extras"/>).</summary>
    private sealed class BehaviourExtras
    {
        /// <summary>Every slot, in the <see cref="SlotLayout.Overflow"/> layout.</summary>
        internal Slot[]? Overflow;

        /// <summary>An asynchronous body's continuation, created on the first one this object runs.</summary>
        internal BodyTaskCompletion? BodyTask;

        /// <summary>The current spawn's withdrawal arbiter; cleared when the behaviour returns to its pool.</summary>
        internal Withdrawal? Cancellation;

        /// <summary>
        /// The scope the current spawn belongs to (Scopes/Behaviour.Scope.cs), or null; cleared when the behaviour returns
        /// to its pool. Here rather than on the behaviour: a field there would cost every pending behaviour eight bytes.
        /// </summary>
        internal BocScope? Scope;

        /// <summary>The arbiter of this object's lives as a scope member, created on its first and reused by each.</summary>
        internal ScopeMembership? Membership;

        /// <summary>An appendable behaviour's appended bodies (an array of its entry type), created on the first append.</summary>
        internal object? Appended;

        /// <summary>Failures of appended bodies, kept to be reported after the release; cleared when reported.</summary>
        internal List<Exception>? AppendedFailures;

        /// <summary>An appendable behaviour's record of a yielded run (see "Yielding"), created on its first yield.</summary>
        internal object? YieldedRun;
    }


    // ---------------------------------------------------------------------------------------------------------------
    // Set-up: the generated Init methods call Prepare, then AddRequest per cown, on a behaviour fresh from the pool.
    // ---------------------------------------------------------------------------------------------------------------

    /// <summary>
    /// Prepares the behaviour for a spawn that names <paramref name="capacity"/> cowns (duplicates included);
    /// <paramref name="pair"/> says the derived class declares <see cref="SecondSlot"/> (two-cown classes).
    /// </summary>
    protected void Prepare(BocRuntime runtime, int capacity, bool pair = false)
    {
        AssertLive();

        // Compared first: a warm spare (BocThread.Spare) still holds the runtime, and storing the same reference again
        // costs a GC write barrier call, which a compare of a line already in this core's cache does not.
        if (!ReferenceEquals(_runtime, runtime))
        {
            _runtime = runtime;
        }

        _slotCount = 0;
        _layout = capacity == 1 ? SlotLayout.One : capacity == 2 && pair ? SlotLayout.Pair : SlotLayout.Overflow;
        _pairSwapped = false;
        if (_layout == SlotLayout.Overflow)
        {
            BehaviourExtras extras = _extras ??= new BehaviourExtras();
            if (extras.Overflow is null || extras.Overflow.Length < capacity)
            {
                // Kept with the pooled behaviour, so steady-state reuse at the same size allocates nothing.
                extras.Overflow = new Slot[capacity];
            }
        }
    }

    /// <summary>
    /// Adds the request that a <c>When</c> argument (an <see cref="IAcquirable{T}"/>) makes, without an interface call
    /// (<see cref="Acquisition"/>); called by derived Init methods, in argument order. Returns the cown.
    /// </summary>
    protected Cown AddRequest(object acquirable)
    {
        Cown cown = Acquisition.CownOf(acquirable, out bool isRead);
        AddRequest(cown, isRead);
        return cown;
    }

    /// <summary>Adds a request; called by derived Init methods, in argument order.</summary>
    protected void AddRequest(Cown cown, bool isRead)
    {
        ref Slot slot = ref SlotAt(_slotCount);
        _slotCount++;

        // Compared first, as the runtime in Prepare: a warm spare spawned onto the cown of its last life keeps it.
        if (!ReferenceEquals(slot.Target, cown))
        {
            slot.Target = cown;
        }

        slot.IsRead = isRead;
        slot.ResetProtocolState();
    }


    // ---------------------------------------------------------------------------------------------------------------
    // Slots
    // ---------------------------------------------------------------------------------------------------------------

    private ref Slot SlotAt(int index)
    {
        if (_layout == SlotLayout.Overflow)
        {
            return ref Overflow![index];
        }

        if (index == 0)
        {
            return ref _first;
        }

        return ref SecondSlot;
    }

    /// <summary>This behaviour's slot for <paramref name="cown"/>, which it is known to request.</summary>
    private ref Slot SlotFor(Cown cown)
    {
        if (_layout != SlotLayout.Overflow)
        {
            // At most two slots.
            if (ReferenceEquals(_first.Target, cown))
            {
                return ref _first;
            }

            if (_slotCount == 2)
            {
                ref Slot second = ref SecondSlot;
                if (ReferenceEquals(second.Target, cown))
                {
                    return ref second;
                }
            }

            throw SlotMissing();
        }

        // Slots are sorted by id: binary search.
        Slot[] slots = Overflow!;
        long id = cown.Id;
        int lo = 0;
        int hi = _slotCount - 1;
        while (lo <= hi)
        {
            int mid = (lo + hi) >>> 1;
            long midId = slots[mid].Target.Id;
            if (midId == id)
            {
                return ref slots[mid];
            }

            if (midId < id)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid - 1;
            }
        }

        throw SlotMissing();
    }

    /// <summary>
    /// Whether this behaviour cannot start before <paramref name="holder"/>, a behaviour whose body is running, has
    /// finished: this one has not started, and requests a cown that <paramref name="holder"/> holds, with at least one
    /// of the two writing it. It is then queued behind <paramref name="holder"/> on that cown: it cannot be ahead,
    /// since a conflicting request ahead is released only after its body, and this body has not run. So a body that
    /// waits for this behaviour waits for itself. Read-only, for that diagnosis (an await or a block inside a body);
    /// waits through other behaviours (cycles) are not seen.
    /// </summary>
    /// <remarks>
    /// <paramref name="holder"/> is running, so its slots are stable; this behaviour's are stable while its result
    /// is untaken, which the caller checks. <see cref="_started"/> is written before the body starts and read after
    /// the holder acquired the shared cown, which the started behaviour's release happened-before.
    /// </remarks>
    internal bool WaitsFor(Behaviour holder)
    {
        if (ReferenceEquals(this, holder))
        {
            // A body waiting for its own completion.
            return true;
        }

        if (Atomic.Read(ref _started))
        {
            return false;
        }

        // Both slot lists are sorted by cown id: one merge pass.
        int mine = _slotCount;
        int theirs = holder._slotCount;
        int i = 0;
        int j = 0;
        while (i < mine && j < theirs)
        {
            ref Slot wantedSlot = ref SlotAt(i);
            ref Slot heldSlot = ref holder.SlotAt(j);
            Cown? wanted = wantedSlot.Target;
            Cown? held = heldSlot.Target;
            if (wanted is null || held is null)
            {
                // Only a misuse (an untaken result taken concurrently) can clear slots under us: no diagnosis.
                return false;
            }

            if (wanted.Id < held.Id)
            {
                i++;
            }
            else if (wanted.Id > held.Id)
            {
                j++;
            }
            else
            {
                if (!(wantedSlot.IsRead && heldSlot.IsRead))
                {
                    return true;
                }

                i++;
                j++;
            }
        }

        return false;
    }

    private static InvalidOperationException SlotMissing() =>
        new("Boc protocol error: a behaviour reached through a cown does not request that cown.");

    /// <summary>
    /// Step 0: sort by cown id and merge duplicates (write wins), so every spawner visits cowns in one global order
    /// and no behaviour is ever queued twice on one cown (it would wait on itself forever).
    /// </summary>
    private void SortAndMerge()
    {
        if (_slotCount < 2)
        {
            return;
        }

#if BOC_MODEL
        if (ModelMutations.Is(ModelMutations.SpawnInArgumentOrder))
        {
            return;
        }
#endif

        if (_layout == SlotLayout.Pair)
        {
            SortAndMergePair();
            return;
        }

        Span<Slot> slots = Overflow.AsSpan(0, _slotCount);
        if (slots.Length > InsertionSortLimit)
        {
            // Large dynamic sets: O(n log n). Ids are unique per cown, so equal keys are the same cown.
            slots.Sort(static (x, y) => x.Target.Id.CompareTo(y.Target.Id));
        }
        else
        {
            // Insertion sort: arities are small, and this allocates nothing.
            for (int i = 1; i < slots.Length; i++)
            {
                Slot current = slots[i];
                long id = current.Target.Id;
                int j = i - 1;
                while (j >= 0 && slots[j].Target.Id > id)
                {
                    slots[j + 1] = slots[j];
                    j--;
                }

                slots[j + 1] = current;
            }
        }

        int kept = 0;
        for (int i = 0; i < slots.Length; i++)
        {
            if (kept > 0 && ReferenceEquals(slots[kept - 1].Target, slots[i].Target))
            {
                slots[kept - 1].IsRead &= slots[i].IsRead;
                continue;
            }

            slots[kept++] = slots[i];
        }

        slots[kept..].Clear();
        _slotCount = kept;
    }

    /// <summary><see cref="SortAndMerge"/> for the inline pair: one comparison.</summary>
    private void SortAndMergePair()
    {
        ref Slot second = ref SecondSlot;
        if (ReferenceEquals(_first.Target, second.Target))
        {
            _first.IsRead &= second.IsRead;
            second = default;
            _slotCount = 1;
        }
        else if (_first.Target.Id > second.Target.Id)
        {
            (_first, second) = (second, _first);
            _pairSwapped = true;
        }
    }

    /// <summary>
    /// One iteration of a cross-thread wait on <paramref name="cown"/> for another thread's protocol step (a
    /// predecessor's Scheduled flag, a successor's link, an appender's Writing bit): spin, then yield, never sleep
    /// (<see cref="LongWaitSleepThreshold"/>).
    /// </summary>
    private static void AwaitStep(ref SpinWait spin, Cown cown)
    {
#if DEBUG
        ProtocolTestHooks.Waiting?.Invoke(cown, spin.Count);
#endif
        Atomic.SpinOnce(ref spin, LongWaitSleepThreshold);
    }
}
