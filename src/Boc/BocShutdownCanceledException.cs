namespace Boc;

/// <summary>
/// Thrown by <see cref="BocRuntime.ShutdownAsync(CancellationToken)"/> when its token is canceled before the runtime
/// has drained. It is an <see cref="OperationCanceledException"/>, so code that handles cancellation in general
/// handles it too; <see cref="PendingBehaviours"/> says how much work was still unfinished.
/// </summary>
/// <remarks>
/// The runtime stays shut to new behaviours, and the pending ones keep running: call
/// <see cref="BocRuntime.ShutdownAsync(CancellationToken)"/> again to wait longer.
/// </remarks>
public sealed class BocShutdownCanceledException : OperationCanceledException
{
    /// <summary>Creates the exception with a default message.</summary>
    public BocShutdownCanceledException()
        : base("The shutdown of a Boc runtime was canceled before every accepted behaviour had finished.")
    {
    }

    /// <summary>Creates the exception with a message.</summary>
    /// <param name="message">The message.</param>
    public BocShutdownCanceledException(string? message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and the exception that caused it.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The cause.</param>
    public BocShutdownCanceledException(string? message, Exception? innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Creates the exception for a shutdown canceled with <paramref name="pendingBehaviours"/> still pending.</summary>
    /// <param name="pendingBehaviours">How many accepted behaviours had not finished.</param>
    /// <param name="innerException">The cancellation that stopped the wait.</param>
    /// <param name="cancellationToken">The token that was canceled.</param>
    internal BocShutdownCanceledException(long pendingBehaviours, Exception? innerException, CancellationToken cancellationToken)
        : base(
            $"The shutdown of a Boc runtime was canceled with {pendingBehaviours} accepted behaviour(s) not finished (queued, running, or awaiting in an asynchronous body). The runtime accepts no new behaviours; the pending ones keep running.",
            innerException,
            cancellationToken)
    {
        PendingBehaviours = pendingBehaviours;
    }

    /// <summary>
    /// Gets how many accepted behaviours had not finished (queued, running, or in an asynchronous body) when the wait
    /// was canceled; zero when the exception was not created by <see cref="BocRuntime.ShutdownAsync(CancellationToken)"/>.
    /// </summary>
    public long PendingBehaviours { get; }
}
