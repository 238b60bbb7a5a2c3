using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Boc.Scheduling;

/// <summary>
/// One worker's run queue: a bounded FIFO ring that only its owner pushes to, and that its owner and thieves take from.
/// Thieves take half of it in one step (<see cref="StealHalfInto"/>), so an idle worker that steals gets a batch of
/// work rather than one item, and the next steal is rarely needed.
/// </summary>
/// <remarks>
/// <para>
/// The design is the Go runtime's per-P run queue. <c>_tail</c> is written only by the owner; <c>_head</c> moves only
/// forward, by compare-and-swap, from any consumer. Indices are free-running 32-bit counters: <c>tail - head</c> is the
/// number of items even after they wrap, because it never exceeds <see cref="Capacity"/>.
/// </para>
/// <para>
/// Why a consumer may read a slot before its CAS claims it: it reads <c>_items[head]</c> for a head value h, then tries
/// to move head from h. The owner writes slot <c>t</c> only after seeing <c>t - head &lt; Capacity</c>; for it to
/// overwrite the slot of index h it must be pushing index h + Capacity, so it must have seen head &gt; h. Head never
/// moves back, so if the consumer's CAS from h succeeds, head was still h and the slot still held index h's item. A
/// stale read is only ever followed by a failed CAS, and is discarded.
/// </para>
/// <para>
/// Memory ordering (x64 and ARM64 alike): the owner stores the item, then publishes it with a release store of
/// <c>_tail</c>; consumers read <c>_tail</c> with an acquire load before reading items, so a published item is seen
/// whole. The CAS on <c>_head</c> is a full fence; the owner's acquire read of <c>_head</c> before a push orders its
/// later slot write after the consumer's read of that slot (the consumer's CAS released it).
/// </para>
/// </remarks>
internal sealed class RunQueue
{
    /// <summary>The most items the queue holds; a power of two (shrunk to a few in model builds, to reach its edges).</summary>
#if BOC_MODEL
    internal const int Capacity = 4;
#else
    internal const int Capacity = 256;
#endif

    private const int Mask = Capacity - 1;

    // Entries, not a plain object?[]: storing a reference into an object?[] goes through the covariant array-store
    // check, which reads the stored object's type. A behaviour arriving from another thread is cold in this core's
    // cache, so moving a batch from the inbox paid a cache miss per item in that check, before the item's run needed
    // the line at all (docs/performance/decisions.md, "Prefetching the next behaviour").
    private readonly Entry[] _items = new Entry[Capacity];

    // Taken from by every consumer; written by CAS only.
    private int _head;

    // Written only by the owner, with release semantics.
    private int _tail;

    /// <summary>Gets whether the queue looked empty at the moment of the call (any thread).</summary>
    internal bool IsEmpty
    {
        // Inlined into the worker loop's take (NextItem), as it was before the atomics facade: the facade's wrappers
        // count against the inliner's budget there.
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => Atomic.Read(ref _tail) == Atomic.Read(ref _head);
    }

    /// <summary>Gets an estimate of the number of queued items (any thread).</summary>
    internal int Count
    {
        get
        {
            int head = Atomic.Read(ref _head);
            int count = Atomic.Read(ref _tail) - head;
            return count < 0 ? 0 : Math.Min(count, Capacity);
        }
    }

    /// <summary>Any thread: the items queued at about this moment, for debuggers (nothing is taken).</summary>
    internal List<object> Snapshot()
    {
        var items = new List<object>();
        int head = Atomic.Read(ref _head);
        int tail = Atomic.Read(ref _tail);
        for (int i = head; i != tail && items.Count < Capacity; i++)
        {
            if (_items[i & Mask].Item is { } item)
            {
                items.Add(item);
            }
        }

        return items;
    }

    /// <summary>Owner only: appends <paramref name="item"/>; returns false if the queue is full.</summary>
    internal bool TryPush(object item)
    {
        int head = Atomic.Read(ref _head);
        int tail = _tail;
        if (tail - head >= Capacity)
        {
            return false;
        }

        _items[tail & Mask].Item = item;

        // Release: a consumer that sees the new tail sees the item.
        Atomic.Write(ref _tail, tail + 1);
        return true;
    }

    /// <summary>
    /// Owner only, on a full queue: removes the older half into <paramref name="spill"/> (oldest first) so that the
    /// caller can move it to the shared inbox. Returns how many were removed (0 if consumers emptied it meanwhile).
    /// </summary>
    internal int TakeOlderHalf(Span<object?> spill)
    {
        while (true)
        {
            int head = Atomic.Read(ref _head);
            int tail = _tail;
            int count = (tail - head) / 2;
            if (count <= 0)
            {
                return 0;
            }

            count = Math.Min(count, spill.Length);
            for (int i = 0; i < count; i++)
            {
                spill[i] = _items[(head + i) & Mask].Item;
            }

            if (Atomic.CompareExchange(ref _head, head + count, head) == head)
            {
                return count;
            }
        }
    }

    /// <summary>Any thread: takes the oldest item, or returns null if the queue is empty.</summary>
    internal object? TryTake()
    {
        while (true)
        {
            int head = Atomic.Read(ref _head);

            // Acquire: the items below this tail were written before it was published.
            int tail = Atomic.Read(ref _tail);
            if (tail == head)
            {
                return null;
            }

            object? item = _items[head & Mask].Item;
            if (Atomic.CompareExchange(ref _head, head + 1, head) == head)
            {
                // The owner (or a thief) runs this item now and, most likely, the next one after it: start fetching
                // the next one's lines (Prefetch says why). One item ahead: the run of this one hides the miss.
                if (tail - head > 1)
                {
                    Prefetch.Object(_items[(head + 1) & Mask].Item);
                }

                return item;
            }
        }
    }

    /// <summary>
    /// Thief: moves the older half of this queue (rounded up) into <paramref name="destination"/>, which must be the
    /// calling worker's own, empty, queue. Returns one of the stolen items to run now, or null if there was nothing.
    /// </summary>
    internal object? StealHalfInto(RunQueue destination)
    {
        Debug.Assert(destination != this, "A worker does not steal from itself.");
        int destinationTail = destination._tail;
        Debug.Assert(destinationTail == Atomic.Read(ref destination._head), "Steal only into an empty queue.");
        int count;
        while (true)
        {
            int head = Atomic.Read(ref _head);
            int tail = Atomic.Read(ref _tail);
            count = tail - head;
            count -= count / 2;
            if (count <= 0)
            {
                return null;
            }

            if (count > Capacity / 2)
            {
                // Head and tail were read at different moments (the owner pushed and others took in between): the
                // difference is not a size. Read them again.
                continue;
            }

            // Copy first, then claim: the claim fails (and the copies are discarded) if anyone took meanwhile.
            for (int i = 0; i < count; i++)
            {
                destination._items[(destinationTail + i) & Mask] = _items[(head + i) & Mask];
            }

#if BOC_MODEL
            if (ModelMutations.Is(ModelMutations.StealWithoutClaim))
            {
                Atomic.Write(ref _head, head + count);
                break;
            }
#endif
            if (Atomic.CompareExchange(ref _head, head + count, head) == head)
            {
                break;
            }
        }

        // Run the newest stolen item now; publish the others (if any) in our own queue, where others can steal them.
        count--;
        object? run = destination._items[(destinationTail + count) & Mask].Item;
        if (count > 0)
        {
            Atomic.Write(ref destination._tail, destinationTail + count);
        }

        return run;
    }

    /// <summary>One queued item; a struct, so that storing it into the array needs no covariance check.</summary>
    private struct Entry
    {
        public object? Item;
    }
}
