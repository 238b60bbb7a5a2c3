namespace Boc.Orleans;

/// <summary>
/// A behaviour spawned with an idempotency key was not run because a behaviour with the same key already committed
/// at its coordinator cown (within <see cref="BocClusterOptions.CommitRecordRetention"/>): its writes are there once.
/// Nothing of this attempt was written. Treat it as the earlier spawn's success; its result, if any, is not kept.
/// </summary>
public sealed class BocClusterDuplicateException : Exception
{
    /// <summary>Initializes a new instance with a default message.</summary>
    public BocClusterDuplicateException()
        : base("A behaviour with the same idempotency key already committed.")
    {
    }

    /// <summary>Initializes a new instance with a message.</summary>
    /// <param name="message">The message.</param>
    public BocClusterDuplicateException(string message)
        : base(message)
    {
    }

    /// <summary>Initializes a new instance with a message and an inner exception.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The inner exception.</param>
    public BocClusterDuplicateException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    internal BocClusterDuplicateException(string idempotencyKey, string coordinator)
        : base($"A behaviour with the idempotency key '{idempotencyKey}' already committed at {coordinator}; this one was not run.")
    {
        IdempotencyKey = idempotencyKey;
    }

    /// <summary>Gets the idempotency key.</summary>
    public string? IdempotencyKey { get; }
}
