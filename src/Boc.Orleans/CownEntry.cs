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

    public abstract GrainId GrainId { get; }

    public abstract Task<CownReply> Enqueue(Guid behaviour, bool first, TimeSpan wait, string? idempotencyKey);

    public abstract Task<CownReply> Acquire(Guid behaviour, TimeSpan wait);

    public abstract Task<CownReply> Renew(Guid behaviour);

    public abstract Task<CownReply> Validate(Guid behaviour);

    public abstract Task<CownReply> Prepare(Guid behaviour, GrainId coordinator);

    /// <summary>Commits at the coordinator, writing the state.</summary>
    public abstract Task<Decision> Commit(Guid behaviour, GrainId[] participants, TimeSpan attemptAge, string? idempotencyKey);

    /// <summary>Keeps a live call's idempotency key held at the coordinator between attempts.</summary>
    public abstract Task<CownReply> KeepKey(string idempotencyKey);

    public abstract Task<ReleaseReply> Release(Guid behaviour, bool apply);

    public abstract Task Forget(Guid behaviour);
}

internal sealed class CownEntry<T> : CownEntry
    where T : class, new()
{
    private readonly ICownGrain<T> _grain;

    public CownEntry(ClusterCown<T> cown, bool write)
        : base(cown.SortKey, write) => _grain = cown.Grain;

    public override GrainId GrainId => _grain.GetGrainId();

    public override Task<CownReply> Enqueue(Guid behaviour, bool first, TimeSpan wait, string? idempotencyKey) =>
        _grain.Enqueue(behaviour, Write, first, wait, idempotencyKey);

    public override async Task<CownReply> Acquire(Guid behaviour, TimeSpan wait)
    {
        Grant<T> grant = await _grain.Acquire(behaviour, wait).ConfigureAwait(true);
        if (grant.Reply == CownReply.Ready)
        {
            State = grant.State;
        }

        return grant.Reply;
    }

    public override Task<CownReply> Renew(Guid behaviour) => _grain.Renew(behaviour);

    public override Task<CownReply> Validate(Guid behaviour) => _grain.Validate(behaviour);

    public override Task<CownReply> Prepare(Guid behaviour, GrainId coordinator) => _grain.Prepare(behaviour, (T)State!, coordinator);

    public override Task<Decision> Commit(Guid behaviour, GrainId[] participants, TimeSpan attemptAge, string? idempotencyKey) =>
        _grain.Commit(behaviour, (T)State!, participants, attemptAge, idempotencyKey);

    public override Task<CownReply> KeepKey(string idempotencyKey) => _grain.KeepKey(idempotencyKey);

    public override Task<ReleaseReply> Release(Guid behaviour, bool apply) => _grain.Release(behaviour, apply);

    public override Task Forget(Guid behaviour) => _grain.Forget(behaviour);
}
