using Boc.Orleans.Grains;

namespace Boc.Orleans;

/// <summary>
/// One cown of a spawn after sorting and merging duplicates: the spawner's typed access to its grain, behind an untyped
/// face so that one behaviour can hold cowns of different state types.
/// </summary>
internal abstract class CownEntry
{
    protected CownEntry(string sortKey, bool write)
    {
        SortKey = sortKey;
        Write = write;
    }

    public string SortKey { get; }

    /// <summary>The cown's key and type, as logs and messages name it.</summary>
    public string Name => SortKey.Replace('\n', '/');

    public bool Write { get; set; }

    /// <summary>The state granted to the current attempt (a private copy).</summary>
    public object? State { get; set; }

    /// <summary>The current attempt holds the grant (its state is in <see cref="State"/>).</summary>
    public bool Granted { get; set; }

    public abstract GrainId GrainId { get; }

    /// <summary>Enqueues; a Ready answer may carry the grant already (<see cref="Granted"/>).</summary>
    public abstract Task<CownReply> Enqueue(Guid behaviour, bool first, bool last, TimeSpan wait, string? idempotencyKey);

    /// <summary>Marks the request scheduled at a cown that granted it with its acknowledgement (one-way).</summary>
    public abstract Task Schedule(Guid behaviour);

    public abstract Task<CownReply> Acquire(Guid behaviour, TimeSpan wait);

    public abstract Task<CownReply> Renew(Guid behaviour);

    /// <summary>Hands a participant its new state (one-way).</summary>
    public abstract Task Prepare(Guid behaviour, GrainId coordinator);

    /// <summary>Tells a reader of a writing behaviour that the body is done (one-way).</summary>
    public abstract Task ReadDone(Guid behaviour, GrainId coordinator);

    public abstract Task<ReleaseReply> Finish(Guid behaviour);

    /// <summary>Commits at the coordinator, writing the state.</summary>
    public abstract Task<Decision> Commit(Guid behaviour, GrainId[] participants, GrainId[] readers, TimeSpan attemptAge, string? idempotencyKey);

    /// <summary>Keeps a live call's idempotency key held at the coordinator between attempts.</summary>
    public abstract Task<CownReply> KeepKey(string idempotencyKey);

    public abstract Task<ReleaseReply> Release(Guid behaviour, bool apply);

    /// <summary>Tells the coordinator the spawner has its answer (one-way).</summary>
    public abstract Task Forget(Guid behaviour);
}

internal sealed class CownEntry<T> : CownEntry
    where T : class, new()
{
    private readonly ICownGrain<T> _grain;

    public CownEntry(ClusterCown<T> cown, bool write)
        : base(cown.SortKey, write) => _grain = cown.Grain;

    public override GrainId GrainId => _grain.GetGrainId();

    public override async Task<CownReply> Enqueue(Guid behaviour, bool first, bool last, TimeSpan wait, string? idempotencyKey) =>
        Take(await _grain.Enqueue(behaviour, Write, first, last, wait, idempotencyKey).ConfigureAwait(true));

    public override Task Schedule(Guid behaviour) => _grain.Schedule(behaviour);

    public override async Task<CownReply> Acquire(Guid behaviour, TimeSpan wait) =>
        Take(await _grain.Acquire(behaviour, wait).ConfigureAwait(true));

    public override Task<CownReply> Renew(Guid behaviour) => _grain.Renew(behaviour);

    public override Task Prepare(Guid behaviour, GrainId coordinator) => _grain.Prepare(behaviour, (T)State!, coordinator);

    public override Task ReadDone(Guid behaviour, GrainId coordinator) => _grain.ReadDone(behaviour, coordinator);

    public override Task<ReleaseReply> Finish(Guid behaviour) => _grain.Finish(behaviour);

    public override Task<Decision> Commit(Guid behaviour, GrainId[] participants, GrainId[] readers, TimeSpan attemptAge, string? idempotencyKey) =>
        _grain.Commit(behaviour, (T)State!, participants, readers, attemptAge, idempotencyKey);

    public override Task<CownReply> KeepKey(string idempotencyKey) => _grain.KeepKey(idempotencyKey);

    public override Task<ReleaseReply> Release(Guid behaviour, bool apply) => _grain.Release(behaviour, apply);

    public override Task Forget(Guid behaviour) => _grain.Forget(behaviour);

    /// <summary>Keeps the state of a grant (a Ready answer with a state).</summary>
    private CownReply Take(Grant<T> grant)
    {
        if (grant.Reply == CownReply.Ready && grant.State is not null)
        {
            State = grant.State;
            Granted = true;
        }

        return grant.Reply;
    }
}
