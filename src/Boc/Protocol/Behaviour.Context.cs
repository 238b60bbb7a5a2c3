namespace Boc;

// Which behaviour is running "here": the guards that stop a body from waiting for itself (disposing or draining its
// own runtime, awaiting a behaviour queued behind it) need to know, on whatever thread the body's code is running.
internal abstract partial class Behaviour
{
    /// <summary>
    /// The asynchronous body this logical flow belongs to. Set only around the call of an asynchronous body's delegate:
    /// the body's async state machine captures the execution context holding it, so its continuations see it on any
    /// thread, while the worker's own context is restored as soon as the delegate returns. Synchronous bodies never
    /// write it (an AsyncLocal write allocates an execution context; that is the hot path), they use
    /// <see cref="BocThread.Running"/>.
    /// </summary>
    private static readonly AsyncLocal<AsyncBody?> s_asyncBody = new();

    /// <summary>
    /// Gets the behaviour whose body is running in the current flow: the synchronous body on this thread, or the
    /// asynchronous body whose code (before or after an <c>await</c>) this is. Null outside bodies, and in code an
    /// asynchronous body started (a <c>Task.Run</c>, say) once that body has finished.
    /// </summary>
    internal static Behaviour? Current
    {
        get
        {
            // The async flow first: if an asynchronous body's continuation runs inline inside another body's
            // synchronous part (a completion without RunContinuationsAsynchronously), the code running is the former's.
            Behaviour? asynchronous = s_asyncBody.Value?.Behaviour;
            return asynchronous ?? BocThread.CurrentOrNull?.Running;
        }
    }

    /// <summary>Gets the runtime of the behaviour whose body is running in the current flow (see <see cref="Current"/>).</summary>
    internal static BocRuntime? RunningOn => Current?._runtime;

    /// <summary>
    /// Marks the current flow as this behaviour's asynchronous body; call just before invoking the body's delegate
    /// and pass the result to <see cref="ExitAsyncBody"/> in a <c>finally</c> just after it returns.
    /// </summary>
    /// <param name="body">The marker; store the delegate's task in <see cref="AsyncBody.Task"/>.</param>
    /// <returns>The marker to restore.</returns>
    internal AsyncBody? EnterAsyncBody(out AsyncBody body)
    {
        AsyncBody? outer = s_asyncBody.Value;
        body = new AsyncBody(this);
        s_asyncBody.Value = body;
        return outer;
    }

    /// <summary>Restores the flow's marker once the asynchronous body's delegate has returned (or thrown).</summary>
    internal static void ExitAsyncBody(AsyncBody? outer, AsyncBody body)
    {
        if (body.Task is null)
        {
            // The delegate threw: the body is over, so contexts it captured must not count as the body any more.
            body.Ended = true;
        }

        s_asyncBody.Value = outer;
    }

    /// <summary>
    /// One run of an asynchronous body, as seen from the execution contexts that captured it. A new object per run,
    /// never pooled: a context can outlive the body (a task the body started and did not await), and the behaviour
    /// object is reused, so the marker must name this run, not the behaviour.
    /// </summary>
    internal sealed class AsyncBody(Behaviour behaviour)
    {
        // Written by the body's runner, read by any flow that captured the context: acquire and release.
        private Task? _task;
        private bool _ended;

        /// <summary>Gets or sets the body's task, once its delegate has returned.</summary>
        internal Task? Task
        {
            get => Atomic.Read(ref _task);
            set => Atomic.Write(ref _task, value);
        }

        /// <summary>Sets whether the body ended without a task (its delegate threw).</summary>
        internal bool Ended
        {
            set => Atomic.Write(ref _ended, value);
        }

        /// <summary>Gets the behaviour while its body runs: until its task completes. Null afterwards.</summary>
        internal Behaviour? Behaviour => Atomic.Read(ref _ended) || Atomic.Read(ref _task) is { IsCompleted: true } ? null : behaviour;
    }
}
