using System.Runtime.CompilerServices;

namespace Boc;

// =====================================================================================================================
// Appending (BocRuntime.SpawnOne; AppendableActionBehaviour). A flood (one body spawning thousands of one-cown
// behaviours on a cown that is still busy with the earlier ones) would pay a whole behaviour per message: an object
// written on the spawner's core and read, written and recycled on the runner's, two or three cache-line transfers
// and a dispatch each. So a one-cown spawn from a plain fire-and-forget `When` may instead be *appended* to the
// behaviour at its cown's tail, if that behaviour is of the same class, on the same runtime, and has not started, and
// if the spawn only reads or the tail writes (a write never rides in a reader):
// its body is stored in that behaviour's list of appended bodies (up to MaxAppended), and the tail behaviour runs
// them, in append order, right after its own body and before it releases the cown. A message then costs one
// uncontended CAS and a 16-byte entry, and the runner reads several entries per cache line, as a mailbox does.
//   The append word (AppendableBehaviour's _appendState, one long): Open | Writing | count of appended bodies,
// and a generation in the high 32 bits.
//   * Opening. EnqueueOne opens the word (new generation, count 0, Open) right after its exchange of the cown's tail,
//     so the word is open only while the behaviour is queued and has not started: never before it is at the tail (an
//     append to a behaviour not yet enqueued would run the appended body at a place in the queue decided later, after
//     spawns that returned before it), and before anything can run it (the link comes after). It opens only if the
//     Exchange found a predecessor: a behaviour that found its queue empty is dispatched at once, leaving no time worth
//     appending in, and its run then closes nothing (a chain from cown to cown, each body spawning the next message on
//     an idle cown, pays no CAS). Nor does it open behind the body running on the spawning thread: a body that spawns
//     the next message on its own cown (a chain on one cown) would otherwise pay a CAS at every run to close a word
//     nobody appends to; a body that floods its own cown loses only its first spawn's chance to take appends.
//   * Appending (TryClaimAppend, then ReleaseAppend). The appender read the cown's tail and found the behaviour. It
//     reads the word: Open, not Writing, below MaxAppended, else it spawns normally. It checks that the behaviour's
//     cown and runtime are its own. Then one CAS sets Writing on exactly the word it read; it writes the entry; and a
//     release store publishes count + 1 and clears Writing. The generation makes the CAS fail if the behaviour ran,
//     went back to the pool and was reused meanwhile (its word now carries another generation), so everything read
//     between the word and the CAS belongs to the life that was open; and while Writing is set, the runner cannot close
//     the word, so the object cannot finish and be reused under the entry being written.
//   * Closing (CloseAppends). Run closes the word before the body starts: it waits while Writing is set, then one CAS
//     clears Open. The count it read is final: every appended body was written before its count was published, and
//     no append can succeed after the close. They run after the behaviour's own body, in index order; each failure is
//     kept and reported after the release, as a fire-and-forget failure is. Each appended body counts as a spawned
//     and a finished behaviour (pending count, bound, metrics), so quiescence and backpressure see each one.
//   * Holding a filling tail (HoldWhileFilling, before the close). A runner that reaches a behaviour whose word is
//     open, with some bodies appended and room for more, while the behaviour is still its cown's tail, has most likely
//     caught up with a spawner that is appending to it right now. Closing at once would cut the batch short: the
//     spawner's next spawn finds the word closed and pays a behaviour of its own, which the runner reaches as soon as
//     it is linked, and so on, one short batch after another, with the two cores trading the tail's cache lines at
//     every spawn (Count, one body flooding a counter with a million spawns: docs/performance/decisions.md, "Holding a
//     filling tail"). So on a BocScheduler worker, while nothing else is queued anywhere in its scheduler (no core has
//     other work to give this one), the runner first waits one poll interval at a time (FloodPolicy.PollSpins),
//     as long as each interval brings at least one more appended body; it stops when one does not, when the word is
//     full, or when work is queued.
//     It changes nothing that the argument relies on: the hold comes before the close, so the word, the claims and the
//     close are as described, and it only starts the behaviour later, which a busy scheduler may do anyway. Its reads
//     (the word, the tail, the queues) are hints without fences: a wrong guess costs one interval or one short batch.
//     Bounded: an interval that lets the hold go on has seen the count grow, and the count stops at MaxAppended, so the
//     hold lasts at most MaxAppended intervals; it waits for no other thread's step, so it cannot deadlock. Not on the
//     thread pool, whose idle threads are not known; and no hold without appends, so none under a spawn hook.
// Why appending keeps the protocol's guarantees:
//   * Order. An appended body runs exactly where the tail behaviour is in its cown's queue: after everything queued
//     before the tail, and before everything queued after it (the tail releases only after its appended bodies). An
//     append succeeds only if its spawner read the cown's tail and found the tail, and the CAS finds the tail still
//     open. A spawn X that happens-before the append made its Exchange before the appender's read of Last, so the
//     appender would have found X or a later tail, not this one; so X is queued ahead of the tail, and runs first. A
//     spawn that the append happens-before comes after the CAS, so it is queued after the tail, or appended after this
//     entry: it runs later. A spawn concurrent with the append (an Exchange between the appender's read and its CAS)
//     may end up behind the appended body: with no happens-before between them, either order is allowed, and the
//     appended body names only this cown, so no other queue has to agree with this one.
//   * Atomicity and exclusivity. The appended bodies run inside the tail behaviour's run, and with its access: a
//     writer's holds the cown exclusively, and TryClaimAppend (which checks the mode after the word, so it is the
//     open life's) lets only reads into a reader, so what runs beside a reader's run is other readers only. A read in
//     a writer runs alone, which a read may. A reader releases (drops the reader count that a writer behind it waits
//     for) only after its appended bodies, though it passed the turn on when it was granted, so a writer queued after
//     the tail still runs after every read appended to it. Appending a read trades parallelism for cost: it runs
//     after the tail's body on the tail's worker, where as a reader of its own it could have run beside it. So reads
//     ride only while no BocScheduler worker is idle (spinning or parked), when no core is free to run them beside it
//     anyway, and never on the thread pool (BocRuntime.ReadsMayAppend). That is a hint read without a fence: a wrong
//     guess costs parallelism or a behaviour, never correctness.
//   * Nothing lost, nothing twice. An entry is published under Writing with the word Open; the runner's close waits
//     for Writing to clear, so it reads a count that includes every published entry and no unpublished one, and runs
//     each once. A failed claim (word closed, full, Writing, or of another generation) writes nothing; the spawn then
//     enqueues a behaviour of its own.
//   * Deadlock freedom. The only wait is the runner's for an appender that holds Writing, which writes one entry and
//     releases it without waiting for anything.
//   * Bounds. A behaviour runs at most 1 + MaxAppended bodies. The scheduler's latency bounds count items, and a run
//     of appended bodies hands its worker over between two bodies once it has lasted its inbox slice while
//     work waits in the inbox or its worker's queue (AppendableBehaviour.cs, "Yielding"), so a flood stretches what
//     waiting work waits by at most that slice and FloodPolicy.CheckEvery bodies. A chain (each body spawning the next
//     on its own cown) never appends, since the tail it finds is its own behaviour, which is running and closed.
//   * Not under the controlled runtime of Boc.Testing (a spawn hook): there, every spawn is a scheduling point of its
//     own. Not while the start-delay histogram or behaviour tracing is on: those are per behaviour.
// =====================================================================================================================

