namespace Boc.Orleans;

/// <summary>
/// What a coordinator cown knows about the behaviour spawned with an idempotency key
/// (<see cref="IBocCluster.GetOutcomeAsync{T}(ClusterCown{T}, string)"/>).
/// </summary>
public enum ClusterOutcome
{
    /// <summary>
    /// No behaviour with the key committed at this coordinator within the retention
    /// (<see cref="BocClusterOptions.CommitRecordRetention"/>), none is live, and none will commit there: the lookup that
    /// answers this fences the key for the retention, so a call with the key that is still running (between attempts, or
    /// paused) or started later fails with <see cref="BocClusterException"/>, having written nothing. Run the operation
    /// again under a new key if it is still wanted.
    /// </summary>
    NotCommitted,

    /// <summary>A behaviour with the key committed: its writes are durable. A spawn retried with the key is not run.</summary>
    Committed,

    /// <summary>
    /// A call with the key is live: one of its attempts is queued at the coordinator or holds it, or its spawner has been
    /// heard from within a lease (it keeps the key held between attempts). Ask again once it has finished; a spawner that
    /// died loses the hold a lease later.
    /// </summary>
    Pending,
}
