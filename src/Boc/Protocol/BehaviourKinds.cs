using System.Threading.Tasks.Sources;

namespace Boc;

/// <summary>
/// Base of fire-and-forget behaviours (<c>When</c>): a body's exception goes to the runtime's handler, and the
/// behaviour returns to the pool as soon as it finishes. No completion state is carried, which keeps the object small.
/// </summary>
internal abstract class FireAndForgetBehaviour : Behaviour
{
    internal sealed override void Abandon(Exception reason) => Recycle();

    protected override bool Deliver(Exception? error, Task? bodyTask)
    {
        if (error is not null)
        {
            // Say which behaviour failed, by the cowns it held: that is what a log reader needs to find it. A scope
            // member's failure goes to its scope, whose finish delivers it, instead of the runtime's handler.
            AnnotateFailure(error);
            if (Scope is { } scope)
            {
                scope.AddFailure(error);
            }
            else
            {
                Runtime.ReportUnhandled(error);
            }
        }

        return false;
    }
}

/// <summary>
/// Base of awaited behaviours (<c>WhenAsync</c>). The behaviour is itself the <see cref="IValueTaskSource{TResult}"/>
/// (and, for bodies without a value, the <see cref="IValueTaskSource"/>) behind the returned awaitable, so no
/// <see cref="Task"/> is allocated per behaviour; it returns to the pool once the awaiter has taken the outcome.
/// </summary>
internal abstract class ResultBehaviour<TResult> : Behaviour, IValueTaskSource<TResult>, IValueTaskSource
{
    // RunContinuationsAsynchronously: the awaiter's continuation is queued, never run on the thread that is releasing
    // cowns (a continuation that blocks there could hold the only worker that can run what it waits for).
    private ManualResetValueTaskSourceCore<TResult> _core = new() { RunContinuationsAsynchronously = true };
    private TResult? _result;

    // Two parties must be done before the behaviour can be reused: the thread delivering the outcome, and the awaiter
    // taking it. The awaiter can see the core completed while SetResult is still running on the delivering thread (the
    // core publishes "completed" before it looks for a continuation); resetting and reusing the core at that moment
    // would let the old SetResult run the next awaiter's continuation. Whoever finishes second resets and recycles.
    private int _owners = 2;

    // The hand-over of the outcome to the awaiter: holds the core's version while the outcome of that use is still
    // to be taken, and Taken once a GetResult has claimed it. The claim is one CAS from the version in the caller's
    // token, so of two threads taking one result at once exactly one wins and releases ownership; the other fails as
    // a double await does. Comparing with the version (not a flag) also refuses a stale token that raced with a reuse.
    private const int Taken = int.MinValue;
    private int _claim;

    /// <summary>Why the claimed awaiter's wait failed, if it was a self-wait; cleared when the behaviour is reset.</summary>
    private InvalidOperationException? _selfWait;

    /// <summary>Gets the awaitable for this spawn. Read it before the behaviour is enqueued: afterwards it may already be reused.</summary>
    internal ValueTask<TResult> Completion => new(this, _core.Version);

    /// <summary>Gets the value-less awaitable for this spawn (for bodies without a result). Read it before enqueuing.</summary>
    internal ValueTask VoidCompletion => new(this, _core.Version);

    /// <inheritdoc/>
    internal sealed override bool IsAwaited => true;

    protected void SetResult(TResult result) => _result = result;

    internal sealed override void Abandon(Exception reason)
    {
        // Never enqueued, so nothing else reaches it: deliver the failure as a finished behaviour would.
        if (!Deliver(reason, null))
        {
            Recycle();
        }
    }

    protected sealed override bool Deliver(Exception? error, Task? bodyTask)
    {
        Publish(error, bodyTask);

        // True: the awaiter has not taken the outcome yet and will recycle. False: it already has, so we do.
        return !ReleaseOwnership();
    }

    protected sealed override void DeliverWithdrawn(Exception error) => Publish(error, null);

    protected sealed override bool ReleaseDeliveredShare() => !ReleaseOwnership();