internal abstract partial class Behaviour
{
    // ---------------------------------------------------------------------------------------------------------------
    // Appending (the top of this file). The word lives in the appendable classes (AppendableBehaviour's
    // _appendState), so that no other behaviour pays for it; every step on it is here.
    // ---------------------------------------------------------------------------------------------------------------

    /// <summary>How many bodies may be appended to one behaviour, besides its own.</summary>
    /// <remarks>
    /// 31 (a run of 32 bodies): floods of cheap messages amortize a behaviour over that many (Savina Count and
    /// Radixsort ran faster than with 7). When appending came, 31 made pipelines of expensive stages slower
    /// (Filterbank, Sieve) and the bound was cut to 7; on today's scheduler neither is slower with 31, and Filterbank's
    /// time is decided per process, whatever the bound (docs/performance/decisions.md, "Floods are appended" and "The
    /// append bound is 31", with the figures). Not more: 63 measured no faster, and each extra body lengthens the
    /// scheduler's latency bounds in bodies (docs/guide/dispatchers.md).
    /// </remarks>
    internal const int MaxAppended = 31;

    private const long AppendCountMask = 0xFF;
    private const long AppendOpen = 1 << 8;
    private const long AppendWriting = 1 << 9;
    private const long AppendGenerationMask = unchecked((long)0xFFFF_FFFF_0000_0000);
    private const long AppendGenerationUnit = 1L << 32;

