using System.Collections.Concurrent;
using System.Diagnostics;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Boc;

/// <summary>
/// A runtime's quiescence: how many behaviours it has accepted and how many have finished, kept so that neither a spawn
/// nor a completion writes a cache line that every core writes (each scheduler worker, and otherwise each processor,
/// counts on a line of its own), and the waiters for the first moment none is pending (<see cref="WhenQuiescent"/>).
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
/// Two kinds of lines. A line with one writer is counted with plain release stores: a chain of behaviours on one
/// worker, or a producer thread's flood, then pays no locked instruction for the count (two per behaviour before, one
/// in and one out). A worker of the runtime's own <see cref="BocScheduler"/> has such a line; so does each other thread
/// that counts here (an outside producer, a thread-pool thread, a continuation off the workers), up to
/// <see cref="ThreadLines"/> of them, found by its managed thread id. An id names one live thread at a time, and a
/// thread that reuses a dead one's id goes on counting where it left off (its counts stay, so the sums stay right).
/// Threads beyond that count on a stripe chosen by <see cref="Thread.GetCurrentProcessorId"/>, where two threads may
/// meet (a thread migrates, or more processors than stripes), hence interlocked increments there.
/// Monotonic counts on every kind keep the argument above: a behaviour's spawned count is visible before its finished
/// count (a release store, or an interlocked one, comes before the spawn's enqueue, an interlocked step, and
/// everything that runs the behaviour is ordered after that enqueue), and the reader reads with acquire loads. A line
/// taken into use during a read starts at zero: skipped by the finished pass it reads as zero (no more than its value
/// at the moment between the passes), and the spawned pass looks at every line in use when it starts.
/// </para>
/// <para>
/// Waking a waiter (see <see cref="BocRuntime"/>): a finisher counts itself out and then reads <see cref="Waiting"/>; a
/// waiter sets <see cref="Waiting"/> and then checks. These are store-then-load pairs, which even x64 may reorder.
/// <list type="bullet">
/// <item>On a stripe, the increment is interlocked (a full fence) and so is the waiter's store: either the waiter's
/// check sees the increment, or the finisher sees the flag and checks. Interlocked increments are totally ordered (x64;
/// on ARM64 the runtime's interlocked operations are full barriers), so of several last finishers the later one's check
/// sees the earlier one's count.</item>
/// <item>A plain store on a line of one writer needs the waiter's side to do all the fencing: after setting the flag the
/// waiter calls <see cref="FenceWorkers"/>, a process-wide barrier. A thread whose read of the flag came before that
/// barrier had its earlier store (its count) made visible by it, so the waiter's check sees the count; a read after it
/// sees the flag. So no quiescent moment is missed by the waiter.</item>
/// <item>Two last finishers, at least one on a line of its own, both seeing the flag: that one fences (a full barrier)
/// after seeing it and before its check, and the other's count is fenced too, so at least one check sees both counts,
/// as with two stripes.</item>
/// </list>
/// The runtime's disposal check (count in, then read the disposed flag; the disposer sets it, then counts) is the same
/// pair and is fenced the same way: the disposer calls <see cref="FenceWorkers"/> after setting its flag. While nobody
/// waits, a completion costs one store to a line its thread owns and one read of a line that rarely changes.
/// </para>
/// </remarks>
internal sealed class PendingCount
{
    /// <summary>How many threads other than the workers get a line of their own (the rest share the processor stripes).</summary>
    internal const int ThreadLines = 64;

    // The processor stripes first (interlocked, any thread), then one line per worker of the runtime's BocScheduler,
    // then the threads' lines; each of the last two kinds has one writer (no interlocked operation). One array, so that
    // Read sums every line in one pass.
    private readonly Stripe[] _stripes;
    private readonly int _mask;
    private readonly int _workerCount;
    private readonly int _threadBase;

    // Managed thread id -> index of its line in _stripes, or -1 for a thread that found every line taken. Read without
    // a lock (a thread counting for two runtimes in turn looks its line up on each switch); added to under the lock.
    private readonly ConcurrentDictionary<int, int> _threadLines = new();
    private readonly Lock _threadLinesLock = new();

