using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Boc;

// =====================================================================================================================
// Spinning and parking: an idle worker sleeps without a lost wake-up.
//
// Parking without a lost wake-up (see WakeOne for the store/load pairs):
//   * an idle worker first spins, if fewer than _maxSpinning (half the workers) already do, looking at every queue;
//   * then it increments _idle, looks at every queue once more, and only then waits on _wake;
//   * whoever queues an item issues a full fence and then reads _spinning and _idle: if a worker is spinning it will
//     see the item; if one is registered as idle, the waker takes one registration and releases one permit. So either
//     the idle worker's last look sees the item, or the waker sees the registration.
//   * one exception, for speed only: a thread that is not a worker wakes a sleeper even while a worker spins, if that
//     spinner last ran on the waker's own processor (WakeOne says why). Waking one more worker than needed is always
//     safe: it finds nothing, or what another would have taken, and parks again.
//   * the next slot needs no wake-up: its only runner is its owner, which is awake (it filled it). If the owner then
//     blocks in a body, a parked peer's timed wait (StuckCheckInterval) notices that the owner's Ticks did not move and
//     takes the slot's item.
// =====================================================================================================================

public sealed partial class BocScheduler
{
    /// <summary>
    /// Wakes one parked worker, if any is registered as sleeping and none is spinning (or, for an enqueue from a thread
    /// that is not a worker, none is spinning on another processor).
    /// </summary>
    /// <remarks>
    /// <para>
    /// No lost wake-up. The item was queued before this call with an interlocked operation or a release store that
    /// this method's reads cannot pass (<see cref="Volatile.Read{T}(ref readonly T)"/> after an interlocked operation,
    /// or after the release store of a run queue's tail followed by the interlocked read below; on ARM64 the runtime
    /// emits full barriers for both). A worker going idle does, in order: interlocked increment of the spinning count
    /// (or of the sleeper count), then a look at every queue. So either the worker's look comes after our enqueue and
    /// finds the item, or its increment comes before our read here, and we see it spinning (it will look again before
    /// it parks) or registered as a sleeper (we release it). <see cref="Worker.Next"/> needs no wake-up: only its owner
    /// runs it, and the owner is awake (it is the thread that filled it).
    /// </para>
    /// <para>
    /// A spinner on the waker's own processor (<paramref name="fromOutside"/>). A spinner yields its core between looks
    /// (SpinWait), so when the kernel has put it on the same processor as a running thread, it runs again only when
    /// that thread blocks or its time slice ends, while the other processor may sit idle. An outside producer runs
    /// into this: the last behaviour of its previous batch woke it, and the kernel placed it on the spinner's
    /// processor. Measured on 2 vCPUs with an outside thread spawning 1,024 behaviours onto idle cowns and waiting for
    /// them (<c>benchmarks/tools/SpawnRunProbe.cs</c>): in a third of the batches the spinner found the first behaviour only when
    /// the producer had spawned them all and blocked, a median of 59 µs later (0.4 µs when it ran elsewhere). So an
    /// outside enqueue that finds the spinner last seen on its own processor wakes a sleeper, which the kernel places
    /// on an idle processor. Only outside enqueues check: one more processor-id read per spawn on a worker's hot path
    /// was not worth it without a measured case. The processor ids are hints (a thread may move at any time; .NET
    /// caches the id for a few calls), so a wrong guess costs one needless wake-up, or the old wait.
    /// </para>
    /// </remarks>
    /// <param name="fromOutside">The caller is a thread that is not one of this scheduler's workers.</param>
    private void WakeOne(bool fromOutside = false)
    {
        // Full fence: orders the caller's enqueue (a release store of a queue's tail, on the local path) before the
        // reads below, so the store-load pair with a parking worker cannot be reordered.
        Atomic.MemoryBarrier();
        if (Atomic.Read(ref _spinning.Count) > 0
            && !(fromOutside && ShareProcessor(Atomic.Read(ref _spinning.Processor), Atomic.CurrentProcessorId())))
        {
            return;
        }

        long sleepers = Atomic.Read(ref _idle.Value);
        while (sleepers > 0)
        {
            long seen = Atomic.CompareExchange(ref _idle.Value, sleepers - 1, sleepers);
            if (seen == sleepers)
            {
                _wake.Release();
                return;
            }

            sleepers = seen;
        }
    }

    /// <summary>
    /// Spins (if few others do), then parks. Returns false when stopping and no work is left. <paramref name="thread"/>
    /// is the worker's own <see cref="BocThread"/>.
    /// </summary>
    private bool WaitForWork(Worker self, BocThread thread)
    {
        self.NextRunFrom = self.Ticks;

        // At most half the workers spin at once: on a machine with few cores, spinners would otherwise take the very
        // cores that a producer thread needs to make the work they wait for.
        long spinners = Atomic.Read(ref _spinning.Count);
        if (spinners < _maxSpinning && Atomic.CompareExchange(ref _spinning.Count, spinners + 1, spinners) == spinners)
        {
            var spin = default(SpinWait);
            for (int i = 0; i < SpinIterations; i++)
            {
                // Where this spinner runs now, for WakeOne (a hint; written only when it changes, since every outside
                // enqueue reads this line).
                int processor = Atomic.CurrentProcessorId();
                if (processor != _spinning.Processor)
                {
                    Atomic.Write(ref _spinning.Processor, processor);
                }

                if (HasQueuedWork())
                {
                    // The last spinner to find work wakes a sleeper, if any, to take over the spinning: enqueues made
                    // while we spun woke nobody, and could otherwise leave a backlog to this one worker.
                    if (Atomic.Decrement(ref _spinning.Count) == 0)
                    {
                        WakeOne();
                    }

                    return true;
                }

                // SpinWait yields the core (rather than only pausing) after its first few iterations.
                Atomic.PauseOnce(ref spin, sleep1Threshold: -1);
            }

            Atomic.Decrement(ref _spinning.Count);
        }

        // Found no work while spinning: an idle worker keeps nothing of the user's alive (BocThread.Spare, a warm spare).
        thread.ForgetSpareReferences();
        if (Atomic.Read(ref _stopping))
        {
            return HasQueuedWork();
        }

        // Register, then re-check (see WakeOne for why this order loses no wake-up).
        Atomic.Increment(ref _idle.Value);
        bool recheck = true;
#if BOC_MODEL
        recheck = !ModelMutations.Is(ModelMutations.ParkWithoutRecheck);
#endif
        if (recheck && (HasQueuedWork() || Atomic.Read(ref _stopping)))
        {
            CancelSleep();
            return true;
        }

        if (!_stuckCheck)
        {
            _wake.Wait();
            return true;
        }

        // Remember how far the others had got, so that after one interval a worker that ran nothing is known blocked.
        foreach (Worker other in _workers)
        {
            self.LastSeenTicks[other.Index] = Atomic.Read(ref other.Ticks);
        }

        if (!_wake.Wait(StuckCheckInterval))
        {
            CancelSleep();
            TakeStuckWork(self);
        }

        return true;
    }

    /// <summary>Withdraws a sleeper registration; if a waker already claimed it, consumes the permit it released.</summary>
    private void CancelSleep()
    {
        long sleepers = Atomic.Read(ref _idle.Value);
        while (sleepers > 0)
        {
            long seen = Atomic.CompareExchange(ref _idle.Value, sleepers - 1, sleepers);
            if (seen == sleepers)
            {
                return;
            }

            sleepers = seen;
        }

        _wake.Wait();
    }

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