    /// <summary>Completes the awaitable with the outcome; the delivering party's hold stays (see <see cref="_owners"/>).</summary>
    private void Publish(Exception? error, Task? bodyTask)
    {
        try
        {
            if (error is not null)
            {
                _core.SetException(error);
            }
            else
            {
                // An asynchronous body's value is in its task; a value-less asynchronous body leaves the default.
                TResult result = bodyTask is Task<TResult> valued ? valued.Result : _result!;
                _result = default;
                _core.SetResult(result);
            }
        }
#pragma warning disable CA1031 // Whatever the awaiter's context throws must not escape the worker (it ends the process).
        catch (Exception deliveryError)
#pragma warning restore CA1031
        {
            // The core publishes the outcome and then schedules the awaiter's continuation on the context the awaiter
            // captured (a SynchronizationContext's Post, a TaskScheduler). If that throws, the continuation is lost:
            // nobody will take the outcome. Report it like a fire-and-forget failure, and take the awaiter's part of
            // the hand-over ourselves (if it has not taken the outcome by polling meanwhile) so the behaviour is
            // recycled; a later GetResult with this token then fails as a double await does.
            _result = default;
            Runtime.ReportUnhandled(new InvalidOperationException(
                "The outcome of a behaviour could not be delivered: scheduling its awaiter's continuation threw. The awaiter will not resume.",
                deliveryError));
            short version = _core.Version;
            if (Atomic.CompareExchange(ref _claim, Taken, version) == version)
            {
                ReleaseOwnership();
            }
        }
    }

    ValueTaskSourceStatus IValueTaskSource<TResult>.GetStatus(short token) => StatusOf(token);

    ValueTaskSourceStatus IValueTaskSource.GetStatus(short token) => StatusOf(token);

    /// <summary>
    /// The core's status for <paramref name="token"/>, or Boc's own error for a stale token: the core's would be the BCL's
    /// "Operation is not valid due to the current state of the object", which does not tell a user what they did.
    /// </summary>
    private ValueTaskSourceStatus StatusOf(short token)
    {
        if (token != _core.Version)
        {
            throw AwaitedTwice(null);
        }

        return _core.GetStatus(token);
    }

    /// <summary>The error for a second await of one result; <paramref name="cowns"/> names the behaviour, if it still can.</summary>
    private static InvalidOperationException AwaitedTwice(string? cowns) =>
        new($"The result of a behaviour{(cowns is null ? "" : $" on {cowns}")} was already taken: the ValueTask returned by WhenAsync may be awaited (or its result read) only once, "
            + "because the behaviour behind it is pooled and reused. Await it once, or call AsTask() once and use that Task as often as needed.");

    void IValueTaskSource<TResult>.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        OnCompleted(continuation, state, token, flags);

    void IValueTaskSource.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        OnCompleted(continuation, state, token, flags);

    TResult IValueTaskSource<TResult>.GetResult(short token) => TakeResult(token);

    void IValueTaskSource.GetResult(short token) => TakeResult(token);

