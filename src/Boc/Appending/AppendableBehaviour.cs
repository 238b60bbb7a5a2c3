using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;

namespace Boc;

// =====================================================================================================================
// Yielding (AppendableBehaviour.TryYield and RunRest). A run of up to 32 bodies holds its worker for all of them, which
// is what a flood of cheap messages wants, but not a flood of long ones. Savina's Recursive Matrix Multiplication
// appends long leaves, 32 to a run, onto five chains, and with two workers the chains took turns rarely, so one chain
// ran on alone at the end (docs/performance/decisions.md, "Long appended runs take turns"). And a request spawned from
// outside while floods of short bodies ran waited for a whole run of each flood behaviour ahead of it (issue 39). So on
// a BocScheduler worker, after every FloodPolicy.CheckEvery appended bodies, the runner reads the clock
// (Stopwatch.GetTimestamp): once the run has lasted its inbox slice (FloodPolicy.InboxSliceTicks) while work waits in
// the inbox (HasInboxWork, a hint) or in the worker's own queue with no peer free to steal it (the work the inbox and
// next-slot bounds promise a turn to; PeerCanTakeQueuedWork), or its slice (FloodPolicy.SliceMilliseconds) while any
// other work waits anywhere in the scheduler (HasOtherWork, a hint), it records where it stopped (next body, count,
// failures so far, the own body's failure) in a record kept with the pooled object, queues the record at the back of
// the inbox (BocScheduler.EnqueueYielded), or of its own queue if that queue is what waits and the inbox looks empty
// (EnqueueYieldedLocal), and returns to Run an unfinished task instead of finishing. Run treats it as an asynchronous
// body: the cowns stay held until the task completes. The worker, whose slot and queue the flood no longer fills, then
// takes the waiting work (the inbox's as a batch, its queue being empty; or its own queue's, ahead of the record), and
// whichever worker takes the record runs the remaining bodies (and may yield again), counts them out, and completes the
// task; its continuation finishes the behaviour (release, failures, count) as for any asynchronous body. The runner
// completes the task on its worker, and the continuation runs there and then (CompleteHere says why).
//   Why a free peer takes the queued work instead: a peer outside a body steals from this worker's queue (and is woken
// if it sleeps), so the queued work gets a worker without this run giving up its own. Yielding to it anyway sent the
// rest of the run, and with it the cowns' state, to whichever worker looked first: on Savina's Sorted Linked-List
// (bodies on one list cown whose replies wait in the queue) that was thousands of yields and moves of the list per run
// (docs/performance/decisions.md, "Sorted Linked-List: the list stays on its worker").
//   Why a slice of time, not a count of bodies: a flood of cheap bodies (Fork-Join Throughput, Count, Radixsort) runs a
// whole behaviour of 32 well within the slice and never yields, so its producer keeps filling tails that have not
// started. Counting bodies instead (every appended body ticking the worker's inbox clock, and a run yielding when that
// clock fell due) made those rows slower: the inbox's turns came every InboxCheckInterval bodies instead of every
// InboxCheckInterval behaviours, and each started a tail its producer was still filling (docs/performance/
// decisions.md, "Fairness counted in bodies"). The inbox slice is of the order of a request's own cost.
// Why it keeps the guarantees: the behaviour holds every cown from its first body to its release, with or without
// yields, so nothing else runs on its cowns in between, and the remaining bodies run in index order after the earlier
// ones (the inbox's enqueue is a release of the record and of everything the bodies so far wrote, and the taking
// worker's dequeue an acquire, so its bodies see all of it, on ARM64 as on x64). Nothing is lost or run twice: the
// record is queued exactly once per yield and taken exactly once, the word was closed before the first body, and each
// body's entry is cleared after it runs. The counts are as without a yield (each appended body counted out once, in
// FinishAppended, before the release). A yield only delays the rest of a run behind work that waited, so no bound gets
// longer: the rest is one more item, queued behind the others.
// Cost: a timestamp at the start of a run and one at its first check; a run whose first bodies went fast enough to
// finish within the inbox slice checks no more. Nothing on runs too short to reach a check. Not on the thread pool (no
// queue of the runtime's to yield to), nor on a thread that is not one of the scheduler's workers.
// =====================================================================================================================

