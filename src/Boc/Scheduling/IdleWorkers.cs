using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
#if BOC_MODEL
using WakeSignal = Boc.ModelSemaphore;
#else
using WakeSignal = System.Threading.SemaphoreSlim;
#endif

namespace Boc;

/// <summary>
/// The workers' idle/park protocol of a <see cref="BocScheduler"/>: who spins looking for work, who is registered as
/// asleep, and the semaphore sleepers park on. A mutable struct kept inside its scheduler (never copied), so that the
/// enqueue path reads its lines as fields of the scheduler, as before it was a type of its own.
/// </summary>
/// <remarks>
/// <para>
/// Parking without a lost wake-up, in numbered steps. An idle worker (BocScheduler.WaitForWork):
/// (1) becomes a spinner (<see cref="TryStartSpinning"/>, an interlocked step) if fewer than half the workers spin, and
/// looks at every queue a few times; (2) stops spinning (<see cref="StopSpinning"/>); (3) registers as a sleeper
/// (<see cref="RegisterSleeper"/>, interlocked); (4) looks at every queue once more, and withdraws the registration if
/// it found work (<see cref="CancelSleep"/>); (5) parks (<see cref="Park()"/>). A waker (<see cref="WakeOne"/>), after
/// queueing its item: (a) issues a full fence; (b) reads the spinner count: a spinner will see the item; (c) otherwise
/// reads the sleeper count and, if a sleeper is registered, takes one registration (CAS) and releases one permit.
/// Either the worker's look in step 1 or 4 comes after the item was queued and finds it, or its interlocked step 1 or 3
/// comes before the waker's read in b or c, and the waker sees it spinning or registered. Each claimed registration is
/// paired with one permit, so every registered sleeper consumes exactly one; a worker that withdraws a registration a
/// waker had already claimed consumes the permit that waker released.
/// </para>
/// <para>
/// One exception, for speed only: a thread that is not a worker wakes a sleeper even while a worker spins, if that
/// spinner last ran on the waker's own processor (<see cref="WakeOne"/>'s remarks). Waking one more worker than needed
/// is always safe: it finds nothing, or what another would have taken, and parks again. The next slot needs no wake-up:
/// its only runner is its owner, which is awake (it filled it); if the owner then blocks in a body, a parked peer's
/// timed wait notices that the owner's clock did not move and takes the slot's item (BocScheduler.NextSlot.cs).
/// </para>
/// </remarks>
[SuppressMessage(
    "Design",
    "CA1001:Types that own disposable fields should be disposable",
    Justification = "The semaphore never creates a wait handle (nothing asks for AvailableWaitHandle), and threads may still release it after the scheduler is disposed (an enqueue that drains to the thread pool).")]
internal struct IdleWorkers
{
    private readonly WakeSignal _wake;
    private readonly int _maxSpinning;

    // Workers registered as going to sleep (or asleep) that no waker has claimed yet. Written only when workers go idle or
    // wake, but read by every enqueue: a line of its own.
    private PaddedCounter _sleepers;

    // Workers spinning in search of work, and the processor a spinner last ran on. While one spins, an enqueue need not
    // wake a sleeper (a futex call): the spinner will find the item, or see it in step 4 before it parks.
    private SpinnerLine _spinning;

    /// <summary>Creates the protocol's state for <paramref name="workerCount"/> workers, none idle.</summary>
    internal IdleWorkers(int workerCount)
    {
        _wake = new WakeSignal(0);

        // At most half the workers spin at once: on a machine with few cores, spinners would otherwise take the very
        // cores that a producer thread needs to make the work they wait for.
        _maxSpinning = Math.Max(1, workerCount / 2);
        _spinning.Processor = -1;
    }

    /// <summary>Gets how many workers are registered as sleepers (parked or about to park).</summary>
    internal int Sleepers => (int)Atomic.Read(ref _sleepers.Value);

    /// <summary>Gets whether some worker is spinning or parked: a hint (racy by nature).</summary>
    internal bool AnyIdle => Atomic.Read(ref _spinning.Count) + Atomic.Read(ref _sleepers.Value) > 0;

