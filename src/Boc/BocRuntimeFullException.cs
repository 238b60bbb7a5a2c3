namespace Boc;

/// <summary>
/// Thrown by <c>When</c> and <c>WhenAsync</c> called from outside the runtime when the runtime already has
/// <see cref="BocRuntimeOptions.MaxPendingBehaviours"/> behaviours pending and its
/// <see cref="BocRuntimeOptions.FullMode"/> is <see cref="BocFullMode.Throw"/>.
/// </summary>
/// <remarks>
/// Nothing was enqueued and the runtime's <see cref="BocRuntime.PendingCount"/> is unchanged by the refused call: the
/// caller may retry later, or wait with <see cref="BocRuntime.WaitForRoomAsync(CancellationToken)"/>.
/// </remarks>
public sealed class BocRuntimeFullException : InvalidOperationException
{
    /// <summary>Creates the exception with a default message.</summary>
    public BocRuntimeFullException()
        : base("The Boc runtime has as many pending behaviours as its bound allows; nothing was enqueued.")
    {
    }

    /// <summary>Creates the exception with a message.</summary>
    /// <param name="message">The message.</param>
    public BocRuntimeFullException(string? message)
        : base(message)
    {
    }

    /// <summary>Creates the exception with a message and the exception that caused it.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The cause.</param>
    public BocRuntimeFullException(string? message, Exception? innerException)
        : base(message, innerException)
    {
    }

    /// <summary>Creates the exception for a runtime bounded at <paramref name="maxPendingBehaviours"/>.</summary>
    /// <param name="maxPendingBehaviours">The runtime's bound.</param>
    internal BocRuntimeFullException(int maxPendingBehaviours)
        : base($"The Boc runtime already has {maxPendingBehaviours} pending behaviours (BocRuntimeOptions.MaxPendingBehaviours); nothing was enqueued. Retry later, wait with WaitForRoomAsync, or use TryWhen.")
    {
        MaxPendingBehaviours = maxPendingBehaviours;
    }

    /// <summary>Gets the bound of the runtime that refused the behaviour; zero when not created by a runtime.</summary>
    public int MaxPendingBehaviours { get; }
}