    /// <summary>
    /// EnqueueOne, right after its Exchange made this behaviour the tail of a busy queue, and the general Enqueue, after
    /// phase 1 put a pair behind one behaviour on both cowns: an appendable class opens its word for this life
    /// (<see cref="OpenAppends(ref long)"/>); the base does nothing. (A virtual call rather than a flag: a flag would cost
    /// every behaviour eight bytes, and this runs only on a spawn behind a predecessor.)
    /// </summary>
    protected virtual void OpenAppends()
    {
    }

    /// <summary>Opens <paramref name="word"/>, an appendable behaviour's, for this life (see <see cref="OpenAppends()"/>).</summary>
    protected static void OpenAppends(ref long word)
    {
        // Plain read: the last life closed the word (or it is fresh, 0), and an appender only CASes an open word, so no
        // other thread writes it now. The release store publishes the open word after everything Init wrote (an
        // appender checks the cown and the runtime after reading it). A new generation, so that an appender still
        // holding a word of an earlier life fails its CAS.
        Atomic.Write(ref word, ((word & AppendGenerationMask) + AppendGenerationUnit) | AppendOpen);
    }

    /// <summary>
    /// Claims the right to append to this behaviour, found at <paramref name="cown"/>'s tail by a spawn on
    /// <paramref name="runtime"/> that only reads the cown if <paramref name="read"/>. On success the word is held
    /// Writing: the caller must end with <see cref="ReleaseAppend"/>, promptly (the runner waits for it).
    /// <paramref name="claimed"/> is the word as it was claimed.
    /// </summary>
    protected bool TryClaimAppend(ref long word, BocRuntime runtime, Cown cown, bool read, out long claimed)
    {
        long seen = Atomic.Read(ref word);
        claimed = seen;
        if (!LooksAppendable(seen))
        {
            return false;
        }

        // Read after the word: if the CAS below finds the same word (same generation), these belong to the life that
        // was open, queued on its cown's queue, and not started.
        // A write rides only in a writer: in a reader it would share the cown with the other readers. A read may ride
        // in either (in a writer it runs alone, which a read may).
        if (!ReferenceEquals(_first.Target, cown) || !ReferenceEquals(_runtime, runtime) || (!read && _first.IsRead))
        {
            return false;
        }

        // Full fence: the runner's close cannot pass it, and the entry written next cannot be seen before it.
        return Atomic.CompareExchange(ref word, seen | AppendWriting, seen) == seen;
    }

    /// <summary>
    /// <see cref="TryClaimAppend(ref long, BocRuntime, Cown, bool, out long)"/> for a pair: claims the right to append
    /// to this two-cown behaviour, found at the tail of both <paramref name="first"/> and <paramref name="second"/> by a
    /// spawn on <paramref name="runtime"/> that writes both, named in that order ("Appending", pairs).
    /// </summary>
    protected bool TryClaimPairAppend(ref long word, BocRuntime runtime, Cown first, Cown second, out long claimed)
    {
        long seen = Atomic.Read(ref word);
        claimed = seen;
        if (!LooksAppendable(seen))
        {
            return false;
        }

        // Read after the word, as for one cown. Two slots (distinct cowns, not merged into one), both writes, naming the
        // spawn's cowns in its argument order: an appended body takes the states in the order its spawn named them.
        if (_slotCount != 2 || !ReferenceEquals(PairCown(second: false), first) || !ReferenceEquals(PairCown(second: true), second)
            || _first.IsRead || SecondSlot.IsRead || !ReferenceEquals(_runtime, runtime))
        {
            return false;
        }

        // Full fence, as for one cown.
        return Atomic.CompareExchange(ref word, seen | AppendWriting, seen) == seen;
    }

    /// <summary>Gets whether this is a pair of distinct cowns, both written: the only pair that takes appends.</summary>
    protected bool IsWritePair => _slotCount == 2 && !_first.IsRead && !SecondSlot.IsRead;

    /// <summary>
    /// Gets whether <paramref name="word"/> looks claimable now (open, not being written, not full): a plain read, a hint
    /// that lets a spawn skip the claim's preparations when the tail has started (a chain) or is full; the claim itself
    /// decides.
    /// </summary>
    protected static bool LooksAppendable(long word) =>
        (word & (AppendOpen | AppendWriting)) == AppendOpen && (word & AppendCountMask) < MaxAppended;

    /// <summary>Gets how many bodies <paramref name="word"/> says are appended, if it is open (for the queue dump).</summary>
    protected static int OpenAppendedCount(long word) => (word & AppendOpen) != 0 ? (int)(word & AppendCountMask) : 0;

    /// <summary>Gets the index of the body that a claim returned by <see cref="TryClaimAppend"/> may write.</summary>
    internal static int AppendIndex(long claimed) => (int)(claimed & AppendCountMask);