    /// <summary>
    /// Wakes one parked worker, if any is registered as sleeping and none is spinning (or, for an enqueue from a thread
    /// that is not a worker, none is spinning on another processor): steps a to c.
    /// </summary>
    /// <remarks>
    /// <para>
    /// The caller queued its item before this call with an interlocked operation or a release store that the fence of
    /// step a orders before the reads of steps b and c (on ARM64 the runtime emits full barriers for both), which is the
    /// store-then-load order even x64 may otherwise reorder.
    /// </para>
    /// <para>
    /// A spinner on the waker's own processor (<paramref name="fromOutside"/>). A spinner yields its core between looks,
    /// so when the kernel has put it on the same processor as a running thread, it runs again only when that thread
    /// blocks or its time slice ends, while the other processor may sit idle. An outside producer runs into this: the
    /// last behaviour of its previous batch woke it, and the kernel placed it on the spinner's processor
    /// (docs/performance/decisions.md, "A spinner on the producer's processor"). So an outside
    /// enqueue that finds the spinner last seen on its own processor wakes a sleeper, which the kernel places on an idle
    /// processor. Only outside enqueues check: one more processor-id read per spawn on a worker's hot path was not worth
    /// it without a measured case. The processor ids are hints (a thread may move at any time; .NET caches the id for a
    /// few calls), so a wrong guess costs one needless wake-up, or the old wait.
    /// </para>
    /// </remarks>
    /// <param name="fromOutside">The caller is a thread that is not one of the scheduler's workers.</param>
    internal void WakeOne(bool fromOutside = false)
    {
        // Step a.
        Atomic.MemoryBarrier();

        // Step b.
        if (Atomic.Read(ref _spinning.Count) > 0
            && !(fromOutside && ShareProcessor(Atomic.Read(ref _spinning.Processor), Atomic.CurrentProcessorId())))
        {
            return;
        }

        // Step c.
        long sleepers = Atomic.Read(ref _sleepers.Value);
        while (sleepers > 0)
        {
            long seen = Atomic.CompareExchange(ref _sleepers.Value, sleepers - 1, sleepers);
            if (seen == sleepers)
            {
                _wake.Release();
                return;
            }

            sleepers = seen;
        }
    }

    /// <summary>Step 1: becomes a spinner, unless half the workers already spin; returns whether it did.</summary>
    internal bool TryStartSpinning()
    {
        long spinners = Atomic.Read(ref _spinning.Count);
        bool started = spinners < _maxSpinning && Atomic.CompareExchange(ref _spinning.Count, spinners + 1, spinners) == spinners;
        Debug.Assert(!started || spinners + 1 <= _maxSpinning, "Boc scheduler error: more spinners than the bound.");
        return started;
    }

    /// <summary>During step 1: records where this spinner runs now, for <see cref="WakeOne"/> (a hint, written only when it changes).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void NoteSpinnerProcessor()
    {
        // Written only when it changes: every outside enqueue reads this line.
        int processor = Atomic.CurrentProcessorId();
        if (processor != _spinning.Processor)
        {
            Atomic.Write(ref _spinning.Processor, processor);
        }
    }

    /// <summary>Step 2: stops spinning; returns whether this was the last spinner.</summary>
    internal bool StopSpinning()
    {
        long left = Atomic.Decrement(ref _spinning.Count);
        Debug.Assert(left >= 0, "Boc scheduler error: a spinner stopped that had not started.");
        return left == 0;
    }

    /// <summary>Step 3: registers as a sleeper; the caller must look at the queues again (step 4) before it parks.</summary>
    internal void RegisterSleeper() => Atomic.Increment(ref _sleepers.Value);

    /// <summary>Step 4 found work: withdraws the registration; if a waker already claimed it, consumes the permit it released.</summary>
    internal void CancelSleep()
    {
        long sleepers = Atomic.Read(ref _sleepers.Value);
        while (sleepers > 0)
        {
            long seen = Atomic.CompareExchange(ref _sleepers.Value, sleepers - 1, sleepers);
            if (seen == sleepers)
            {
                return;
            }

            sleepers = seen;
        }

        _wake.Wait();
    }

    /// <summary>Step 5: parks until a waker releases a permit.</summary>
    internal readonly void Park() => _wake.Wait();

    /// <summary>Step 5 with a bound: parks until a permit or <paramref name="timeout"/>; false if it timed out (still registered).</summary>
    internal readonly bool Park(TimeSpan timeout) => _wake.Wait(timeout);

    /// <summary>Releases <paramref name="count"/> permits at once (stopping: every parked worker wakes and sees it).</summary>
    internal readonly void ReleaseAll(int count) => _wake.Release(count);

    /// <summary>
    /// Whether a spinner last seen on <paramref name="spinnerProcessor"/> shares the processor of a thread now on
    /// <paramref name="processor"/>, so that it cannot look for the thread's work while the thread runs (WakeOne).
    /// -1 means no spinner has recorded a processor yet.
    /// </summary>
    internal static bool ShareProcessor(int spinnerProcessor, int processor) => spinnerProcessor >= 0 && spinnerProcessor == processor;

    /// <summary>
    /// The spinning count and the processor a spinner last ran on, on one cache line of their own: both are written by
    /// spinners and read by every enqueue.
    /// </summary>
    [StructLayout(LayoutKind.Explicit, Size = 192)]
    private struct SpinnerLine
    {
        /// <summary>Workers spinning in search of work.</summary>
        [FieldOffset(64)]
        public long Count;

        /// <summary>The processor id a spinner last ran on (Thread.GetCurrentProcessorId), or -1.</summary>
        [FieldOffset(72)]
        public int Processor;
    }
}
