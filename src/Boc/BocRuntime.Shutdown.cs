using Boc.Diagnostics;

namespace Boc;

// Disposal drains (the class remarks): stop accepting, then wait until every accepted behaviour has finished, then stop
// the runtime's own workers. The Dekker pair with the spawn path (count in, then read the flag; set the flag, then
// fence and count) is PendingCount's, "Waking a waiter".
public sealed partial class BocRuntime
{
    /// <summary>
    /// Stops accepting behaviours and blocks until every accepted one has finished (see the class remarks).
    /// </summary>
    /// <exception cref="InvalidOperationException">
    /// Called on <see cref="Default"/>, from the body of a behaviour of this runtime (before or after an <c>await</c>),
    /// from a worker of the runtime's <see cref="BocScheduler"/>, or from the runtime's
    /// <see cref="BocRuntimeOptions.UnhandledExceptionHandler"/> (each would wait for itself; use <see cref="DisposeAsync"/>).
    /// </exception>
    /// <exception cref="AggregateException">Fire-and-forget behaviours threw exceptions that nobody observed.</exception>
    /// <remarks>
    /// After a <see cref="ShutdownAsync(CancellationToken)"/> that gave up at its token, disposal no longer waits: if
    /// behaviours are still pending it returns at once, and the runtime's workers stop when the last of them finishes.
    /// Call <see cref="ShutdownAsync(CancellationToken)"/> again to wait for them.
    /// </remarks>
    public void Dispose()
    {
        if (ReleaseLaterIfGivenUp())
        {
            return;
        }

        ThrowIfInOwnBody("dispose");
        if (_ownedScheduler?.IsWorkerThread == true || BocThread.CurrentOrNull?.Handling == this)
        {
            throw new InvalidOperationException(
                "Dispose blocks until every behaviour has finished; on one of the runtime's own workers, or in its unhandled-exception handler (which runs while the failed behaviour is pending), it would wait for itself. Use DisposeAsync.");
        }

        BeginDispose();
        _pending.WhenQuiescent().GetAwaiter().GetResult();
        _ownedScheduler?.Dispose();
        BocMetrics.Runtimes.Remove(this);
        _unobserved.ThrowIfAny();
    }

    /// <summary>
    /// Stops accepting behaviours and completes when every accepted one has finished (see the class remarks). The same
    /// as <see cref="ShutdownAsync(CancellationToken)"/> without a way out.
    /// </summary>
    /// <returns>A task that completes when the runtime has drained.</returns>
    /// <exception cref="InvalidOperationException">
    /// Called on <see cref="Default"/>, or from the body of a behaviour of this runtime (before or after an
    /// <c>await</c>: it would wait for itself). The returned task fails with it, and the runtime keeps accepting.
    /// </exception>
    /// <exception cref="AggregateException">Fire-and-forget behaviours threw exceptions that nobody observed.</exception>
    /// <remarks>
    /// After a <see cref="ShutdownAsync(CancellationToken)"/> that gave up at its token, disposal no longer waits: if
    /// behaviours are still pending it completes at once, and the runtime's workers stop when the last of them
    /// finishes. Call <see cref="ShutdownAsync(CancellationToken)"/> again to wait for them.
    /// </remarks>
    public ValueTask DisposeAsync() => ReleaseLaterIfGivenUp() ? default : new(ShutdownAsync(CancellationToken.None));

