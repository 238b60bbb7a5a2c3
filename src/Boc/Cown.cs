using System.Runtime.InteropServices;

namespace Boc;

/// <summary>
/// The untyped part of every cown (concurrent owner): its identity, and the queue state the runtime keeps on it.
/// </summary>
/// <remarks>
/// User code never derives from this class; create cowns with <see cref="Cown{T}"/>. The non-generic type exists
/// so that the runtime's protocol (see <c>Protocol/Behaviour.cs</c>) can treat cowns of every state type alike.
/// </remarks>
[StructLayout(LayoutKind.Explicit)]
public abstract class Cown
{
    // Ids start at 1 and are never reused, so they give every cown a position in one global, stable order. Hash codes
    // and addresses are neither unique nor stable (the GC moves objects), so they cannot order acquisitions. A thread
    // takes ids in blocks: an atomic add on one shared counter per cown was a locked instruction on a line every
    // creating thread writes (Fork-Join Create makes a cown per spawn). Only uniqueness matters for the order, so ids
    // of cowns made on different threads need not follow creation time.
    private const int IdBlock = 64;
    private static long s_lastId;

    /// <summary>The next id of this thread's block, or, when it equals <see cref="t_idLimit"/>, none left.</summary>
    [ThreadStatic]
    private static long t_nextId;

    [ThreadStatic]
    private static long t_idLimit;

    // The layout is explicit, in two groups a cache line apart. The state and the id are written once and then read:
    // the id by every spawn of two or more cowns (it orders the acquisition), the state by every body. The queue's
    // fields (CownQueue: the tail, the pending writer, the readers) are written by every spawn (the Exchange) and every
    // release (the compare-and-swap), usually on different cores. On one line, a spawner's read of the id and a body's
    // read of the state missed whenever another core had just released the cown, and a spawn then needed the line a
    // second time, exclusively, for its Exchange. Apart, the first line stays shared in every core's cache: an outside
    // producer's two-cown spawns (Logistic Map full) ran faster, the rest within their spread (docs/performance/
    // decisions.md, "Cown layout"). It makes a cown 120 bytes on x64 instead of 64 (SlotLayoutTests pins the size).
    // The queue's fields start 72 bytes in: objects are only 8-byte aligned, and 72 is the least offset at which no
    // 64-byte line can hold both a byte of the first group (bytes 0-15) and a byte of the queue's fields.
    private const int QueueOffset = 72;

    // ---- Protocol state: the queue (Protocol/CownQueue.cs), whose fields are private to it; its operations are the
    // only way to touch them.

    /// <summary>The cown's queue state: the tail, the active readers and the pending writer.</summary>
    [FieldOffset(QueueOffset)]
    internal CownQueue Queue;

    /// <summary>The protected state. Never null; typed access goes through <see cref="Cown{T}"/>.</summary>
    [FieldOffset(0)]
    internal readonly object State;

    [FieldOffset(8)]
    private readonly long _id;

    // In the first group's line, written once: a name costs no byte (the group's line has room) and no spawn reads it.
    [FieldOffset(16)]
    private readonly string? _name;

    private protected Cown(object state, string? name)
    {
        if (name is not null && string.IsNullOrWhiteSpace(name))
        {
            throw new ArgumentException("A cown's name, if given, must have a character other than white space.", nameof(name));
        }

        State = state;
        _name = name;
        _id = NextId();
    }

    /// <summary>
    /// Gets this cown's identity: unique in the process, stable for its lifetime, and the global order in which
    /// behaviours acquire cowns.
    /// </summary>
    public long Id => _id;

    /// <summary>
    /// Gets the name given when the cown was created, or null. Logs, exceptions, behaviour spans and Boc.Testing's traces
    /// show it (see <see cref="ToString"/>); it has no other effect, and need not be unique.
    /// </summary>
    public string? Name => _name;

    /// <summary>
    /// Requests read-only access to <paramref name="cown"/>: pass the result to <c>When</c> in place of the cown.
    /// Behaviours that only read a cown may run at the same time as each other; a behaviour that writes it still
    /// runs alone, in spawn order with the readers.
    /// </summary>
    /// <typeparam name="T">The type of the cown's state.</typeparam>
    /// <param name="cown">The cown to read.</param>
    /// <returns>A read-only view of <paramref name="cown"/> that can be acquired by a behaviour.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="cown"/> is null.</exception>
    public static ReadOnlyCown<T> Read<T>(Cown<T> cown)
        where T : class
    {
        ArgumentNullException.ThrowIfNull(cown);
        return cown.ReadOnlyView;
    }

    private static long NextId()
    {
        long id = t_nextId;
        if (id != t_idLimit)
        {
            t_nextId = id + 1;
            return id;
        }

        return NextIdBlock();
    }

    private static long NextIdBlock()
    {
        // Ids (last - IdBlock, last] are this thread's; hand out the first now.
        long last = Atomic.Add(ref s_lastId, IdBlock);
        t_nextId = last - IdBlock + 2;
        t_idLimit = last + 1;
        return last - IdBlock + 1;
    }

    /// <summary>Returns the cown's name and id (<c>alice#15</c>), or its id alone if it has no name (<c>Cown#15</c>).</summary>
    /// <returns>The cown as logs, exceptions and traces show it.</returns>
    public override string ToString() => _name is null ? $"Cown#{Id}" : $"{_name}#{Id}";

    /// <summary>
    /// Gets the debugger's one-line summary: the id and whether the queue is empty, with active readers and a writer
    /// waiting for them. A racy snapshot; the state itself is not shown (reading it outside a behaviour is a race).
    /// </summary>
    internal string DebuggerDisplay
    {
        get
        {
            (Behaviour? tail, int readers, bool writerWaits, _) = Queue.Snapshot();
            bool queued = tail is not null;
            string text = queued ? $"{this}, busy (queue not empty)" : readers > 0 ? $"{this}, busy" : $"{this}, idle";
            if (readers > 0)
            {
                text += readers == 1 ? ", 1 reader running" : $", {readers} readers running";
            }

            if (writerWaits)
            {
                text += ", a writer waits for the readers";
            }

            return text;
        }
    }

    /// <summary>
    /// Describes what is queued on this cown, for diagnosing a hang from a debugger's watch window or a log: a racy,
    /// best-effort snapshot (behaviours keep moving while it is read, and it says so when the queue changed under it).
    /// </summary>
    /// <param name="limit">The most queued behaviours to list.</param>
    /// <returns>
    /// One line for the cown, then one per queued behaviour from the head (running or waiting, and the cowns it
    /// requests). The queue is linked forward and a cown knows only its tail, so the head is known only when a writer
    /// waits for readers (it holds the turn) or when called from a body that holds this cown; otherwise only the last
    /// queued behaviour is shown.
    /// </returns>
    internal string DescribeQueue(int limit = 64) => Behaviour.DescribeQueue(this, limit);
}
