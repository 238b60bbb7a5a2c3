using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Boc;

/// <summary>
/// One behaviour's request on one cown: its place in that cown's queue (an edge of the paper's dependency graph). Slots
/// live inside the behaviour (see "Slot storage" on <see cref="Behaviour"/>), so a spawn allocates no request objects.
/// </summary>
/// <remarks>
/// <para>
/// The request's state word is private: every change is one of the transitions below, each a method named for the
/// protocol step that takes it, with the primitive that step needs (a plain store where no other thread can write the
/// word yet, a release store where no other thread writes it but one reads it, an atomic OR where two parties race),
/// and, in debug builds, a check that the step is legal from the word it found. The bits are independent, each set once
/// per spawn and cleared only when the behaviour returns to its pool:
/// </para>
/// <list type="table">
/// <listheader><term>bit</term><description>set by (transition), and what it arbitrates</description></listheader>
/// <item><term><see cref="Scheduled"/></term><description>the spawner, in phase 2 (<see cref="ScheduleWriter"/>,
/// <see cref="ScheduleWriterBesideDeliverer"/>, <see cref="ScheduleReader"/>; Behaviour.FinishEnqueue), or on the
/// one-cown path before it links (<see cref="ScheduleAlone"/>, <see cref="ScheduleGrantedAlone"/>,
/// <see cref="ScheduleHeldAlone"/>). From then on a successor may link here; its acquire partner is
/// <see cref="IsScheduled"/> (Behaviour.WaitUntilScheduled).</description></item>
/// <item><term><see cref="Granted"/></term><description>a reader's deliverer, after counting it in on the cown
/// (<see cref="Grant"/>, <see cref="GrantFromEmptyQueue"/>). Whoever of the spawner's phase 2 and the deliverer sets the
/// second of {Scheduled, Granted} passes the turn on (Behaviour.Turn.cs, "Readers").</description></item>
/// <item><term><see cref="Held"/></term><description>a cancellable writer's deliverer, where it resolves its unit holding
/// the turn with no active readers (<see cref="Hold"/>, <see cref="HoldFromEmptyQueue"/>).</description></item>
/// <item><term><see cref="Withdrawn"/></term><description>the canceller, after it won the behaviour's state
/// (<see cref="Withdraw"/>). Whoever sets the second of {Held, Withdrawn} on a writer passes the turn on, and whoever sets
/// the second of {Granted, Withdrawn} on a reader counts it out: exactly once each (Behaviour.Cancellation.cs).</description></item>
/// </list>
/// <para>
/// Possible words: 0 (linking) → Scheduled → Scheduled|Granted (a reader holding a share) or Scheduled|Held (a
/// cancellable writer holding the cown); a reader granted during its own phase 1 goes 0 → Granted → Scheduled|Granted,
/// and a writer held then (or by a leaving reader during phase 1) 0 → Held → Scheduled|Held; the one-cown path, which has
/// no phase 2, writes Scheduled|Granted or Scheduled|Held at once. Withdrawn joins a Scheduled word once the behaviour
/// is withdrawn (the canceller runs only after the spawn). Granted is only ever a reader's bit and Held a writer's.
/// </para>
/// </remarks>
internal struct Slot
{
    /// <summary>Set in phase 2: the spawner has finished phase 1, so a successor may link to this request.</summary>
    internal const int Scheduled = 1;

    /// <summary>A reader has received the turn (it still has to pass it on, if not done yet).</summary>
    internal const int Granted = 2;

    /// <summary>
    /// A writer of a cancellable behaviour holds the turn with no active readers (where it resolves its countdown); set
    /// only on cancellable behaviours' writer slots, as the deliverer's half of the withdrawal arbitration.
    /// </summary>
    internal const int Held = 4;

    /// <summary>
    /// The behaviour was withdrawn (set by the canceller, after it won the behaviour's state; see
    /// Protocol/Behaviour.Cancellation.cs).
    /// </summary>
    internal const int Withdrawn = 8;

    /// <summary>The cown this request is queued on; one per behaviour (slots are merged by cown). Set-up data.</summary>
    internal Cown Target;

    /// <summary>Whether this request only reads the cown (a <c>Read(c)</c> argument; merged duplicates read only if all do). Set-up data.</summary>
    internal bool IsRead;

