using System.Diagnostics;
using System.Runtime.CompilerServices;
using Boc.Dispatch;

namespace Boc;

internal abstract partial class Behaviour
{
    // ---------------------------------------------------------------------------------------------------------------
    // Run and complete
    // ---------------------------------------------------------------------------------------------------------------

    void IThreadPoolWorkItem.Execute() => Run(BocThread.Current);

    /// <summary>
    /// Runs the body on the current thread, then completes (now, or when an asynchronous body finishes).
    /// <paramref name="thread"/> is the calling thread's <see cref="BocThread"/>: a <see cref="BocScheduler"/> worker
    /// passes its own, looked up once, and a synchronous body's release uses it too.
    /// </summary>
    internal void Run(BocThread thread)
    {
        AssertLive();
        if (Cancellation is { } cancellation && !cancellation.TryStart())
        {
            // Withdrawn: every slot has been (or is being) passed on instead; join the canceller ("Cancellation").
            cancellation.Join();
            return;
        }

        Task? task;
        _started = true;

        // Metrics and tracing (Behaviour.Diagnostics.cs): only if something was captured at spawn.
        Activity? ambient = _spawnMicros != 0 || _traced ? OnBodyStarting() : null;
        // The thread's object is fixed for the thread's lifetime, and this method runs on one thread until it returns.
        ref Behaviour? running = ref thread.Running;
        Behaviour? outer = running;
        running = this;
        try
        {
            task = InvokeBody();
        }
        catch (Exception e)
        {
            Restore(ref running, outer);
            Finish(e, null, thread);
            return;
        }

        Restore(ref running, outer);
        if (_traced)
        {
            LeaveSpanOnThisThread(ambient);
        }

        if (task is null || task.IsCompleted)
        {
            Finish(ErrorOf(task), task, thread);
            return;
        }

        // Asynchronous body: keep the cowns until its task completes. The delegate is created once per pooled object,
        // not per behaviour.
        BehaviourExtras extras = _extras ??= new BehaviourExtras();
        BodyTaskCompletion completion = extras.BodyTask ??= new BodyTaskCompletion(this);
        completion.Task = task;
        task.ConfigureAwait(ReleaseOnCapturedContext()).GetAwaiter().UnsafeOnCompleted(completion.OnCompleted);
    }

    /// <summary>
    /// Puts back the behaviour that ran on this thread before a body (<paramref name="outer"/>): null on a worker, whose
    /// items do not nest, so the common case is a store of null, which needs no GC write barrier; only an inline run
    /// inside another body's run puts a behaviour back.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static void Restore(ref Behaviour? running, Behaviour? outer)
    {
        if (outer is null)
        {
            running = null;
        }
        else
        {
            running = outer;
        }
    }

    /// <summary>
    /// Whether an asynchronous body's release continues on the synchronization context captured here: the workers'
    /// context, when the body started under it, and Boc.Testing's controlled run's; never anyone else's.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Why the workers' context. Without a captured context, a task runs the continuation inline only on a thread that
    /// has no synchronization context of its own, and every worker carries the scheduler's: so the release of a body
    /// whose task completed on a worker (any body whose last await resumed there) went to the thread pool, whose
    /// threads woke and spun beside the workers, and the cowns' next behaviour was granted from a pool thread, through
    /// the inbox, to whichever worker looked first. Captured, .NET runs the continuation inline on any thread whose
    /// current context is this one (every worker of the scheduler), and posts it to the workers from any other thread:
    /// a body whose task completes on a thread of its own (an I/O callback, a TaskCompletionSource completed by another
    /// thread) is released on a worker too, as its awaits resume there. The price is one continuation object per
    /// body that suspends (the awaiter's record of the context), beside the body's own state machine; the pool item
    /// it replaces cost about as much (docs/performance/decisions.md, "An asynchronous body is released on the
    /// workers").
    /// </para>
    /// <para>
    /// Never another context: the caller's may be a single-threaded one it is blocking (a UI thread, a test harness),
    /// so a body run on the thread-pool dispatcher, or on a thread with a context of its own, is released wherever its
    /// task completes, as before. Under Boc.Testing the runtime asks for the captured context always: the controlled
    /// run's, which queues the release as a step of the run.
    /// </para>
    /// </remarks>
    private bool ReleaseOnCapturedContext()
    {
        BocRuntime runtime = _runtime!;
        return runtime.ContinuesOnCapturedContext
            || (runtime.BocSchedulerOrNull is { } scheduler && ReferenceEquals(SynchronizationContext.Current, scheduler.Context));
    }