/// <summary>
/// Base of the behaviour classes that take appended bodies (<c>Appending/Behaviour.Appending.cs</c>): the plain
/// fire-and-forget <c>When</c> on one cown (<see cref="AppendableActionBehaviour{T1, TState}"/>) and on two
/// (<see cref="AppendablePairBehaviour{T1, T2, TState}"/>). It holds the append word, which no other behaviour pays for
/// (every step on the word is in <c>Behaviour.Appending.cs</c>, next to the argument for it).
/// </summary>
internal abstract class AppendableBehaviour : FireAndForgetBehaviour
{
    private long _appendState;

    /// <summary>Gets whether this behaviour looks able to take an appended body now (a hint; see <see cref="Behaviour.LooksAppendable"/>).</summary>
    internal bool MayTakeAppend => LooksAppendable(Atomic.Read(ref _appendState));

    private protected override int QueuedAppendedCount => OpenAppendedCount(Atomic.Read(ref _appendState));

    /// <summary>Gets the append word, for the derived class's open and claim.</summary>
    protected ref long AppendWord => ref _appendState;

    /// <summary>Ends a claim, publishing the body written under it if <paramref name="published"/>.</summary>
    internal void ReleaseAppend(long claimed, bool published) => ReleaseAppend(ref _appendState, claimed, published);

