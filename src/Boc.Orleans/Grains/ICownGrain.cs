namespace Boc.Orleans.Grains;

/// <summary>What a cown answers a spawner's call about one of its requests.</summary>
[GenerateSerializer]
internal enum CownReply
{
    /// <summary>Done: acknowledged, granted, renewed, validated or prepared (durably).</summary>
    Ready,

    /// <summary>The poll interval passed first; ask again.</summary>
    NotYet,

    /// <summary>The cown does not hold the request: its lease expired, or the grain was reactivated without it.</summary>
    Lost,

    /// <summary>
    /// The behaviour's idempotency key is fenced at this coordinator: a lookup answered NotCommitted for it, so nothing
    /// with the key may commit here (within the retention). The call fails, having written nothing.
    /// </summary>
    Fenced,
}

/// <summary>A coordinator's answer about a behaviour's commit (docs/distributed.md, "Commit").</summary>
[GenerateSerializer]
internal enum Decision
{
    /// <summary>The commit record is durable.</summary>
    Committed,

    /// <summary>
    /// The behaviour never committed and never will: the coordinator does not hold its request, and a write has fenced
    /// every earlier activation's writes since.
    /// </summary>
    Aborted,

    /// <summary>The coordinator still holds the behaviour's live request: ask again later.</summary>
    Pending,

    /// <summary>
    /// No record and no request, for an attempt so old that its record may have been settled and dropped: the
    /// coordinator cannot tell committed from aborted (only a spawner paused for longer than half the retention sees it).
    /// </summary>
    Unknown,

    /// <summary>Another behaviour with the same idempotency key committed at this coordinator: this one was not run.</summary>
    Duplicate,

    /// <summary>The behaviour's idempotency key is fenced at this coordinator (see <see cref="CownReply.Fenced"/>): not run.</summary>
    Fenced,
}

/// <summary>What a cown answers a release.</summary>
[GenerateSerializer]
internal enum ReleaseReply
{
    /// <summary>The request was held and is released (for a read-only request: the grant was valid to the end).</summary>
    Released,

    /// <summary>The cown did not hold the request (for a read-only request: its grant cannot be vouched for).</summary>
    NotHeld,

    /// <summary>
    /// The behaviour's write-back is durably applied here: now, earlier by this activation, or before a write that fenced
    /// this cown found no prepared value of it left.
    /// </summary>
    Applied,
}

/// <summary>A grant: the cown's durable committed state, shipped to the spawner that runs the body.</summary>
/// <remarks>Not [Immutable]: Orleans must copy the state even to a spawner on the cown's own silo, whose body mutates it.</remarks>
[GenerateSerializer]
internal readonly record struct Grant<T>([property: Id(0)] CownReply Reply, [property: Id(1)] T? State);

/// <summary>
/// What one cown says to another (a participant to its coordinator, a coordinator to its participants), callable
/// without knowing the other's state type.
/// </summary>
internal interface ICownPeer : IGrainWithStringKey
{
    /// <summary>The coordinator's answer about <paramref name="behaviour"/>'s commit.</summary>
    Task<Decision> Decide(Guid behaviour);

    /// <summary>
    /// Removes the request wherever it is; a prepared value of the behaviour is applied if <paramref name="apply"/>,
    /// dropped otherwise. Idempotent.
    /// </summary>
    Task<ReleaseReply> Release(Guid behaviour, bool apply);
}

/// <summary>A distributed cown's grain: its FIFO queue of requests and its persisted state.</summary>
internal interface ICownGrain<T> : ICownPeer
    where T : class, new()
{
    /// <summary>
    /// Appends the request (<paramref name="first"/>; later polls only wait) and answers Ready once every request ahead
    /// of it is scheduled, NotYet after <paramref name="wait"/>. A coordinator is told the behaviour's idempotency key,
    /// so a lookup by key sees the behaviour before it commits.
    /// </summary>
    Task<CownReply> Enqueue(Guid behaviour, bool write, bool first, TimeSpan wait, string? idempotencyKey);

    /// <summary>
    /// Marks the request Scheduled (the spawner sends it only once it has every acknowledgement, so successors may be
    /// acknowledged behind it), then answers the durable state once the request is granted, NotYet after
    /// <paramref name="wait"/>. One call where a separate Schedule would cost the spawner a round trip.
    /// </summary>
    Task<Grant<T>> Acquire(Guid behaviour, TimeSpan wait);

    /// <summary>Extends the request's lease; Lost if the cown no longer holds it.</summary>
    Task<CownReply> Renew(Guid behaviour);

    /// <summary>Ready if the request is still held and granted: a read-only grant's check before its behaviour commits.</summary>
    Task<CownReply> Validate(Guid behaviour);

    /// <summary>Stores <paramref name="state"/> durably as the behaviour's prepared value; the cown stays held.</summary>
    Task<CownReply> Prepare(Guid behaviour, T state, GrainId coordinator);

    /// <summary>
    /// The coordinator's commit: writes <paramref name="state"/> with the behaviour's commit record in one storage write
    /// and releases. Committed once that write is durable (now or before); Aborted (fenced) if it no longer holds the
    /// request; Unknown (for an attempt older than half the retention by the spawner's own clock:
    /// <paramref name="attemptAge"/>), Duplicate or Fenced as their docs say.
    /// </summary>
    Task<Decision> Commit(Guid behaviour, T state, GrainId[] participants, TimeSpan attemptAge, string? idempotencyKey);

    /// <summary>
    /// Keeps a live call's idempotency key held here between its attempts (a lookup answers Pending for a lease after
    /// this); Fenced if a lookup already fenced the key.
    /// </summary>
    Task<CownReply> KeepKey(string idempotencyKey);

    /// <summary>The spawner has its answer and every participant has applied: the commit record may go.</summary>
    Task Forget(Guid behaviour);

    /// <summary>The state of the cown's protocol, for operators (see <see cref="CownInspection"/>).</summary>
    Task<CownInspection> Inspect();

    /// <summary>What this cown, as a coordinator, knows of the behaviour spawned with <paramref name="idempotencyKey"/>.</summary>
    Task<ClusterOutcome> LookUp(string idempotencyKey);
}
