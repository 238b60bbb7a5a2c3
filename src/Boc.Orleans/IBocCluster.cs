namespace Boc.Orleans;

/// <summary>
/// Spawns distributed behaviours: Boc's <c>WhenAsync</c> over cowns kept by grains of an Orleans cluster. Registered
/// by <c>AddBocCowns</c> on silos and clients; inject it into grains, services or client code.
/// </summary>
/// <remarks>
/// A behaviour runs once it holds all its cowns, at the caller, on private copies of their states; its writes are
/// committed all or nothing, durably, and its task completes after the commit. Behaviours spawned from one
/// <see cref="IBocCluster"/> that share a cown run in call order, whether or not the earlier one was awaited. If the body
/// throws, the cowns are released unchanged and the exception surfaces here. A body that returns a value binds to the
/// result-returning overload (an expression lambda such as <c>a =&gt; a.Count++</c> included): await it either way.
/// The <c>WhenAsync</c> overloads are generated (eng/GenerateClusterWhen.cs). See docs/distributed.md.
/// </remarks>
public partial interface IBocCluster
{
    /// <summary>Gets a handle to the cown of type <typeparamref name="T"/> named <paramref name="key"/>.</summary>
    /// <typeparam name="T">The type of the cown's state: a class Orleans can serialize.</typeparam>
    /// <param name="key">The cown's key.</param>
    /// <returns>The handle; every handle with the same type and key names the same cown.</returns>
    /// <exception cref="ArgumentException"><paramref name="key"/> is null or empty.</exception>
    ClusterCown<T> Cown<T>(string key)
        where T : class, new();

    /// <summary>
    /// Gets a view of this spawner whose behaviours carry <paramref name="idempotencyKey"/>: one logical operation (a
    /// transfer with a request id, say) that a caller may retry after an unknown outcome without applying it twice. A
    /// behaviour with a key that already committed at the same coordinator within
    /// <see cref="BocClusterOptions.CommitRecordRetention"/> is not run (<see cref="BocClusterDuplicateException"/>); one
    /// with a key that <see cref="GetOutcomeAsync{T}(ClusterCown{T}, string)"/> answered NotCommitted for is not run
    /// either (<see cref="BocClusterException"/>: nothing written).
    /// </summary>
    /// <remarks>
    /// The retention is measured on each coordinator activation's monotonic clock from when it wrote or read the record,
    /// never on a wall clock: clock skew between machines cannot shorten it (a reactivation restarts the count, so a record
    /// may be kept longer). A keyed call stops retrying once it has run for half the retention
    /// (<see cref="BocClusterException"/>, nothing written), so every attempt that can commit reaches its coordinator
    /// within the retention of a lookup's answer, unless one of its messages takes longer than half the retention to
    /// arrive.
    /// </remarks>
    /// <param name="idempotencyKey">The operation's key, unique among the operations on the same cowns.</param>
    /// <returns>A spawner sharing this one's connection and its per-spawner order.</returns>
    /// <exception cref="ArgumentException"><paramref name="idempotencyKey"/> is null or empty.</exception>
    IBocCluster WithIdempotencyKey(string idempotencyKey);

    /// <summary>
    /// Looks up what <paramref name="coordinator"/> knows of the behaviour spawned with
    /// <paramref name="idempotencyKey"/>: the coordinator is the behaviour's first written cown in the global order, as
    /// <see cref="BocClusterOutcomeUnknownException.Coordinator"/> names it. Every answer is final in its own way:
    /// Committed is durable; NotCommitted fences the key, so nothing with it commits there afterwards; Pending means ask
    /// again.
    /// </summary>
    /// <typeparam name="T">The type of the coordinator's state.</typeparam>
    /// <param name="coordinator">The behaviour's coordinator cown.</param>
    /// <param name="idempotencyKey">The key the behaviour was spawned with.</param>
    /// <returns>
    /// <see cref="ClusterOutcome.Committed"/>, <see cref="ClusterOutcome.Pending"/> (a call with the key is live), or
    /// <see cref="ClusterOutcome.NotCommitted"/>: nothing with the key committed there, and nothing will for
    /// <see cref="BocClusterOptions.CommitRecordRetention"/>, because the lookup fences the key: a call with the key still
    /// running, or a new one, fails with <see cref="BocClusterException"/> having written nothing.
    /// </returns>
    /// <exception cref="ArgumentNullException"><paramref name="coordinator"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="idempotencyKey"/> is null or empty, or the cown belongs to another connection.</exception>
    Task<ClusterOutcome> GetOutcomeAsync<T>(ClusterCown<T> coordinator, string idempotencyKey)
        where T : class, new();

    /// <summary>Gets a snapshot of <paramref name="cown"/>'s protocol state: its queue, holders, prepared value and records.</summary>
    /// <typeparam name="T">The type of the cown's state.</typeparam>
    /// <param name="cown">The cown.</param>
    /// <returns>The snapshot, from the cown's current activation.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="cown"/> is null.</exception>
    /// <exception cref="ArgumentException">The cown belongs to another connection.</exception>
    Task<CownInspection> InspectAsync<T>(ClusterCown<T> cown)
        where T : class, new();
}
