using System.Numerics;
using System.Runtime.InteropServices;

namespace Boc;

/// <summary>
/// How many behaviours a runtime has accepted and how many have finished, kept so that neither a spawn nor a completion
/// writes a cache line that every core writes: each scheduler worker, and otherwise each processor, counts on a line of its own.
/// </summary>
/// <remarks>
/// <para>
/// Why not one counter: a single pending count is written by every spawn and every completion, on every core, so on a
/// flood each of them is a cache miss on that one line. With stripes, a producer thread and the workers each write
/// their own line; the lines are read together only to decide quiescence, and only while someone waits for it.
/// </para>
/// <para>
/// Why two monotonic counts per stripe, not one net count: a behaviour is often counted in on one stripe (its spawner's)
/// and out on another (the worker that ran it). A sum of net counts read stripe by stripe can then see the "out" and miss
/// the "in", or the reverse, and come to zero while work is pending. With monotonic counts, <see cref="IsQuiescent"/>
/// reads every finished count first and every spawned count after. Let t be the moment between the two passes. Each
/// finished count read is at most its value at t, and each spawned count read is at least its value at t; a behaviour
/// is counted as spawned before it can finish (the spawn's increment happens before its enqueue), so
/// finished(t) ≤ spawned(t). If the two sums are equal, then finished(t) = spawned(t): at t nothing was pending.
/// </para>
/// <para>
/// Two kinds of lines. A worker of the runtime's own <see cref="BocScheduler"/> counts on a line of its own, and is its
/// only writer, so it counts with plain release stores: a chain of behaviours on one worker then pays no locked
/// instruction for the count (two per behaviour before, one in and one out). Every other thread (an outside producer,
/// the thread pool, a continuation off the workers) counts on a stripe chosen by <see cref="Thread.GetCurrentProcessorId"/>:
/// threads on one core share a line, which that core already owns; two threads may still meet on a stripe (a thread
/// migrates, or more processors than stripes), hence interlocked increments there, uncontended in the common case.
/// Monotonic counts on both kinds keep the argument above: a behaviour's spawned count is visible before its finished
/// count (a worker's release store comes before the spawn's enqueue, an interlocked step, and everything that runs the
/// behaviour is ordered after that enqueue), and the reader reads with acquire loads.
/// </para>
/// <para>
/// Waking a waiter (see <see cref="BocRuntime"/>): a finisher counts itself out and then reads <see cref="Waiting"/>; a
/// waiter sets <see cref="Waiting"/> and then checks. These are store-then-load pairs, which even x64 may reorder.
/// <list type="bullet">
/// <item>On a stripe, the increment is interlocked (a full fence) and so is the waiter's store: either the waiter's
/// check sees the increment, or the finisher sees the flag and checks. Interlocked increments are totally ordered (x64;
/// on ARM64 the runtime's interlocked operations are full barriers), so of several last finishers the later one's check
/// sees the earlier one's count.</item>
/// <item>A worker's plain store needs the waiter's side to do all the fencing: after setting the flag the waiter calls
/// <see cref="FenceWorkers"/>, a process-wide barrier. A worker whose read of the flag came before that barrier had its
/// earlier store (its count) made visible by it, so the waiter's check sees the count; a read after it sees the flag.
/// So no quiescent moment is missed by the waiter.</item>
/// <item>Two last finishers, at least one a worker, both seeing the flag: the worker fences (a full barrier) after
/// seeing it and before its check, and the other's increment is interlocked, so at least one check sees both counts,
/// as with two stripes.</item>
/// </list>
/// The runtime's disposal check (count in, then read the disposed flag; the disposer sets it, then counts) is the same
/// pair and is fenced the same way: the disposer calls <see cref="FenceWorkers"/> after setting its flag. While nobody
/// waits, a completion costs one store to a line its thread owns and one read of a line that rarely changes.
/// </para>
/// </remarks>
internal sealed class PendingCount
{
    // The processor stripes first (interlocked, any thread), then one line per worker of the runtime's BocScheduler,
    // written only by that worker (no interlocked operation). One array, so that Read sums every line in one pass.
    private readonly Stripe[] _stripes;
    private readonly int _mask;
    private readonly int _workerCount;

    // 1 while a quiescence waiter is registered. Read by every completion, written rarely: its own line.
    private PaddedCounter _waiting;

    /// <summary>Creates the counts of a runtime whose own <see cref="BocScheduler"/> has <paramref name="workers"/> workers (0 if none).</summary>
    public PendingCount(int workers)
    {
        int count = (int)BitOperations.RoundUpToPowerOf2((uint)Math.Max(1, Environment.ProcessorCount));
        _stripes = new Stripe[count + workers];
        _mask = count - 1;
        _workerCount = workers;
    }