    // Lines handed to threads so far (grows to ThreadLines; read by Read to know which lines to sum).
    private int _threadLinesUsed;

    // 1 while a quiescence waiter is registered. Read by every completion, written rarely: its own line.
    private PaddedCounter _waiting;

    // The waiters for the next quiescent moment (one task for all of them), and the lock that orders registering them
    // with signalling them.
    private readonly Lock _waitersLock = new();
    private TaskCompletionSource? _nextQuiescence;

    /// <summary>Creates the counts of a runtime whose own <see cref="BocScheduler"/> has <paramref name="workers"/> workers (0 if none).</summary>
    public PendingCount(int workers)
    {
        int count = (int)BitOperations.RoundUpToPowerOf2((uint)Math.Max(1, Environment.ProcessorCount));
        _stripes = new Stripe[count + workers + ThreadLines];
        _mask = count - 1;
        _workerCount = workers;
        _threadBase = count + workers;
    }

    /// <summary>Gets whether a quiescence waiter is registered (see the remarks).</summary>
    public bool Waiting => Atomic.Read(ref _waiting.Value) != 0;

    /// <summary>
    /// Counts one accepted behaviour. <paramref name="worker"/> is the calling thread's index among the runtime's own
    /// <see cref="BocScheduler"/> workers, or -1. A worker, and any other thread with a line of its own, counts with a
    /// plain release store; a thread beyond <see cref="ThreadLines"/> with an interlocked increment. The runtime's
    /// disposal check after it relies on the disposer's <see cref="FenceWorkers"/>, a process-wide barrier, which orders
    /// either kind (see the remarks). <paramref name="thread"/> is the calling thread's <see cref="BocThread"/>, where a
    /// thread other than a worker keeps its line.
    /// </summary>
    public void Spawned(int worker, BocThread thread)
    {
        int line = (uint)worker < (uint)_workerCount ? _mask + 1 + worker : ThreadLine(thread);
        if (line >= 0)
        {
            // Single writer: only this thread writes this line. A release store, so that whoever sees a count of
            // finished behaviours that includes this one also sees it counted in (the remarks' "spawned before finished").
            ref long spawned = ref _stripes[line].Spawned;
            Atomic.Write(ref spawned, spawned + 1);
            return;
        }

        Atomic.Increment(ref _stripes[Atomic.CurrentProcessorId() & _mask].Spawned);
    }

    /// <summary>
    /// Counts <paramref name="count"/> finished behaviours (<paramref name="worker"/> and <paramref name="thread"/> as for
    /// <see cref="Spawned"/>); returns whether a waiter is registered, in which case the count is fenced before the
    /// caller checks <see cref="IsQuiescent"/>.
    /// </summary>
    public bool Finished(int worker, BocThread thread, int count = 1)
    {
        int line = (uint)worker < (uint)_workerCount ? _mask + 1 + worker : ThreadLine(thread);
        if (line >= 0)
        {
            ref long finished = ref _stripes[line].Finished;
            Atomic.Write(ref finished, finished + count);
            if (Atomic.Read(ref _waiting.Value) == 0)
            {
                // Nobody waits: done, with no locked instruction. A waiter that registers meanwhile sees this count, or
                // this read saw its flag: FenceWorkers orders the two (the remarks).
                return false;
            }

            // Someone waits and the caller will check: make this count visible before reading the others, so that of two
            // last finishers checking at once, at least one sees both counts (a plain store could still sit in this
            // core's store buffer while the other's check reads it).
            Atomic.MemoryBarrier();
            return true;
        }

        Atomic.Add(ref _stripes[Atomic.CurrentProcessorId() & _mask].Finished, count);
        return Atomic.Read(ref _waiting.Value) != 0;
    }

