namespace Boc.Orleans.Grains;

/// <summary>What a cown answers a spawner's call about one of its requests.</summary>
[GenerateSerializer]
internal enum CownReply
{
    /// <summary>Done: acknowledged, granted, renewed or prepared.</summary>
    Ready,

    /// <summary>The poll interval passed first; ask again.</summary>
    NotYet,

    /// <summary>The cown does not know the request: its lease expired, or the grain was reactivated without it.</summary>
    Lost,
}

/// <summary>A coordinator's answer about a behaviour's commit (docs/distributed.md, "Commit").</summary>
[GenerateSerializer]
internal enum Decision
{
    Committed,
    Aborted,

    /// <summary>The coordinator still holds the behaviour's live request: ask again later.</summary>
    Pending,
}

/// <summary>
/// A grant: the cown's committed state, shipped to the spawner that runs the body. Not [Immutable]: Orleans must copy
/// the state even to a spawner on the cown's own silo, whose body mutates it.
/// </summary>
[GenerateSerializer]
internal readonly record struct Grant<T>([property: Id(0)] CownReply Reply, [property: Id(1)] T? State);

/// <summary>The coordinator's side of the commit, callable without knowing the coordinator's state type.</summary>
internal interface ICownDecider : IGrainWithStringKey
{
    Task<Decision> Decide(Guid behaviour);
}

/// <summary>A distributed cown's grain: its FIFO queue of requests and its persisted state.</summary>
internal interface ICownGrain<T> : ICownDecider
    where T : class, new()
{
    /// <summary>
    /// Appends the request (<paramref name="first"/>; later polls only wait) and answers Ready once every request ahead
    /// of it is scheduled, NotYet after <paramref name="wait"/>.
    /// </summary>
    Task<CownReply> Enqueue(Guid behaviour, bool write, bool first, TimeSpan wait);

    /// <summary>The spawner has every acknowledgement: successors may be acknowledged behind this request.</summary>
    Task Schedule(Guid behaviour);

    /// <summary>Answers the state once the request is granted, NotYet after <paramref name="wait"/>.</summary>
    Task<Grant<T>> Acquire(Guid behaviour, TimeSpan wait);

    Task<CownReply> Renew(Guid behaviour);

    /// <summary>Stores <paramref name="state"/> as the behaviour's prepared value; the cown stays held.</summary>
    Task<CownReply> Prepare(Guid behaviour, T state, GrainId coordinator);

    /// <summary>
    /// The coordinator's commit: writes <paramref name="state"/> (if not null) with the behaviour's commit record in one
    /// storage write and releases. Committed if it did (now or before), Aborted if it no longer holds the request.
    /// </summary>
    Task<Decision> Commit(Guid behaviour, T? state);

    /// <summary>
    /// Removes the request wherever it is; a prepared value of the behaviour is applied if <paramref name="apply"/>,
    /// dropped otherwise. Idempotent.
    /// </summary>
    Task Release(Guid behaviour, bool apply);

    /// <summary>The spawner has finished every cown: the commit record is no longer needed.</summary>
    Task Forget(Guid behaviour);
}
