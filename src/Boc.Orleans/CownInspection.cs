namespace Boc.Orleans;

/// <summary>
/// A snapshot of one distributed cown's protocol state, for operators: its queue (who holds it, who waits), its
/// pending write-backs and its commit records. Returned by <see cref="IBocCluster.InspectAsync{T}(ClusterCown{T})"/>.
/// </summary>
[GenerateSerializer]
public sealed class CownInspection
{
    /// <summary>Gets the cown's key.</summary>
    [Id(0)]
    public string Key { get; init; } = "";

    /// <summary>Gets the grain id and the silo of the activation that answered.</summary>
    [Id(1)]
    public string Silo { get; init; } = "";

    /// <summary>Gets the number of activations that have fenced the cown's storage record (one per activation).</summary>
    [Id(2)]
    public long Epoch { get; init; }

    /// <summary>
    /// Gets the behaviour of the first write-back still pending here, if any: undecided (it waits for its coordinator's
    /// decision, or as the coordinator for its votes), or committed and not yet applied in storage.
    /// </summary>
    [Id(3)]
    public Guid? PreparedBy { get; init; }

    /// <summary>Gets the grain id of that write-back's coordinator, if any.</summary>
    [Id(4)]
    public string? PreparedCoordinator { get; init; }

    /// <summary>Gets the number of write-backs pending here: the states handed over by behaviours whose decision is not yet applied in storage.</summary>
    [Id(7)]
    public int PendingWriteBacks { get; init; }

    /// <summary>Gets the number of commit records this cown keeps as a coordinator (bounded: see docs/distributed.md).</summary>
    [Id(5)]
    public int CommitRecords { get; init; }

    /// <summary>Gets the queue, in order: the holders first.</summary>
    [Id(6)]
    public IReadOnlyList<CownRequestInspection> Requests { get; init; } = [];
}

/// <summary>One request in a <see cref="CownInspection"/>.</summary>
[GenerateSerializer]
public sealed class CownRequestInspection
{
    /// <summary>Gets the id of the behaviour's current attempt.</summary>
    [Id(0)]
    public Guid Behaviour { get; init; }

    /// <summary>Gets a value indicating whether the request writes (false: read-only).</summary>
    [Id(1)]
    public bool Write { get; init; }

    /// <summary>Gets a value indicating whether the spawner has finished enqueueing the behaviour on all its cowns.</summary>
    [Id(2)]
    public bool Scheduled { get; init; }

    /// <summary>Gets a value indicating whether the request holds the cown now.</summary>
    [Id(3)]
    public bool Granted { get; init; }

    /// <summary>Gets how long the request lasts if its spawner stops renewing it (negative: overdue for eviction).</summary>
    [Id(4)]
    public TimeSpan LeaseRemaining { get; init; }
}
