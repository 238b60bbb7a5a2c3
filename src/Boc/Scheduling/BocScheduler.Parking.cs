using System.Runtime.CompilerServices;

namespace Boc;

// =====================================================================================================================
// Spinning and parking: an idle worker sleeps without a lost wake-up. The protocol's state and its steps (numbered, with
// the argument) are the idle-workers engine's (Scheduling/IdleWorkers.cs); this file is the worker's side of it.
// =====================================================================================================================

public sealed partial class BocScheduler
{
    /// <summary>
    /// Whether a spinner last seen on <paramref name="spinnerProcessor"/> shares the processor of a thread now on
    /// <paramref name="processor"/> (<see cref="IdleWorkers.ShareProcessor"/>).
    /// </summary>
    internal static bool ShareProcessor(int spinnerProcessor, int processor) => IdleWorkers.ShareProcessor(spinnerProcessor, processor);

    /// <summary>Wakes one parked worker if one is needed (<see cref="IdleWorkers.WakeOne"/>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void WakeOne(bool fromOutside = false) => _idle.WakeOne(fromOutside);

    /// <summary>
    /// Spins (if few others do), then parks: steps 1 to 5 of IdleWorkers' protocol. Returns false when stopping and no
    /// work is left. <paramref name="thread"/> is the worker's own <see cref="BocThread"/>.
    /// </summary>
    private bool WaitForWork(Worker self, BocThread thread)
    {
        self.NextRunFrom = self.Ticks;

        // Step 1: a spinner looks at every queue a few times.
        if (_idle.TryStartSpinning())
        {
            var spin = default(SpinWait);
            for (int i = 0; i < SpinIterations; i++)
            {
                _idle.NoteSpinnerProcessor();
                if (HasQueuedWork())
                {
                    // The last spinner to find work wakes a sleeper, if any, to take over the spinning: enqueues made
                    // while we spun woke nobody, and could otherwise leave a backlog to this one worker.
                    if (_idle.StopSpinning())
                    {
                        _idle.WakeOne();
                    }

                    return true;
                }

                // SpinWait yields the core (rather than only pausing) after its first few iterations.
                Atomic.PauseOnce(ref spin, sleep1Threshold: -1);
            }

            // Step 2.
            _ = _idle.StopSpinning();
        }

        // Found no work while spinning: an idle worker keeps nothing of the user's alive (BocThread.Spare, a warm spare).
        thread.ForgetSpareReferences();
        if (Atomic.Read(ref _stopping))
        {
            return HasQueuedWork();
        }

        // Step 3, then step 4: register, then look again (the order that loses no wake-up).
        _idle.RegisterSleeper();
        bool recheck = true;
#if BOC_MODEL
        recheck = !ModelMutations.Is(ModelMutations.ParkWithoutRecheck);
#endif
        if (recheck && (HasQueuedWork() || Atomic.Read(ref _stopping)))
        {
            _idle.CancelSleep();
            return true;
        }

        // Step 5.
        if (!_stuckCheck)
        {
            _idle.Park();
            return true;
        }

        // Remember how far the others had got, so that after one interval a worker that ran nothing is known blocked.
        foreach (Worker other in _workers)
        {
            self.LastSeenTicks[other.Index] = Atomic.Read(ref other.Ticks);
        }

        if (!_idle.Park(StuckCheckInterval))
        {
            _idle.CancelSleep();
            TakeStuckWork(self);
        }

        return true;
    }
}