    protected override bool Deliver(Exception? error, Task? bodyTask)
    {
        _ = base.Deliver(error, bodyTask);
        if (TakeAppendedFailures() is { } failures)
        {
            // Out of line: the loop's enumerator would otherwise be zeroed in this method's frame on every delivery.
            DeliverAppendedFailures(failures);
        }

        return false;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void DeliverAppendedFailures(List<Exception> failures)
    {
        foreach (Exception failure in failures)
        {
            _ = base.Deliver(failure, null);
        }
    }

    /// <summary>Run, before the body: closes the word and returns how many bodies were appended (see <see cref="Behaviour.CloseAppends(ref long)"/>).</summary>
    protected int CloseAppends() => CloseAppends(ref _appendState);

    /// <summary>
    /// The runner, after the appended bodies ran, <paramref name="failed"/> of the <paramref name="appended"/> with an
    /// exception: counts them out; then rethrows the own body's failure <paramref name="own"/>, if any, for the usual
    /// path (the appended ones' are kept and reported after the release).
    /// </summary>
    protected void FinishAppended(int appended, int failed, Exception? own)
    {
        Runtime.OnAppendedFinished(appended, failed);
        if (own is not null)
        {
            ExceptionDispatchInfo.Throw(own);
        }
    }

    // -----------------------------------------------------------------------------------------------------------------
    // Yielding (the top of this file): a run of appended bodies that has lasted a slice while other work waits
    // stops between two bodies, and the rest runs later, from the inbox, still holding the cowns.
    // -----------------------------------------------------------------------------------------------------------------

    /// <summary>A run checks after every this many appended bodies (<see cref="FloodPolicy.CheckEvery"/>).</summary>
    private const int YieldCheckEvery = FloodPolicy.CheckEvery;

    /// <summary>A run's start time that turns its checks off.</summary>
    private const long NeverYield = -1;

    /// <summary>Runs the behaviour's own body (in a frame of its own: see <c>AppendableActionBehaviour.RunBody</c>).</summary>
    private protected abstract void RunOwnBody();

    /// <summary>
    /// Runs appended body <paramref name="index"/> in a frame of its own, and clears its entry whether or not it threw,
    /// so the pooled object holds no body or state. A virtual call per body: the shared loop, written once here, is
    /// compiled once for every class, and a struct per kind (tried first) made Radixsort actor slower, its calls going
    /// through shared generic code's lookups (docs/performance/decisions.md, "One loop for appended runs").
    /// </summary>
    private protected abstract void RunAppendedBody(int index);

    /// <summary>
    /// Runs the behaviour's own body, then the <paramref name="appended"/> appended ones in order. A failing body does
    /// not stop the others (each was a spawn of its own). Returns null, or, if the run yielded ("Yielding" at the top of
    /// this file), the task that completes when the rest has run.
    /// </summary>
    private protected Task? RunOwnThenAppended(int appended)
    {
        Exception? own = null;
        try
        {
            RunOwnBody();
        }
#pragma warning disable CA1031 // Reported: rethrown by FinishAppended, after the appended bodies ran.
        catch (Exception e)
#pragma warning restore CA1031
        {
            own = e;
        }

        return RunAppended(0, appended, 0, own);
    }

    /// <summary>
    /// Runs appended bodies <paramref name="from"/> to <paramref name="appended"/> - 1, with <paramref name="failed"/>
    /// failures so far and the own body's failure <paramref name="own"/>; then counts them out
    /// (<see cref="FinishAppended"/>, which rethrows <paramref name="own"/>) and returns null. Between two bodies it may
    /// yield instead (<see cref="TryYield"/>): it then returns the task that completes when the rest has run. The one
    /// loop for every appendable class.
    /// </summary>
    private Task? RunAppended(int from, int appended, int failed, Exception? own)
    {
        // Only a run long enough to reach a check, on a BocScheduler, may yield between two bodies ("Yielding").
        long start = appended - from > YieldCheckEvery && Runtime.BocSchedulerOrNull is not null ? Stopwatch.GetTimestamp() : NeverYield;
        for (int i = from; i < appended; i++)
        {
            try
            {
                RunAppendedBody(i);
            }
#pragma warning disable CA1031 // Reported after the release (Deliver), as a fire-and-forget failure is.
            catch (Exception e)
#pragma warning restore CA1031
            {
                KeepAppendedFailure(e);
                failed++;
            }

            if (start != NeverYield && IsYieldCheck(i, appended) && TryYield(ref start, from, i + 1, appended, failed, own) is { } rest)
            {
                return rest;
            }
        }

        FinishAppended(appended, failed, own);
        return null;
    }

    /// <summary>Whether the run checks after appended body <paramref name="index"/> (not after its last).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool IsYieldCheck(int index, int appended) =>
        (index & (YieldCheckEvery - 1)) == YieldCheckEvery - 1 && index + 1 < appended;

    /// <summary>
    /// Called after appended body <paramref name="next"/> - 1 at a check (<see cref="IsYieldCheck"/>) of a run of bodies
    /// <paramref name="from"/> to <paramref name="appended"/> - 1 that started at <paramref name="start"/> (a
    /// <see cref="Stopwatch"/> timestamp). Yields, returning the task that completes when the rest of the run has, if the
    /// run has lasted the inbox slice (<see cref="FloodPolicy.InboxSliceTicks"/>) and work waits in the inbox or in the
    /// worker's own queue (work the inbox and next-slot bounds promise a turn to), or its full slice
    /// (<see cref="FloodPolicy.SliceMilliseconds"/>) and any other work waits for a worker; else returns null, and sets
    /// <paramref name="start"/> to turn the run's later checks off if its pace ends it within the shorter slice.
    /// </summary>
    private Task? TryYield(ref long start, int from, int next, int appended, int failed, Exception? own)
    {
        BocScheduler scheduler = Runtime.BocSchedulerOrNull!;
        FloodPolicy floods = scheduler.Floods;
        long elapsed = Stopwatch.GetTimestamp() - start;
        long shortest = Math.Min(floods.InboxSliceTicks, floods.SliceTicks);
        if (elapsed < shortest)
        {
            // Not long yet. If the bodies so far ran fast enough that the whole run, at their pace, ends within the inbox
            // slice (a flood of cheap messages: tens of nanoseconds a body), check no more: such a run pays one
            // timestamp at its start and one here, as it paid two reads of the coarse clock before.
            if (elapsed * (appended - from) < shortest * (next - from))
            {
                start = NeverYield;
            }

            return null;
        }

        // The worker's own queue is owed a turn only if no peer is free to steal it (PeerCanTakeQueuedWork): a free peer
        // takes it while this run goes on, and the cowns' state stays on this core.
        if (BocThread.CurrentOrNull?.Worker is not { } worker || worker.Scheduler != scheduler
            || !((elapsed >= floods.InboxSliceTicks
                    && (scheduler.HasInboxWork || (!worker.Queue.IsEmpty && !scheduler.PeerCanTakeQueuedWork(worker))))
                || (elapsed >= floods.SliceTicks && scheduler.HasOtherWork(worker))))
        {
            // Nothing waits that is owed a turn (hints: work queued a moment later waits for the next check), or not on
            // a worker of this scheduler (a shutdown's drain runs the rest on the thread pool): run on.
            return null;
        }

        // Record where the run stopped, then queue the rest. The queue's enqueue publishes these fields to whichever
        // worker takes the rest; after it, this thread touches neither them nor the record (the rest may already be
        // running, and yield again). The task is read before for the same reason.
        var rest = (YieldedAppendedRun?)YieldedRun ?? (YieldedAppendedRun)(YieldedRun = new YieldedAppendedRun(this));
        rest.Next = next;
        rest.Appended = appended;
        rest.Failed = failed;
        rest.Own = own;
        Task task = (rest.Completion ??= new TaskCompletionSource()).Task;
        scheduler.Floods.CountYield();
        if (!scheduler.HasInboxWork && !worker.Queue.IsEmpty)
        {
            // What waits is this worker's own queue (a body's replies, say): the rest goes behind it there, so it runs
            // after them and, unless a peer steals it first, on this worker, where the cowns' state is in cache. Sent
            // to the inbox, it went to whichever worker looked first, so the state often changed cores at a yield.
            scheduler.EnqueueYieldedLocal(worker, rest);
        }
        else
        {
            scheduler.EnqueueYielded(rest);
        }

        return task;
    }

    /// <summary>Runs the rest of a yielded run: on a worker that took it from the inbox, or on the thread pool after a shutdown.</summary>
    private void RunRest(YieldedAppendedRun rest)
    {
        // Taken before the run: if it yields again, another worker may finish it and reset the record meanwhile.
        TaskCompletionSource completion = rest.Completion!;
        BocThread thread = BocThread.Current;
        ref Behaviour? running = ref thread.Running;
        Behaviour? outer = running;
        running = this;
        Task? yieldedAgain;
        try
        {
            yieldedAgain = RunAppended(rest.Next, rest.Appended, rest.Failed, rest.Own);
        }
#pragma warning disable CA1031 // The own body's failure, rethrown by FinishAppended: it is the run's outcome.
        catch (Exception e)
#pragma warning restore CA1031
        {
            Restore(ref running, outer);
            rest.Reset();
            CompleteHere(completion, e);
            return;
        }

        Restore(ref running, outer);
        if (yieldedAgain is null)
        {
            // The run is over: Run's continuation on this task releases the cowns and reports any failures (Finish).
            rest.Reset();
            CompleteHere(completion, null);
        }
    }

    /// <summary>
    /// Completes a yielded run's task; Run's continuation (the release) then runs inline, on this worker.
    /// </summary>
    /// <remarks>
    /// Inline because Run registered the release under the workers' synchronization context (the run started on a
    /// worker; Behaviour.Run.cs, ReleaseOnCapturedContext), and .NET runs such a continuation inline on any thread whose
    /// current context is that one: every worker's, between items and inside them. Registered without a context, as it
    /// once was, the release went to the thread pool, because a worker carries the scheduler's context: the cowns' next
    /// behaviour was then granted from a pool thread, through the inbox, to whichever worker took it first (the cown's
    /// state changed cores). On Savina's Sorted Linked-List (a large list cown walked by long bodies) that was
    /// thousands of pool items per run (docs/performance/decisions.md, "Sorted Linked-List: the list stays on its
    /// worker"). So the context must stay in place here: lifted, the continuation would be posted back to the workers
    /// instead of running now.
    /// </remarks>
    private static void CompleteHere(TaskCompletionSource completion, Exception? failure)
    {
        if (failure is null)
        {
            completion.SetResult();
        }
        else
        {
            completion.SetException(failure);
        }
    }

    /// <summary>
    /// Where a yielded run of appended bodies stopped, and the work item that runs the rest. One per pooled object,
    /// created on its first yield and reused; a new <see cref="Completion"/> per yielded run.
    /// </summary>
    private sealed class YieldedAppendedRun(AppendableBehaviour owner) : IThreadPoolWorkItem
    {
        internal int Next;
        internal int Appended;
        internal int Failed;
        internal Exception? Own;
        internal TaskCompletionSource? Completion;

        public void Execute() => owner.RunRest(this);

        internal void Reset()
        {
            Own = null;
            Completion = null;
        }
    }
}