    /// <summary>
    /// The behaviour queued after this one on <see cref="Target"/>; written once, by its spawner, after it saw
    /// <see cref="Scheduled"/> here (<see cref="Link"/>), or by a batch's spawner before it publishes the run
    /// (<see cref="LinkBeforePublication"/>). Read by the release (<see cref="ReadNext"/>), which waits for it when the
    /// tail CAS shows that a successor exchanged itself in.
    /// </summary>
    private Behaviour? _next;

    /// <summary>The request's state word (the remarks have its transitions).</summary>
    private int _state;

#if DEBUG
    /// <summary>The generation of the successor when it was linked (debug builds check links against it).</summary>
    private int _nextGeneration;

    /// <summary>Gets the generation of the successor when it was linked.</summary>
    internal readonly int NextGeneration => _nextGeneration;
#endif

    // ---- Set-up and reuse (no other thread can reach the slot).

    /// <summary>A new request's protocol state: unlinked, no bit set (AddRequest, on a behaviour fresh from the pool).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void ResetProtocolState()
    {
        _next = null;
        _state = 0;
    }

    /// <summary>Clears the slot for the pool, keeping <see cref="Target"/> (a warm spare's: see Pooling/Behaviour.Reuse.cs).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void ClearKeepingTarget()
    {
        _next = null;
        _state = 0;
        IsRead = false;
#if DEBUG
        _nextGeneration = 0;
#endif
    }

    // ---- Scheduled.

