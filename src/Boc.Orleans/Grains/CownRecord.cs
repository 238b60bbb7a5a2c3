namespace Boc.Orleans.Grains;

/// <summary>
/// What a cown persists (docs/distributed.md, "The protocol"): its committed state, the prepared write-backs of
/// multi-cown behaviours still waiting for their decision here, the commit records of behaviours it coordinated, the
/// idempotency keys it fenced, and the epoch of the activation that last fenced it. The queue of requests is not
/// persisted: spawners rebuild it.
/// </summary>
/// <remarks>
/// A grain treats every instance as immutable once written: a change builds the next record with <c>with</c> and new
/// arrays, writes it, and only then makes it the record it answers from. So an answer can never come from a state that
/// storage may still reject (CownGrain's "durable" rule).
/// </remarks>
[GenerateSerializer]
internal sealed record CownRecord<T>
    where T : class, new()
{
    /// <summary>The committed state; null for a cown never written (it reads as <c>new T()</c>).</summary>
    [Id(0)]
    public T? Value { get; set; }

    /// <summary>
    /// The write-backs of behaviours this cown takes part in whose decision is not applied here yet, in chain order:
    /// each was computed from the one before (CownGrain.Chain.cs).
    /// </summary>
    [Id(1)]
    public PreparedWrite<T>[] PreparedChain { get; set; } = [];

    /// <summary>The first prepared write-back, if any: what a stored record still waits for.</summary>
    public PreparedWrite<T>? Prepared => PreparedChain.Length > 0 ? PreparedChain[0] : null;

    /// <summary>Commit records of behaviours this cown coordinated that are not yet settled.</summary>
    [Id(2)]
    public CommitRecord[] Commits { get; set; } = [];

    /// <summary>
    /// Bumped by each activation's first write. A write carries the ETag of the record it was based on, so once an
    /// activation has fenced, every write still in flight from an earlier activation (a paused silo's, say) fails.
    /// </summary>
    [Id(3)]
    public long Epoch { get; set; }

    /// <summary>
    /// Idempotency keys a lookup answered NotCommitted for (docs/distributed.md, "Idempotency keys"): nothing with one of
    /// them may commit at this coordinator until the retention has passed.
    /// </summary>
    [Id(4)]
    public string[] Fences { get; set; } = [];

    public CommitRecord? FindCommit(Guid behaviour) => Array.Find(Commits, c => c.Behaviour == behaviour);
}

/// <summary>A prepared value: the behaviour's new state for this cown, applied once its coordinator committed.</summary>
[GenerateSerializer]
internal sealed record PreparedWrite<T>(
    [property: Id(0)] Guid Behaviour,
    [property: Id(1)] T Value,
    [property: Id(2)] GrainId Coordinator);

/// <summary>
/// The coordinator's durable decision that a behaviour committed, kept until nobody can ask about it again: the spawner
/// has its answer and every participant has applied its prepared value (docs/distributed.md, "Commit").
/// </summary>
/// <remarks>
/// <see cref="CommittedUtc"/> is the committing silo's wall clock, for operators: no decision reads it, because the
/// machines' clocks disagree. A record's age is measured on each activation's monotonic clock from when that activation
/// read or wrote it (CownGrain.Durable.cs).
/// </remarks>
[GenerateSerializer]
internal sealed record CommitRecord(
    [property: Id(0)] Guid Behaviour,
    [property: Id(1)] GrainId[] Participants,
    [property: Id(2)] DateTime CommittedUtc,
    [property: Id(3)] string? IdempotencyKey);