    /// <summary>
    /// Registers a waiter (or clears the registration), under the waiters' lock. Registering is fenced against every
    /// thread (the caller checks <see cref="IsQuiescent"/> after): see <see cref="FenceWorkers"/>.
    /// </summary>
    private void SetWaiting(bool waiting)
    {
        Atomic.Exchange(ref _waiting.Value, waiting ? 1 : 0);
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
    public static void FenceWorkers() => Atomic.MemoryBarrierProcessWide();

    /// <summary>
    /// A task that completes at the first moment no behaviour is pending: at once if none is now. Registers, then looks
    /// again: either this look sees the last completion, or the last finisher sees the registration and signals (the
    /// remarks, "Waking a waiter").
    /// </summary>
    public Task WhenQuiescent()
    {
        if (IsQuiescent())
        {
            return Task.CompletedTask;
        }

        TaskCompletionSource? earlier;
        lock (_waitersLock)
        {
#if BOC_MODEL
            using ModelPoints.AtomicSection section = ModelPoints.Atomically();
#endif
            SetWaiting(true);
            if (!IsQuiescent())
            {
                // RunContinuationsAsynchronously: the completing thread is a worker that just finished a behaviour; it
                // must not run the waiter's continuation inline.
                _nextQuiescence ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                return _nextQuiescence.Task;
            }

            // Quiescent after all: release the waiters registered before us too (the moment is theirs as well).
            earlier = _nextQuiescence;
            _nextQuiescence = null;
            SetWaiting(false);
        }

        earlier?.TrySetResult();
        return Task.CompletedTask;
    }

    /// <summary>
    /// A finisher that found a waiter registered (<see cref="Finished"/>) and the count quiescent: completes the waiters'
    /// task, if this is still a quiescent moment.
    /// </summary>
    public void SignalWaiters()
    {
        TaskCompletionSource? waiters;
        lock (_waitersLock)
        {
#if BOC_MODEL
            using ModelPoints.AtomicSection section = ModelPoints.Atomically();
#endif
            // Several finishers may get here for one quiescent moment, and a spawn may have raced in since the check:
            // then this is not a quiescent moment, the registration stays, and a later finisher signals.
            if (_nextQuiescence is null || !IsQuiescent())
            {
                return;
            }

            waiters = _nextQuiescence;
            _nextQuiescence = null;
            SetWaiting(false);
        }

        waiters.TrySetResult();
    }

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
        foreach (ref Stripe stripe in InUse())
        {
            finished += Atomic.Read(ref stripe.Finished);
        }

        long spawned = 0;
        foreach (ref Stripe stripe in InUse())
        {
            spawned += Atomic.Read(ref stripe.Spawned);
        }

        // The sums' argument: every finished count read is at most its value between the passes, every spawned count
        // at least its value there, and nothing is counted out before it was counted in.
        Debug.Assert(finished <= spawned, "Boc error: more counted out than in.");
        return (finished, spawned);
    }

    /// <summary>The lines in use now: the processor stripes, the workers' lines, and the threads' lines handed out so far.</summary>
    private Span<Stripe> InUse() => _stripes.AsSpan(0, _threadBase + Atomic.Read(ref _threadLinesUsed));

    /// <summary>
    /// The calling thread's own line, or -1 if every thread line is taken (it then uses a processor stripe). The thread
    /// keeps its line in the count it used last (one that counts for two runtimes in turn looks it up on each switch).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private int ThreadLine(BocThread thread) => ReferenceEquals(thread.LastCount, this) ? thread.LastLine : FindThreadLine(thread);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private int FindThreadLine(BocThread thread)
    {
        int id = Environment.CurrentManagedThreadId;
        if (!_threadLines.TryGetValue(id, out int line))
        {
            lock (_threadLinesLock)
            {
#if BOC_MODEL
                using ModelPoints.AtomicSection section = ModelPoints.Atomically();
#endif
                // Only this thread adds its own id, so it is still missing; the lock orders the lines handed out.
                line = -1;
                if (_threadLinesUsed < ThreadLines)
                {
                    line = _threadBase + _threadLinesUsed;

                    // Before this thread's first count on the line: a Read that sees the count sees the line in use.
                    Atomic.Write(ref _threadLinesUsed, _threadLinesUsed + 1);
                }

                _threadLines[id] = line;
            }
        }

        thread.LastCount = this;
        thread.LastLine = line;
        return line;
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