    /// <summary>
    /// Stops accepting behaviours, waits until every accepted one has finished, then stops the runtime's
    /// <see cref="BocScheduler"/> workers, if it has them: a drain with a way out, in the manner of
    /// <c>IHost.StopAsync</c>.
    /// </summary>
    /// <param name="cancellationToken">
    /// Gives up the wait. The runtime still accepts nothing new, and the pending behaviours keep running: call this
    /// method again to wait for them (<see cref="Dispose"/> and <see cref="DisposeAsync"/> then no longer wait, so that
    /// an <c>await using</c> or a container that disposes the runtime after a bounded shutdown does not wait without a
    /// limit for what was given up on). An already drained runtime completes even if the token is canceled.
    /// </param>
    /// <returns>A task that completes when the runtime has drained.</returns>
    /// <exception cref="BocShutdownCanceledException">
    /// <paramref name="cancellationToken"/> was canceled first; <see cref="BocShutdownCanceledException.PendingBehaviours"/>
    /// says how many behaviours had not finished. It is an <see cref="OperationCanceledException"/>.
    /// </exception>
    /// <exception cref="InvalidOperationException">
    /// Called on <see cref="Default"/>, or from the body of a behaviour of this runtime (before or after an
    /// <c>await</c>: it would wait for itself). The returned task fails with it, and the runtime keeps accepting.
    /// </exception>
    /// <exception cref="AggregateException">Fire-and-forget behaviours threw exceptions that nobody observed.</exception>
    public async Task ShutdownAsync(CancellationToken cancellationToken)
    {
        BeginDispose();
        try
        {
            await _pending.WhenQuiescent().WaitAsync(cancellationToken).ConfigureAwait(ContinuesOnCapturedContext);
        }
        catch (OperationCanceledException canceled) when (canceled.CancellationToken == cancellationToken)
        {
            Atomic.Write(ref _shutdownGivenUp, true);
            throw new BocShutdownCanceledException(_pending.Estimate(), canceled, cancellationToken);
        }

        if (_ownedScheduler is { } scheduler)
        {
            // Joining the workers blocks; never do it on one of them (a continuation of this method may run there).
            if (scheduler.IsWorkerThread)
            {
                await Task.Run(scheduler.Dispose, CancellationToken.None).ConfigureAwait(false);
            }
            else
            {
                scheduler.Dispose();
            }
        }

        BocMetrics.Runtimes.Remove(this);
        _unobserved.ThrowIfAny();
    }

    private void BeginDispose()
    {
        if (_isDefault)
        {
            throw new InvalidOperationException("The default runtime lives as long as the process and cannot be disposed.");
        }

        ThrowIfInOwnBody("dispose");
        Atomic.Exchange(ref _disposed, 1);

        // The disposer's half of the spawn's Dekker pair: a worker, or a thread with a line of its own, counts a spawn in
        // with a plain store (PendingCount).
        global::Boc.PendingCount.FenceWorkers();

        // Release every producer waiting for room at once: each looks at _disposed after it registered (under the room
        // lock, which this signal takes after the flag's fenced write), so it is either woken here or sees the flag
        // before it sleeps, and is refused (Engines/Admission.cs, "The wake-up").
        _admission?.ReleaseWaiters();
    }

    /// <summary>
    /// Refuses a wait for this runtime's behaviours from one of those behaviours: the caller is pending until its body
    /// ends, so the wait could never end. Asynchronous bodies are bodies until their task completes (see
    /// <see cref="Behaviour.Current"/>), so this also holds after an <c>await</c>, on any thread.
    /// </summary>
    private void ThrowIfInOwnBody(string operation)
    {
        if (Behaviour.RunningOn == this)
        {
            throw new InvalidOperationException(
                $"A behaviour cannot {operation} its own runtime: that waits for every behaviour of the runtime, including the caller, which would wait for itself.");
        }
    }

    /// <summary>Gets whether the runtime refuses new work (shut down).</summary>
    internal bool IsDisposed => Atomic.Read(ref _disposed) != 0;

    /// <summary>Throws <see cref="ShutDown"/>'s exception if the runtime refuses new work.</summary>
    internal void ThrowIfDisposed()
    {
        if (Atomic.Read(ref _disposed) != 0)
        {
            throw ShutDown();
        }
    }

    /// <summary>
    /// The exception for work offered to a runtime that was shut down: an <see cref="ObjectDisposedException"/>, as
    /// documented, whose message says what happened in the words of the API the caller used, and names the runtime.
    /// </summary>
    private ObjectDisposedException ShutDown() =>
        new(Name is null ? nameof(BocRuntime) : $"{nameof(BocRuntime)} '{Name}'",
            $"The Boc runtime{(Name is null ? "" : $" '{Name}'")} has been shut down (ShutdownAsync, Dispose or DisposeAsync was called on it, "
            + "or by the host that owns it): it accepts no new behaviours or scopes, and nothing was enqueued.");
}
