namespace Boc.Orleans;

/// <summary>Options of distributed Boc: leases, polling and retries (see docs/distributed.md, "Failures").</summary>
public sealed class BocClusterOptions
{
    private TimeSpan _leaseDuration = TimeSpan.FromSeconds(30);
    private TimeSpan _pollInterval = TimeSpan.FromSeconds(5);
    private int _maxAttempts = 5;
    private TimeSpan _commitRecordRetention = TimeSpan.FromMinutes(10);

    /// <summary>
    /// Gets or sets how long a cown keeps a request whose spawner has stopped renewing it (30 seconds by default). A
    /// body should take much less than this; the spawner renews its leases while the body runs.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not positive.</exception>
    public TimeSpan LeaseDuration
    {
        get => _leaseDuration;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(value, TimeSpan.Zero);
            _leaseDuration = value;
        }
    }

    /// <summary>
    /// Gets or sets how long a cown holds a spawner's call for a grant or an acknowledgement before answering "not yet"
    /// (5 seconds by default). Keep it well below Orleans's response timeout and the lease.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is not positive.</exception>
    public TimeSpan PollInterval
    {
        get => _pollInterval;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(value, TimeSpan.Zero);
            _pollInterval = value;
        }
    }

    /// <summary>
    /// Gets or sets how many times a behaviour is attempted when cowns become unavailable (a silo died) before
    /// <see cref="BocClusterException"/> is thrown (5 by default). A body's own exception is never retried.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1.</exception>
    public int MaxAttempts
    {
        get => _maxAttempts;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            _maxAttempts = value;
        }
    }

    /// <summary>
    /// Gets or sets how long a coordinator keeps a commit record that nobody may need any more (10 minutes by default):
    /// one whose spawner never said it had its answer, or one with an idempotency key, whose outcome
    /// <see cref="IBocCluster.GetOutcomeAsync{T}(ClusterCown{T}, string)"/> can look up for this long; and how long a key
    /// that a lookup answered NotCommitted for stays fenced. Measured on the coordinator's monotonic clock from when its
    /// activation wrote or read the record, so clock skew between machines does not shorten it. A spawner that could not
    /// learn its commit's outcome for half of this reports <see cref="BocClusterOutcomeUnknownException"/>, and a keyed call
    /// stops retrying after half of this.
    /// </summary>
    public TimeSpan CommitRecordRetention
    {
        get => _commitRecordRetention;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThanOrEqual(value, TimeSpan.Zero);
            _commitRecordRetention = value;
        }
    }
}
