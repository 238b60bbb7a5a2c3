using System.Runtime.CompilerServices;

namespace Boc;

// =====================================================================================================================
// Inline runs: an awaited spawn from outside the runtime that finds every cown free runs its body on the spawning
// thread, before WhenAsync returns, instead of handing it to a worker and waiting for a hop back.
//
// Why: a request handler that awaits WhenAsync otherwise pays two hops (to the worker that runs the body, and back to
// a thread-pool thread for the handler's continuation), where the same handler with a lock runs the critical section
// on its own thread. When nothing holds or waits for the behaviour's cowns, the spawner is exactly where a worker
// would run it next, and the awaiter is waiting for nothing else.
//
// When (all must hold; BocRuntime.SpawnAdmitted and MayRunInlineHere check them before the enqueue):
//   * the spawn is awaited (WhenAsync) and has no cancellation token: a fire-and-forget When keeps its promise to
//     return at once, and a cancellable spawn registers its canceller only after the enqueue (CancellationRequest),
//     which must never find the body already run. (A scope's member may run inline: its registration after the
//     enqueue names the member's life, so finding that life over withdraws nothing; Scopes/BocScope.Members.cs.)
//   * the runtime is one of the public dispatchers (not Boc.Testing's controlled one, which owns every step);
//   * the spawning thread is not one of the runtime's BocScheduler workers, and no body is running in this flow
//     (neither a synchronous body on this thread nor an asynchronous body's continuation): the inline body is then
//     never nested inside another body, so inline runs cannot recurse (a body's own spawns are never inline, since
//     the thread's Running names the body);
//   * the thread has no SynchronizationContext and runs on the default TaskScheduler, and the execution context flows:
//     an asynchronous body's awaits then continue where they would on a worker (the thread pool), not on a UI thread
//     or a caller's custom scheduler;
//   * the enqueue made the behaviour ready by itself (Behaviour.Enqueue's StartReady): every cown's queue was empty and
//     no readers were active, or every predecessor had already passed the turn on during the enqueue.
// Otherwise the spawn is dispatched as usual; an inline run is only ever a behaviour a worker could have run at that
// moment, run by the spawner instead.
//
// Why each guarantee holds:
//   * Spawn order per cown: the behaviour runs only once it holds every cown through the protocol (the same countdown
//     that dispatch waits for); the inline run replaces the dispatch, not the acquisition.
//   * Atomicity and exactly once: as for any run (Behaviour.Run.cs): the countdown reached zero once, here.
//   * A clean execution context: the body runs in the default ExecutionContext (s_cleanContext), as on a worker, so the
//     spawner's AsyncLocal values do not leak into it; the spawner's context is restored afterwards, so nothing the
//     body sets leaks out either.
//   * Where an asynchronous body's awaits resume: where they would had a worker run it. On a BocScheduler the body runs
//     under the scheduler's synchronization context, as the workers' items do, so its continuations are posted to the
//     workers; the spawner had none ("When"), and gets none back. On the thread-pool dispatchers a worker has no
//     context either, and the continuations go to the pool in both cases.
//   * No unbounded recursion: see "When" (no inline run inside a body, and a body's spawns are never inline).
//   * No starvation of queued work: an inline run bypasses no queue (its cowns had none ahead of it) and takes no
//     worker; behaviours it makes ready on release are dispatched as always.
//   * Backpressure: the spawn was admitted and counted in before the enqueue, like every spawn, and counts out in
//     Finish: an inline run occupies one unit of room while it runs.
//   * The awaiter: Finish delivers the outcome before WhenAsync returns, so the awaitable is already complete and the
//     await continues synchronously, without a continuation being scheduled anywhere.
// =====================================================================================================================

internal abstract partial class Behaviour
{
    /// <summary>
    /// The default execution context (no AsyncLocal values), in which inline bodies run, as bodies on a worker do.
    /// <see cref="ExecutionContext"/> has no public accessor for it; a thread started without flowing a context
    /// captures it.
    /// </summary>
    private static ExecutionContext? s_cleanContext;

    /// <summary>Gets whether this behaviour's spawner awaits its outcome (<c>WhenAsync</c>).</summary>
    internal virtual bool IsAwaited => false;

    /// <summary>
    /// Whether an awaited spawn on the calling thread may run inline (see "Inline runs"): no body runs in this flow, no
    /// synchronization context or custom task scheduler would capture the body's awaits, and the context flows.
    /// <paramref name="thread"/> is the calling thread's, which is not a worker of the spawning runtime.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static bool MayRunInlineHere(BocThread thread) =>
        thread.Running is null
        && SynchronizationContext.Current is null
        && TaskScheduler.Current == TaskScheduler.Default
        && s_asyncBody.Value is null
        && !ExecutionContext.IsFlowSuppressed();

    /// <summary>Runs this ready behaviour on the spawning thread, in the default execution context ("Inline runs").</summary>
    private void RunInline(BocThread thread)
    {
        // Not null: flow is not suppressed (MayRunInlineHere), so Capture returns the current context or the default.
        ExecutionContext spawner = ExecutionContext.Capture()!;
        ExecutionContext clean = s_cleanContext ?? CaptureCleanContext();
        if (!ReferenceEquals(spawner, clean))
        {
            ExecutionContext.Restore(clean);
        }

        // The spawner has no synchronization context (MayRunInlineHere), so null is what to put back.
        SynchronizationContext? workers = _runtime!.BocSchedulerOrNull?.Context;
        if (workers is not null)
        {
            SynchronizationContext.SetSynchronizationContext(workers);
        }

        try
        {
            Run(thread);
        }
        finally
        {
            // Whatever the body set on this thread's contexts stays with the body.
            ExecutionContext.Restore(spawner);
            if (workers is not null || SynchronizationContext.Current is not null)
            {
                SynchronizationContext.SetSynchronizationContext(null);
            }
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ExecutionContext CaptureCleanContext()
    {
        ExecutionContext? captured = null;

        // UnsafeStart: the thread starts without the caller's context, so Capture returns the default one.
        var thread = new Thread(() => captured = ExecutionContext.Capture()) { IsBackground = true, Name = "Boc context probe" };
        thread.UnsafeStart();
        thread.Join();
        return s_cleanContext = captured!;
    }
}
