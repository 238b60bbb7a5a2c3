namespace Boc.Orleans.Grains;

/// <summary>
/// What a cown persists: its committed state, at most one prepared value (a pending write-back of a multi-cown commit),
/// and the commit records of behaviours it coordinated that the spawner has not yet forgotten. The queue is not
/// persisted: it is rebuilt by the spawners (docs/distributed.md, "Failures").
/// </summary>
[GenerateSerializer]
internal sealed class CownRecord<T>
    where T : class, new()
{
    [Id(0)]
    public T? Value { get; set; }

    [Id(1)]
    public Guid PreparedBy { get; set; }

    [Id(2)]
    public T? Prepared { get; set; }

    [Id(3)]
    public GrainId Coordinator { get; set; }

    [Id(4)]
    public HashSet<Guid> Committed { get; set; } = [];
}
