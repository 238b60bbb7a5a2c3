using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Boc;

/// <summary>
/// The queue state a cown keeps for the protocol: the tail of its request queue, the count of active readers, and the
/// writer that holds the turn while it waits for them. A mutable struct embedded in <see cref="Cown"/> (never copied:
/// every use goes through <c>ref cown.Queue</c> or the field itself), so that its fields stay where the cown's layout puts
/// them, and private, so that the only ways to touch them are the named operations below (Behaviour.Turn.cs and
/// Behaviour.Enqueue.cs have the arguments that use them).
/// </summary>
/// <remarks>
/// <list type="table">
/// <listheader><term>operation</term><description>who, and the primitive</description></listheader>
/// <item><term><see cref="ExchangeTail"/></term><description>every spawn's phase 1 (and a batch's run): a full fence that
/// publishes the spawner's writes to whoever finds it at the tail.</description></item>
/// <item><term><see cref="TryClearTail"/></term><description>the release (PassOn) of the last request: compare-and-swap
/// from itself to empty; a failure means a spawner exchanged in behind it and is about to link.</description></item>
/// <item><term><see cref="TailHint"/></term><description>the appender (Appending/BocRuntime.Append.cs) and the runner's
/// hold on a filling tail: a racy read, a hint that the append's claim, not this read, decides on.</description></item>
/// <item><term><see cref="AddReader"/>, <see cref="RemoveReader"/></term><description>a reader counted in before the turn moves
/// past it, counted out when it leaves; the last one out while a writer waits hands that writer the cown.</description></item>
/// <item><term><see cref="HasNoReaders"/>, <see cref="TryParkWriter"/></term><description>the writer that holds the turn: with
/// active readers it parks itself as the pending writer with one CAS on the readers' word.</description></item>
/// </list>
/// </remarks>
internal struct CownQueue
{
    /// <summary>Flag in the readers' word: the pending writer waits for the readers to leave.</summary>
    internal const int WriterWaiting = 1 << 30;

    /// <summary>The behaviour most recently enqueued on this cown, or null when its queue is empty.</summary>
    private Behaviour? _last;

    /// <summary>The writer that holds the queue's turn but waits for active readers to leave.</summary>
    private Behaviour? _pendingWriter;

    /// <summary>Active readers in the low bits, plus <see cref="WriterWaiting"/> while a writer waits for them.</summary>
    private int _readState;

    /// <summary>Phase 1: makes <paramref name="behaviour"/> the tail; returns the previous tail (null: the queue was empty).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal Behaviour? ExchangeTail(Behaviour behaviour) => Atomic.Exchange(ref _last, behaviour);

    /// <summary>The release of <paramref name="tail"/> with no successor linked: empties the queue if it is still the tail.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool TryClearTail(Behaviour tail) => Atomic.CompareExchange(ref _last, null, tail) == tail;

    /// <summary>
    /// Gets the tail as a hint (the appender's read, and the runner's check that it is still the tail): stale as soon as
    /// it is read; whatever acts on it must be confirmed by a step of its own.
    /// </summary>
    internal readonly Behaviour? TailHint
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => Atomic.Read(in _last);
    }

    /// <summary>A reader that received the turn counts itself in, before the turn moves past it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void AddReader()
    {
        int readers = Atomic.Increment(ref _readState);
        Debug.Assert((readers & ~WriterWaiting) > 0 && (readers & WriterWaiting) == 0, "Boc protocol error: a reader joined while a writer held the turn.");
    }

    /// <summary>
    /// A reader leaves. Returns the pending writer if this was the last active reader and a writer waits for it: the
    /// caller then gives that writer the cown (the word and the writer's name are cleared here, the name first, so the
    /// next waiting writer's store is never overwritten). Otherwise null.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal Behaviour? RemoveReader()
    {
        int remaining = Atomic.Decrement(ref _readState);
        Debug.Assert((remaining & ~WriterWaiting) >= 0 && remaining >= 0, "Boc protocol error: a reader left that was not counted in.");
        return remaining == WriterWaiting ? TakePendingWriter() : null;
    }

    /// <summary>Gets whether no reader is active (the turn's holder reads it: with the turn held, no reader can join).</summary>
    internal readonly bool HasNoReaders
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => Atomic.Read(in _readState) == 0;
    }

    /// <summary>
    /// The writer that received the turn: returns false if no reader is active (the cown is the writer's now), or parks
    /// <paramref name="writer"/> as the pending writer and returns true (the last reader to leave hands it the cown).
    /// The name is published before the flag that makes a leaving reader look for it (the CAS is a full fence); if a
    /// reader leaves between the read and the CAS, the name is taken back and the word read again.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal bool TryParkWriter(Behaviour writer)
    {
        while (true)
        {
            int readers = Atomic.Read(ref _readState);
            if (readers == 0)
            {
                return false;
            }

            Debug.Assert((readers & WriterWaiting) == 0, "Boc protocol error: only the holder of the turn waits for readers.");
            Atomic.Write(ref _pendingWriter, writer);
            if (Atomic.CompareExchange(ref _readState, readers | WriterWaiting, readers) == readers)
            {
                return true;
            }

            // The flag is not set, so no reader reads the name: clear it, since if we now see zero the writer holds the
            // cown, finishes and may go back to the pool, where nothing may point at it (Pooling/Behaviour.Reuse.cs).
            Atomic.Write(ref _pendingWriter, null);
        }
    }

    /// <summary>
    /// The last reader left while a writer waits: nobody else can change the word now (no reader joins while the writer
    /// holds the turn), so plain release stores clear it.
    /// </summary>
    private Behaviour TakePendingWriter()
    {
        Behaviour? writer = Atomic.Read(ref _pendingWriter);
        Debug.Assert(writer is not null, "Boc protocol error: the readers' word said a writer waits, but none is named.");
        Atomic.Write(ref _pendingWriter, null);
        Atomic.Write(ref _readState, 0);
        return writer!;
    }

    /// <summary>Gets whether <paramref name="behaviour"/> is named as the pending writer (debug checks of the pool).</summary>
    internal readonly bool IsPendingWriter(Behaviour behaviour) => ReferenceEquals(Atomic.Read(in _pendingWriter), behaviour);

    /// <summary>A racy snapshot, for the debugger and the queue dump: the tail, the active readers, the pending writer.</summary>
    internal readonly (Behaviour? Tail, int Readers, bool WriterWaits, Behaviour? PendingWriter) Snapshot()
    {
        Behaviour? tail = Atomic.Read(in _last);
        int word = Atomic.Read(in _readState);
        Behaviour? pending = Atomic.Read(in _pendingWriter);
        return (tail, word & ~WriterWaiting, (word & WriterWaiting) != 0, pending);
    }
}