    /// <summary>Gets whether a quiescence waiter is registered (see the remarks).</summary>
    public bool Waiting => Volatile.Read(ref _waiting.Value) != 0;

    /// <summary>
    /// Counts one accepted behaviour. <paramref name="worker"/> is the calling thread's index among the runtime's own
    /// <see cref="BocScheduler"/> workers, or -1: a worker counts on its own line with a plain store, any other thread
    /// with an interlocked increment (a full fence). The runtime's disposal check after it relies on the fence, or, for a
    /// worker, on the disposer's <see cref="FenceWorkers"/> (see the remarks).
    /// </summary>
    public void Spawned(int worker)
    {
        if ((uint)worker < (uint)_workerCount)
        {
            // Single writer: only worker `worker` writes this line. A release store, so that whoever sees a count of
            // finished behaviours that includes this one also sees it counted in (the remarks' "spawned before finished").
            ref long spawned = ref _stripes[_mask + 1 + worker].Spawned;
            Volatile.Write(ref spawned, spawned + 1);
            return;
        }

        Interlocked.Increment(ref _stripes[Thread.GetCurrentProcessorId() & _mask].Spawned);
    }

    /// <summary>
    /// Counts <paramref name="count"/> finished behaviours (<paramref name="worker"/> as for <see cref="Spawned"/>); returns whether a waiter is
    /// registered, in which case the count is fenced before the caller checks <see cref="IsQuiescent"/>.
    /// </summary>
    public bool Finished(int worker, int count = 1)
    {
        if ((uint)worker < (uint)_workerCount)
        {
            ref long finished = ref _stripes[_mask + 1 + worker].Finished;
            Volatile.Write(ref finished, finished + count);
            if (Volatile.Read(ref _waiting.Value) == 0)
            {
                // Nobody waits: done, with no locked instruction. A waiter that registers meanwhile sees this count, or
                // this read saw its flag: FenceWorkers orders the two (the remarks).
                return false;
            }

            // Someone waits and the caller will check: make this count visible before reading the others, so that of two
            // last finishers checking at once, at least one sees both counts (a plain store could still sit in this
            // core's store buffer while the other's check reads it).
            Interlocked.MemoryBarrier();
            return true;
        }

        Interlocked.Add(ref _stripes[Thread.GetCurrentProcessorId() & _mask].Finished, count);
        return Volatile.Read(ref _waiting.Value) != 0;
    }

    /// <summary>
    /// Registers a waiter (or clears the registration). Registering is fenced against every thread (the caller checks
    /// <see cref="IsQuiescent"/> after): see <see cref="FenceWorkers"/>.
    /// </summary>
    public void SetWaiting(bool waiting)
    {
        Interlocked.Exchange(ref _waiting.Value, waiting ? 1 : 0);
        if (waiting)
        {
            FenceWorkers();
        }
    }

    /// <summary>
    /// The rare side of the workers' asymmetric Dekker pairs: after the caller's store (the waiter flag, the runtime's
    /// disposed flag), every thread's earlier stores are visible before the caller's next read, or that thread's next
    /// read sees the caller's store. A worker's plain store of its count followed by its read of the flag needs no fence
    /// of its own then. Costs a process-wide barrier (an inter-processor interrupt or a membarrier call): only waiting
    /// for quiescence and disposing pay it.
    /// </summary>
    public static void FenceWorkers() => Interlocked.MemoryBarrierProcessWide();

    /// <summary>Whether nothing was pending at some moment during the call (see the remarks for why that is sound).</summary>
    public bool IsQuiescent()
    {
        (long finished, long spawned) = Read();
        return finished == spawned;
    }

    /// <summary>Gets about how many behaviours are pending (a snapshot, never negative).</summary>
    public long Estimate()
    {
        (long finished, long spawned) = Read();
        return Math.Max(0, spawned - finished);
    }

    /// <summary>Every finished count, then every spawned count: the order the quiescence argument needs.</summary>
    private (long Finished, long Spawned) Read()
    {
        long finished = 0;
        foreach (ref Stripe stripe in _stripes.AsSpan())
        {
            finished += Volatile.Read(ref stripe.Finished);
        }

        long spawned = 0;
        foreach (ref Stripe stripe in _stripes.AsSpan())
        {
            spawned += Volatile.Read(ref stripe.Spawned);
        }

        return (finished, spawned);
    }

    /// <summary>Two counters that one processor writes, on a cache line of their own (64 bytes of padding before).</summary>
    [StructLayout(LayoutKind.Explicit, Size = 128)]
    private struct Stripe
    {
        [FieldOffset(64)]
        public long Spawned;

        [FieldOffset(72)]
        public long Finished;
    }
}