    /// <summary>Gets whether the request is Scheduled: an acquire read, the successor's partner of every Schedule step.</summary>
    internal readonly bool IsScheduled
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => (Atomic.Read(in _state) & Scheduled) != 0;
    }

    /// <summary>
    /// Phase 2 of a writer that is not cancellable: Scheduled, keeping a Held this thread may have set in phase 1. A
    /// release store, not an atomic OR: without a canceller, no other thread writes a writer's word.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void ScheduleWriter()
    {
        int word = _state;
        AssertLegal(!IsRead && (word & ~Held) == 0, word, "a writer is Scheduled once, in phase 2, with at most Held set");
        Atomic.Write(ref _state, word | Scheduled);
    }

    /// <summary>
    /// Phase 2 of a cancellable writer: Scheduled with an atomic OR, since a predecessor's release may be setting Held
    /// on the word at the same moment.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void ScheduleWriterBesideDeliverer()
    {
        int old = Atomic.Or(ref _state, Scheduled);
        AssertLegal(!IsRead && (old & ~Held) == 0, old, "a writer is Scheduled once, in phase 2, with at most Held set");
    }

    /// <summary>
    /// Phase 2 of a reader: Scheduled with an atomic OR, racing the deliverer's <see cref="Grant"/>. Returns true if the
    /// reader was Granted first: the caller (the spawner) then passes the turn on.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool ScheduleReader()
    {
        int old = Atomic.Or(ref _state, Scheduled);
        AssertLegal(IsRead && (old & ~Granted) == 0, old, "a reader is Scheduled once, in phase 2, with at most Granted set");
        return (old & Granted) != 0;
    }

    /// <summary>
    /// The one-cown path, behind a predecessor (before the link) or as a writer about to wait for readers: Scheduled, with
    /// a release store that publishes everything the spawn wrote. Nobody else writes the word yet (no predecessor can
    /// reach it, no canceller exists).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void ScheduleAlone()
    {
        AssertLegal(_state == 0, _state, "the one-cown path schedules a fresh word");
        Atomic.Write(ref _state, Scheduled);
    }

    /// <summary>The one-cown path, a reader that took the turn from an empty queue and counted itself in: Scheduled|Granted at once.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void ScheduleGrantedAlone()
    {
        AssertLegal(IsRead && _state == 0, _state, "the one-cown path grants a fresh reader word");
        Atomic.Write(ref _state, Scheduled | Granted);
    }

    /// <summary>The one-cown path, a writer that took the turn from an empty queue with no active readers: Scheduled|Held at once.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void ScheduleHeldAlone()
    {
        AssertLegal(!IsRead && _state == 0, _state, "the one-cown path holds a fresh writer word");
        Atomic.Write(ref _state, Scheduled | Held);
    }

    // ---- The turn.

    /// <summary>
    /// Phase 1, a reader that took the turn from an empty queue (and counted itself in): Granted, by a plain store (no
    /// predecessor exists, so nobody else writes the word; phase 2's atomic OR publishes it).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void GrantFromEmptyQueue()
    {
        AssertLegal(IsRead && _state == 0, _state, "a reader takes the turn from an empty queue in phase 1, on a fresh word");
        _state = Granted;
    }

    /// <summary>
    /// Phase 1, a writer that took the turn from an empty queue with no active readers: Held, by a plain store (no
    /// predecessor, and no canceller before Enqueue returns).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void HoldFromEmptyQueue()
    {
        AssertLegal(!IsRead && _state == 0, _state, "a writer takes the turn from an empty queue in phase 1, on a fresh word");
        _state = Held;
    }

    /// <summary>
    /// A reader's deliverer, after counting it in: Granted, racing the spawner's phase 2 and the canceller. Returns the
    /// word before (the caller passes the turn on if Scheduled was set, and counts out again if Withdrawn was).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal int Grant()
    {
        int old = Atomic.Or(ref _state, Granted);
        AssertLegal(IsRead && (old & (Granted | Held)) == 0 && ((old & Withdrawn) == 0 || (old & Scheduled) != 0), old, "a reader is Granted once");
        return old;
    }

    /// <summary>
    /// A cancellable writer's deliverer, holding the turn with no active readers: Held, racing the canceller. Returns the
    /// word before (the caller passes the turn on if Withdrawn was set).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal int Hold()
    {
        int old = Atomic.Or(ref _state, Held);
        AssertLegal(!IsRead && (old & (Granted | Held)) == 0 && ((old & Withdrawn) == 0 || (old & Scheduled) != 0), old, "a writer is Held once");
        return old;
    }

    // ---- Withdrawal.

    /// <summary>
    /// The canceller (having won the behaviour's state, after the spawn): Withdrawn. Returns the word before: a writer's
    /// Held, or a reader's Granted, means the canceller acts for the turn already delivered.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal int Withdraw()
    {
        int old = Atomic.Or(ref _state, Withdrawn);
        AssertLegal((old & (Withdrawn | Scheduled)) == Scheduled, old, "a slot is Withdrawn once, after its spawn");
        return old;
    }

    /// <summary>Gets whether the canceller has withdrawn the request (an acquire read: GrantWrite, before it waits for readers).</summary>
    internal readonly bool IsWithdrawn
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => (Atomic.Read(in _state) & Withdrawn) != 0;
    }

    // ---- The link to the successor.

    /// <summary>
    /// Phase 1's link: makes <paramref name="next"/> (of pool generation <paramref name="generation"/>) this request's
    /// successor, with a release store (the release reads it and then touches the successor). Only after
    /// <see cref="IsScheduled"/> was seen.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void Link(Behaviour next, int generation)
    {
        AssertLegal(_next is null && (_state & Scheduled) != 0, _state, "a successor links once, behind a Scheduled request");
#if DEBUG
        _nextGeneration = generation;
#endif
        _ = generation;
        Atomic.Write(ref _next, next);
    }

    /// <summary>A batch's link inside its run on one cown: a plain store, before the Exchange that publishes the run.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void LinkBeforePublication(Behaviour next, int generation)
    {
        AssertLegal(_next is null && _state == 0, _state, "a batch links its run before any step on it");
#if DEBUG
        _nextGeneration = generation;
#endif
        _ = generation;
        _next = next;
    }

    /// <summary>Reads the successor (an acquire read: the release then touches it), or null if none has linked yet.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal readonly Behaviour? ReadNext() => Atomic.Read(in _next);

    /// <summary>A racy read of the word, for the queue dump only.</summary>
    internal readonly int StateForDiagnostics => Atomic.Read(in _state);

    /// <summary>Debug builds: fails a transition taken from a word it is not legal from.</summary>
    [Conditional("DEBUG")]
    private static void AssertLegal(bool legal, int word, string rule)
    {
        if (!legal)
        {
            Debug.Fail($"Boc protocol error: illegal slot transition from word {word} ({rule}).");
        }
    }
}

/// <summary>Where a behaviour keeps its slots (see "Slot storage" on <see cref="Behaviour"/>).</summary>
internal enum SlotLayout : byte
{
    /// <summary>One slot, the base class's inline one.</summary>
    One,

    /// <summary>Two slots: the base class's inline one, and the second that two-cown behaviour classes declare.</summary>
    Pair,

    /// <summary>Every slot in the array kept with the pooled object (three or more cowns, or a dynamic cown list).</summary>
    Overflow,
}
