namespace Boc.Orleans;

/// <summary>
/// A distributed behaviour ran and asked its coordinator cown to commit, but the spawner could not learn the answer:
/// the coordinator was unreachable for two leases. Its writes are applied on every cown or on none; the cowns settle
/// it among themselves once the coordinator answers. Unlike <see cref="BocClusterException"/>, the writes may have
/// happened: look the outcome up with <see cref="IBocCluster.GetOutcomeAsync{T}(ClusterCown{T}, string)"/> if the
/// behaviour was spawned with an idempotency key, or retry it with the same key, which cannot apply it twice.
/// </summary>
public sealed class BocClusterOutcomeUnknownException : Exception
{
    /// <summary>Initializes a new instance with a default message.</summary>
    public BocClusterOutcomeUnknownException()
        : base("The distributed behaviour's commit outcome is unknown.")
    {
    }

    /// <summary>Initializes a new instance with a message.</summary>
    /// <param name="message">The message.</param>
    public BocClusterOutcomeUnknownException(string message)
        : base(message)
    {
    }

    /// <summary>Initializes a new instance with a message and the last failure to reach the coordinator.</summary>
    /// <param name="message">The message.</param>
    /// <param name="innerException">The last failure.</param>
    public BocClusterOutcomeUnknownException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    internal BocClusterOutcomeUnknownException(string message, string? idempotencyKey, string coordinator, Exception? innerException)
        : base(message, innerException)
    {
        IdempotencyKey = idempotencyKey;
        Coordinator = coordinator;
    }

    /// <summary>Gets the behaviour's idempotency key, if it was spawned with one.</summary>
    public string? IdempotencyKey { get; }

    /// <summary>Gets the coordinator cown's type and key (type/key): the cown to pass to <c>GetOutcomeAsync</c>.</summary>
    public string? Coordinator { get; }
}
