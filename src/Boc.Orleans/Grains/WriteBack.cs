namespace Boc.Orleans.Grains;

/// <summary>
/// One behaviour's write-back at a cown (docs/distributed.md, "Commit"), from the moment its spawner hands the new state
/// over (Prepare at a participant, Commit at the coordinator) until its decision is durable here. The cown's undecided
/// write-backs form its chain, in queue order: each was computed from the one before, so a grant made meanwhile carries
/// the last one's state and depends on every write-back before it (its behaviour commits only after they all have, and
/// is aborted if one of them is).
/// </summary>
internal sealed class WriteBack<T>(Guid behaviour, T value, long seq, GrainId coordinator)
    where T : class, new()
{
    public Guid Behaviour { get; } = behaviour;

    /// <summary>The behaviour's new state for this cown.</summary>
    public T Value { get; } = value;

    /// <summary>The position in the chain: grants made after it carry a read position at least this.</summary>
    public long Seq { get; } = seq;

    /// <summary>The behaviour's coordinator; this cown's own id for a write-back it coordinates.</summary>
    public GrainId Coordinator { get; } = coordinator;

    /// <summary>This cown coordinates the behaviour: its commit writes the value together with the commit record.</summary>
    public bool Own { get; init; }

    /// <summary>
    /// Found prepared in storage by this activation: its behaviour's request went with an earlier activation, so it is
    /// resolved through its coordinator, and it blocks every grant until then.
    /// </summary>
    public bool Recovered { get; init; }

    /// <summary>A participant's write-back is in storage (prepared).</summary>
    public bool Durable { get; set; }

    /// <summary>A participant has voted yes to its coordinator: only the coordinator's decision ends it now.</summary>
    public bool Voted { get; set; }

    /// <summary>The coordinator's write-back: the cowns it writes besides itself, which apply once it commits.</summary>
    public GrainId[] Participants { get; init; } = [];

    /// <summary>The coordinator's write-back: the cowns whose yes it still waits for (its participants and readers).</summary>
    public HashSet<GrainId> Waiting { get; init; } = [];

    /// <summary>The coordinator's write-back: its behaviour's idempotency key, if any.</summary>
    public string? IdempotencyKey { get; init; }

    /// <summary>The coordinator's write-back: when it gives up waiting for a vote (Environment.TickCount64).</summary>
    public long Deadline { get; init; }

    /// <summary>The coordinator's write-back is in the storage write in flight: that write decides it.</summary>
    public bool Committing { get; set; }

    /// <summary>The decision, once known here: Committed, Aborted or Duplicate.</summary>
    public TaskCompletionSource<Decision> Outcome { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>The write-back as a participant's storage record holds it.</summary>
    public PreparedWrite<T> ToPrepared() => new(Behaviour, Value, Coordinator);
}
