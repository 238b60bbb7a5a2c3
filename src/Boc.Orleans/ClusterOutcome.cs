namespace Boc.Orleans;

/// <summary>
/// What a coordinator cown knows about the behaviour spawned with an idempotency key
/// (<see cref="IBocCluster.GetOutcomeAsync{T}(ClusterCown{T}, string)"/>).
/// </summary>
public enum ClusterOutcome
{
    /// <summary>
    /// No behaviour with the key committed at this coordinator within the retention
    /// (<see cref="BocClusterOptions.CommitRecordRetention"/>), and none with the key holds it now: a spawn retried with
    /// the key will run. Also the answer for a key older than the retention.
    /// </summary>
    NotCommitted,

    /// <summary>A behaviour with the key committed: its writes are durable. A spawn retried with the key is not run.</summary>
    Committed,

    /// <summary>
    /// A behaviour with the key holds the coordinator now and has not committed yet: ask again once it has finished (its
    /// spawner is running it, or has died and the cown will evict it within a lease).
    /// </summary>
    Pending,
}