    /// <summary>
    /// Ends a claim: publishes the body written at <see cref="AppendIndex"/> (count + 1) if <paramref name="published"/>,
    /// and lets the runner close the word. A release store: the runner that reads the new count sees the body.
    /// </summary>
    protected static void ReleaseAppend(ref long word, long claimed, bool published) => Atomic.Write(ref word, published ? claimed + 1 : claimed);

    /// <summary>
    /// Run, before the body: closes the word, and returns how many bodies were appended (0 without a CAS when it was
    /// never opened in this life). After the close no append succeeds, so the count is final. A tail that is still
    /// filling may first be held open for a few poll intervals (<see cref="HoldWhileFilling"/>).
    /// </summary>
    protected int CloseAppends(ref long word)
    {
        long seen = Atomic.Read(ref word);
        if ((seen & AppendOpen) == 0)
        {
            // Not opened in this life (the spawn found its queue empty): nobody can claim it.
            return 0;
        }

        // Some appended and room for more, and still the tail of its (first) cown: a spawner is most likely appending
        // now ("Holding a filling tail"). Plain reads: a hint.
        long count = seen & AppendCountMask;
        if (count != 0 && count < MaxAppended && ReferenceEquals(_first.Target.Queue.TailHint, this))
        {
            seen = HoldWhileFilling(ref word, seen);
        }

        var spin = default(SpinWait);
        while (true)
        {
            if ((seen & AppendWriting) == 0 && Atomic.CompareExchange(ref word, seen & ~AppendOpen, seen) == seen)
            {
                return (int)(seen & AppendCountMask);
            }

            // An appender is writing its body (or one claimed between our read and the CAS): it ends its claim without
            // waiting for anything, so this wait is short unless it was preempted.
            AwaitStep(ref spin, _first.Target);
            seen = Atomic.Read(ref word);
        }
    }

    /// <summary>
    /// The runner's hold on an open tail that a spawner is filling ("Holding a filling tail"): on a
    /// <see cref="BocScheduler"/> worker whose scheduler has nothing else to run, waits one poll interval at a time while
    /// each interval brings at least one more appended body, up to <see cref="MaxAppended"/>. Returns the word as last read.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long HoldWhileFilling(ref long word, long seen)
    {
        if (BocThread.CurrentOrNull?.Worker is not { } worker)
        {
            // The thread pool, or a drain after disposal: whether a thread is free for other work is not known here.
            return seen;
        }

        BocScheduler scheduler = worker.Scheduler;
        long count = seen & AppendCountMask;

        // At most MaxAppended intervals: each one that lets the hold go on has seen the count grow, and it stops at
        // MaxAppended.
        for (int interval = 0; interval < MaxAppended; interval++)
        {
            if (scheduler.HasOtherWork(worker))
            {
                break;
            }

            scheduler.Floods.PollHook?.Invoke();
            Atomic.Pause(FloodPolicy.PollSpins);
            seen = Atomic.Read(ref word);
            long grown = seen & AppendCountMask;
            if (grown == count || grown >= MaxAppended)
            {
                // No new body in a whole interval (the spawner has finished or paused), or no room left. (The word is
                // still open: only this runner closes it.)
                break;
            }

            count = grown;
        }

        return seen;
    }


    /// <summary>
    /// Gets or sets the array of appended bodies of an appendable class (see "Appending"). Set only by an
    /// appender holding the word's Writing bit, read only by the runner after it closed the word: the word orders both.
    /// </summary>
    protected object? AppendedBodies
    {
        get => _extras?.Appended;
        set => (_extras ??= new BehaviourExtras()).Appended = value;
    }

    /// <summary>
    /// Gets or sets an appendable class's record of where a yielded run of appended bodies stopped (see "Yielding"):
    /// kept with the pooled object, written by the runner before it queues the rest, read by whoever runs the rest.
    /// </summary>
    protected object? YieldedRun
    {
        get => _extras?.YieldedRun;
        set => (_extras ??= new BehaviourExtras()).YieldedRun = value;
    }

    /// <summary>Keeps a failure of an appended body, to be reported after the release (runner only).</summary>
    protected void KeepAppendedFailure(Exception error) => ((_extras ??= new BehaviourExtras()).AppendedFailures ??= []).Add(error);

    /// <summary>Takes the kept failures of appended bodies, if any (after the release).</summary>
    protected List<Exception>? TakeAppendedFailures()
    {
        if (_extras?.AppendedFailures is not { } failures)
        {
            return null;
        }

        _extras.AppendedFailures = null;
        return failures;
    }
}
