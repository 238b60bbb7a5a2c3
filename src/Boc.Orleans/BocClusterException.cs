namespace Boc.Orleans;

/// <summary>
/// A distributed behaviour could not be run: every attempt (<see cref="BocClusterOptions.MaxAttempts"/>) was abandoned
/// because a cown became unavailable, or its idempotency key was fenced by a lookup that answered NotCommitted (or the
/// keyed call had run for half of <see cref="BocClusterOptions.CommitRecordRetention"/>). None of the attempts wrote
/// anything; the last failure is the inner exception.
/// </summary>
public sealed class BocClusterException : Exception
{
    /// <summary>Initializes a new instance with a default message.</summary>
    public BocClusterException()
        : base("The distributed behaviour could not be run.")
    {
    }

    /// <summary>Initializes a new instance with a message.</summary>
    /// <param name="message">The message.</param>
    public BocClusterException(string message)
        : base(message)
    {
    }

    /// <summary>Initializes a new instance with a message and the failure that caused it.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The last attempt's failure.</param>
    public BocClusterException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
