namespace Boc;

/// <summary>
/// One behaviour's request on one cown: its place in that cown's queue (an edge of the paper's dependency graph). Slots
/// live inside the behaviour (see "Slot storage" on <see cref="Behaviour"/>), so a spawn allocates no request objects.
/// </summary>
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

    /// <summary>Flag in <see cref="Cown.ReadState"/>: <see cref="Cown.PendingWriter"/> waits for the readers to leave.</summary>
    internal const int WriterWaiting = 1 << 30;

    /// <summary>The cown this request is queued on; one per behaviour (slots are merged by cown).</summary>
    internal Cown Target;

    /// <summary>
    /// The behaviour queued after this one on <see cref="Target"/>; written once, by its spawner, after it saw
    /// <see cref="Scheduled"/> here (Behaviour.Link). Read by the release (PassOn), which waits for it when the tail CAS
    /// on <see cref="Cown.Last"/> shows that a successor exchanged itself in.
    /// </summary>
    internal Behaviour? Next;

    /// <summary>
    /// The request's state machine: independent bits, each set once per spawn with an atomic OR (or a plain store where
    /// no other thread can write the word yet), and cleared only when the behaviour returns to its pool.
    /// <list type="bullet">
    /// <item><see cref="Scheduled"/>: set by the spawner in phase 2 (Behaviour.FinishEnqueue; the one-cown path sets it
    /// before it links). From then on a successor may link to this request. Its ordering partner is the successor's
    /// acquire read in Behaviour.WaitUntilScheduled.</item>
    /// <item><see cref="Granted"/>: set on a reader's slot by whoever delivers the turn, after it counted the reader in
    /// <see cref="Cown.ReadState"/>. A reader passes the turn on once it has both <see cref="Scheduled"/> and
    /// <see cref="Granted"/>: whichever of the spawner's phase 2 and the deliverer sets the second bit does the pass
    /// (Behaviour.Turn.cs, "Readers").</item>
    /// <item><see cref="Held"/>: set on a cancellable writer's slot where it resolves its countdown unit holding the turn
    /// with no active readers.</item>
    /// <item><see cref="Withdrawn"/>: set by the canceller on every slot of a withdrawn behaviour. Whoever sets the
    /// second of {<see cref="Held"/>, <see cref="Withdrawn"/>} on a writer passes the turn on, and whoever sets the
    /// second of {<see cref="Granted"/>, <see cref="Withdrawn"/>} on a reader counts it out: exactly once each
    /// (Behaviour.Cancellation.cs).</item>
    /// </list>
    /// Possible words: 0 (linking) → Scheduled → Scheduled|Granted (a reader holding a share) or Scheduled|Held (a
    /// cancellable writer holding the cown); a reader granted during its own phase 1 goes 0 → Granted → Scheduled|Granted;
    /// the one-cown path, which has no phase 2, writes Scheduled|Granted or Scheduled|Held at once. Withdrawn joins any of these once the behaviour is withdrawn.
    /// </summary>
    internal int State;

    /// <summary>Whether this request only reads the cown (a <c>Read(c)</c> argument; merged duplicates read only if all do).</summary>
    internal bool IsRead;

#if DEBUG
    /// <summary>The generation of <see cref="Next"/> when it was linked (debug builds check links against it).</summary>
    internal int NextGeneration;
#endif
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