    /// <summary>Finishes a behaviour when its body's task completes; one per pooled object, reused.</summary>
    private sealed class BodyTaskCompletion
    {
        /// <summary>The continuation, created once, so that awaiting a body allocates nothing per behaviour.</summary>
        internal readonly Action OnCompleted;

        /// <summary>The running body's task; set before the continuation is registered, cleared when it runs.</summary>
        internal Task? Task;

        private readonly Behaviour _owner;

        internal BodyTaskCompletion(Behaviour owner)
        {
            _owner = owner;
            OnCompleted = Complete;
        }

        private void Complete()
        {
            Task task = Task!;
            Task = null;
            _owner.Finish(ErrorOf(task), task, null);
        }
    }

    /// <summary>
    /// Releases the cowns, delivers the outcome and counts the behaviour out. <paramref name="thread"/> is the calling
    /// thread's <see cref="BocThread"/> if the caller has it at hand (a synchronous body's run), else null.
    /// </summary>
    private void Finish(Exception? error, Task? bodyTask, BocThread? thread)
    {
        // Release first, so the awaiter of a result never observes the cowns still held. Release never runs user
        // code inline: it only resolves countdowns, and a ready behaviour goes to the dispatcher.
        int count = _slotCount;
        for (int i = 0; i < count; i++)
        {
            ref Slot slot = ref SlotAt(i);
            Cown cown = slot.Target;
            if (slot.IsRead)
            {
                LeaveRead(cown);
                continue;
            }

            Behaviour? next = PassOn(ref slot);
            if (next is not null)
            {
                Grant(next, cown, thread);
            }
        }

        // A token callback may still fire: it finds the request Started and touches nothing (see "Cancellation"). A
        // scope member is counted out of its scope last (Scopes/BocScope.Members.cs), so read the scope before Deliver
        // may give the behaviour back to the pool; both live in the side object, so a behaviour without one pays one test.
        BocScope? scope = null;
        if (_extras is { } extras)
        {
            extras.Cancellation?.Unregister();
            scope = extras.Scope;
        }

        // Nothing outside reaches this behaviour any more (see "Reuse", Pooling/Behaviour.Reuse.cs). Deliver may hand
        // it to an awaiter, who returns it to the pool; otherwise it returns here.
        // No try/finally around the delivery to count the behaviour out whatever happens: Deliver does not throw (what
        // it runs that is not the runtime's own, an awaiter's context scheduling its continuation or an unhandled-
        // exception handler, is caught and reported where it is called: ResultBehaviour.Deliver, ReportUnhandled), nor
        // does Recycle. The handler cost every behaviour its locals spilled around it (docs/performance/decisions.md,
        // "The release without a finally").
        BocRuntime runtime = _runtime!;
        OnBodyFinished(runtime, error);
        runtime.GiveRoomBack();
        if (!Deliver(error, bodyTask))
        {
            Recycle(thread ?? BocThread.Current);
        }

        // After the outcome: a member's failure is in its scope before the scope can see the member finished.
        scope?.CountOut();
        runtime.CountOut(thread);
    }

    /// <summary>
    /// Records the cowns this behaviour held in <paramref name="error"/>'s <see cref="Exception.Data"/> under
    /// <see cref="BocRuntime.FailedCownsDataKey"/> (slots are still intact: they are cleared only on recycling).
    /// </summary>
    protected void AnnotateFailure(Exception error)
    {
        string cowns = DescribeCowns();
        try
        {
            error.Data[BocRuntime.FailedCownsDataKey] = cowns;
        }
#pragma warning disable CA1031 // A custom exception's Data may refuse the entry; the failure is still reported.
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    /// <summary>
    /// The cowns this behaviour requests, as a log reader wants them: "alice#3 (write), Cown#12 (read)". Only while its
    /// slots are intact (from the spawn until it is recycled).
    /// </summary>
    protected string DescribeCowns()
    {
        var text = new System.Text.StringBuilder();
        for (int i = 0; i < _slotCount; i++)
        {
            if (i > 0)
            {
                text.Append(", ");
            }

            ref Slot slot = ref SlotAt(i);
            text.Append(slot.Target).Append(slot.IsRead ? " (read)" : " (write)");
        }

        return text.ToString();
    }

    private static Exception? ErrorOf(Task? task)
    {
        if (task is null || task.IsCompletedSuccessfully)
        {
            return null;
        }

        if (task.IsCanceled)
        {
            return new TaskCanceledException(task);
        }

        AggregateException aggregate = task.Exception!;
        return aggregate.InnerExceptions.Count == 1 ? aggregate.InnerExceptions[0] : aggregate;
    }
}
