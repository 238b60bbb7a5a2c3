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

    public bool Write { get; set; }

    /// <summary>The state granted to the current attempt (a private copy).</summary>
    public object? State { get; set; }

    public abstract GrainId GrainId { get; }

    public abstract Task<CownReply> Enqueue(Guid behaviour, bool first, TimeSpan wait);

    public abstract Task Schedule(Guid behaviour);

    public abstract Task<CownReply> Acquire(Guid behaviour, TimeSpan wait);

    public abstract Task<CownReply> Renew(Guid behaviour);

    public abstract Task<CownReply> Prepare(Guid behaviour, GrainId coordinator);

    /// <summary>Commits at the coordinator, writing the state if this cown is written.</summary>
    public abstract Task<Decision> Commit(Guid behaviour);

    public abstract Task<Decision> Decide(Guid behaviour);

    public abstract Task Release(Guid behaviour, bool apply);

    public abstract Task Forget(Guid behaviour);
}

internal sealed class CownEntry<T> : CownEntry
    where T : class, new()
{
    private readonly ICownGrain<T> _grain;

    public CownEntry(ClusterCown<T> cown, bool write)
        : base(cown.SortKey, write) => _grain = cown.Grain;

    public override GrainId GrainId => _grain.GetGrainId();

    public override Task<CownReply> Enqueue(Guid behaviour, bool first, TimeSpan wait) => _grain.Enqueue(behaviour, Write, first, wait);

    public override Task Schedule(Guid behaviour) => _grain.Schedule(behaviour);

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

    public override Task<CownReply> Prepare(Guid behaviour, GrainId coordinator) => _grain.Prepare(behaviour, (T)State!, coordinator);

    public override Task<Decision> Commit(Guid behaviour) => _grain.Commit(behaviour, Write ? (T?)State : null);

    public override Task<Decision> Decide(Guid behaviour) => _grain.Decide(behaviour);

    public override Task Release(Guid behaviour, bool apply) => _grain.Release(behaviour, apply);

    public override Task Forget(Guid behaviour) => _grain.Forget(behaviour);
}