    /// <summary>
    /// Registers the awaiter's continuation, unless the awaiter is a body this behaviour waits for (a self-wait).
    /// Both <c>await</c> and blocking (<c>AsTask().Wait()</c>) come through here while the outcome is pending.
    /// </summary>
    private void OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags)
    {
        if (token != _core.Version)
        {
            throw AwaitedTwice(null);
        }

        if (Runtime is { ContinuesOnCapturedContext: true })
        {
            // Under Boc.Testing every resumption must come back through the controlled run's context: without this,
            // AsTask() or ConfigureAwait(false) would resume on the thread pool, outside the run's control.
            flags |= ValueTaskSourceOnCompletedFlags.UseSchedulingContext;
        }

        // Behaviour.Current is null outside bodies: the common case costs one thread-static and one AsyncLocal read.
        if (Behaviour.Current is { } waiter
            && _core.GetStatus(token) == ValueTaskSourceStatus.Pending
            && WaitsFor(waiter)
            && Atomic.CompareExchange(ref _claim, Taken, token) == token)
        {
            // The awaiting body holds a cown this behaviour is queued for: it would wait for itself forever. Fail its
            // wait instead. Throwing here is not an option (an async method's builder rethrows an awaiter's exception
            // on the thread pool, ending the process), so the continuation is scheduled now and its GetResult throws.
            // This use is claimed for the failed awaiter, so nobody can take its outcome later. The behaviour still
            // runs once the body has released the cown, but it is not recycled: the awaiter's share of ownership is
            // never given back. Giving it back here would let the delivery reset the core under any continuation a
            // second consumer (a misuse) had registered, whose stale-token failure would surface on the thread pool;
            // leaving one object to the GC on an error path the program must fix anyway costs nothing.
            _selfWait = new InvalidOperationException(
                "A behaviour's body awaits (or blocks on) a behaviour that needs a cown the body holds; that behaviour can run only "
                + "after the body ends, so the body would wait for itself forever. Spawn it and do not wait for it inside the body, "
                + "or wait for it outside.");
            ScheduleFailedContinuation(continuation, state, flags);
            return;
        }

        _core.OnCompleted(continuation, state, token, flags);
    }

    /// <summary>Runs a continuation whose wait was failed, respecting the awaiter's flags as the completion core would.</summary>
    private static void ScheduleFailedContinuation(Action<object?> continuation, object? state, ValueTaskSourceOnCompletedFlags flags)
    {
        if ((flags & ValueTaskSourceOnCompletedFlags.UseSchedulingContext) != 0)
        {
            if (SynchronizationContext.Current is { } context && context.GetType() != typeof(SynchronizationContext))
            {
                context.Post(static s => { var (c, st) = ((Action<object?>, object?))s!; c(st); }, (continuation, state));
                return;
            }

            TaskScheduler scheduler = TaskScheduler.Current;
            if (scheduler != TaskScheduler.Default)
            {
                _ = Task.Factory.StartNew(continuation, state, CancellationToken.None, TaskCreationOptions.DenyChildAttach, scheduler);
                return;
            }
        }

        if ((flags & ValueTaskSourceOnCompletedFlags.FlowExecutionContext) != 0)
        {
            ThreadPool.QueueUserWorkItem(continuation, state, preferLocal: false);
        }
        else
        {
            ThreadPool.UnsafeQueueUserWorkItem(continuation, state, preferLocal: false);
        }
    }

    private TResult TakeResult(short token)
    {
        // A stale token (the ValueTask awaited twice, after the behaviour was reused) makes StatusOf throw: the
        // version check of the pooled source. A pending outcome makes the core's GetResult throw.
        if (StatusOf(token) == ValueTaskSourceStatus.Pending)
        {
            // A wait failed as a self-wait (see OnCompleted) leaves the outcome pending: its awaiter gets the reason.
            if (Atomic.Read(ref _selfWait) is { } selfWait && Atomic.Read(ref _claim) == Taken)
            {
                throw selfWait;
            }

            return _core.GetResult(token);
        }

        // Completed: only the one caller that claims this use takes the outcome and hands the behaviour back. Checking
        // the token and then releasing, as two steps, let two threads both pass the check and release twice; the
        // second release then stole the next, innocent use's ownership.
        if (Atomic.CompareExchange(ref _claim, Taken, token) != token)
        {
            // Still this use (the behaviour is not recycled while a withdrawn one waits in its queues): name its cowns.
            throw AwaitedTwice(Atomic.Read(ref _claim) == Taken && token == _core.Version ? DescribeCowns() : null);
        }

        try
        {
            return _core.GetResult(token);
        }
        finally
        {
            if (ReleaseOwnership())
            {
                Recycle();
            }
        }
    }

    /// <summary>
    /// A refused spawn's awaitable never left the spawning method, and neither party of the hand-over has done anything;
    /// moving the version on (as <see cref="ReleaseOwnership"/> does) makes that awaitable stale all the same.
    /// </summary>
    protected sealed override void ForgetCompletion()
    {
        _result = default;
        _core.Reset();
        _claim = _core.Version;
    }

    /// <summary>Gives up one party's hold; returns true (with the core reset) if the caller must recycle.</summary>
    private bool ReleaseOwnership()
    {
        if (Atomic.Decrement(ref _owners) != 0)
        {
            return false;
        }

        // Both parties are done: reset for the next use. Reset moves the version on, so stale ValueTasks are detected.
        _owners = 2;
        _selfWait = null;
        _core.Reset();

        // Open the next use for claiming. Published to its awaiter by the pool hand-over and the enqueue's fences.
        _claim = _core.Version;
        return true;
    }
}
