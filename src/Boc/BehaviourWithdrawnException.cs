namespace Boc;

/// <summary>
/// The outcome of a <c>WhenAsync</c> behaviour that was withdrawn: its <see cref="CancellationToken"/> was canceled
/// before the behaviour had acquired all its cowns, so its body never ran. It is an
/// <see cref="OperationCanceledException"/> (the awaitable completes as canceled), so code that handles cancellation in
/// general handles it too; catching this type tells a withdrawn behaviour from one whose body ran and itself threw an
/// <see cref="OperationCanceledException"/>.
/// </summary>
public sealed class BehaviourWithdrawnException : OperationCanceledException
{
    /// <summary>Creates the exception with a default message.</summary>
    public BehaviourWithdrawnException()
        : base(DefaultMessage)
    {
    }

    /// <summary>Creates the exception with a message.</summary>
    /// <param name="message">The message.</param>
    public BehaviourWithdrawnException(string? message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and the exception that caused it.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The cause.</param>
    public BehaviourWithdrawnException(string? message, Exception? innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Creates the exception for a behaviour withdrawn because <paramref name="cancellationToken"/> was canceled.</summary>
    /// <param name="cancellationToken">The token that was canceled.</param>
    public BehaviourWithdrawnException(CancellationToken cancellationToken)
        : base(DefaultMessage, cancellationToken)
    {
    }

    private const string DefaultMessage =
        "The behaviour was withdrawn: its cancellation token was canceled before it had acquired all its cowns, so its body did not run.";
}
