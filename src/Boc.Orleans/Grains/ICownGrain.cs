using Orleans.Concurrency;

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

    /// <summary>The coordinator still holds the behaviour's request or its undecided write-back: ask again later.</summary>
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
    /// <summary>
    /// The request was held and is released; for a validating release, every write-back its grant depended on has
    /// committed, so the grant counts.
    /// </summary>
    Released,

    /// <summary>The cown did not hold the request, or a write-back its grant depended on was aborted: the grant does not count.</summary>
    NotHeld,

    /// <summary>
    /// The behaviour's write-back is durably applied here: now, earlier by this activation, or before a write that fenced
    /// this cown found no prepared value of it left.
    /// </summary>
    Applied,
}

/// <summary>
/// A grant: the cown's state for the spawner that runs the body: the last write-back's state if one is undecided here
/// (the behaviour then depends on it), else the committed state.
/// </summary>
/// <remarks>Not [Immutable]: Orleans must copy the state even to a spawner on the cown's own silo, whose body mutates it.</remarks>
[GenerateSerializer]
internal readonly record struct Grant<T>([property: Id(0)] CownReply Reply, [property: Id(1)] T? State);

/// <summary>
/// What one cown says to another (a participant or reader to its coordinator, a coordinator to its participants),
/// callable without knowing the other's state type.
/// </summary>
internal interface ICownPeer : IGrainWithStringKey
{
    /// <summary>The coordinator's answer about <paramref name="behaviour"/>'s commit, for a participant recovering it.</summary>
    Task<Decision> Decide(Guid behaviour);

    /// <summary>
    /// A participant's or reader's vote on <paramref name="behaviour"/>, to its coordinator: yes once its write-back is
    /// prepared (or its read validated) and everything before it here has committed. Answers the decision once it is
    /// known, Pending after a poll interval.
    /// </summary>
    Task<Decision> Vote(Guid behaviour, GrainId voter, bool yes);

    /// <summary>A participant's apply of <paramref name="behaviour"/> is in its storage: the commit record may go once all have said so.</summary>
    [OneWay]
    Task Applied(Guid behaviour, GrainId participant);

    /// <summary>
    /// Removes the request wherever it is; a write-back of the behaviour is applied if <paramref name="apply"/>
    /// (its commit is durable: the coordinator's recovery), dropped otherwise (its abort is final: the spawner's). Idempotent.
    /// </summary>
    Task<ReleaseReply> Release(Guid behaviour, bool apply);
}

/// <summary>A distributed cown's grain: its FIFO queue of requests, its chain of write-backs and its persisted state.</summary>
internal interface ICownGrain<T> : ICownPeer
    where T : class, new()
{
    /// <summary>
    /// Appends the request (<paramref name="first"/>; later polls only wait) and answers Ready once every request ahead
    /// of it is scheduled, NotYet after <paramref name="wait"/>. A coordinator is told the behaviour's idempotency key,
    /// so a lookup by key sees the behaviour before it commits. A Ready answer carries the state if the request is
    /// granted already (one call where a separate grant request would cost the spawner a round trip); the
    /// <paramref name="last"/> cown of the behaviour also marks it scheduled, since every enqueue of it is acknowledged.
    /// </summary>
    Task<Grant<T>> Enqueue(Guid behaviour, bool write, bool first, bool last, TimeSpan wait, string? idempotencyKey);

    /// <summary>Marks the request Scheduled: the spawner has every acknowledgement and this cown granted it already.</summary>
    [OneWay]
    Task Schedule(Guid behaviour);

    /// <summary>
    /// Marks the request Scheduled (the spawner sends it only once it has every acknowledgement, so successors may be
    /// acknowledged behind it), then answers the state once the request is granted, NotYet after <paramref name="wait"/>.
    /// </summary>
    Task<Grant<T>> Acquire(Guid behaviour, TimeSpan wait);

    /// <summary>Extends the request's lease; Lost if the cown no longer holds it.</summary>
    Task<CownReply> Renew(Guid behaviour);

    /// <summary>
    /// A participant's write-back: <paramref name="state"/> becomes the cown's latest state (the request is released, the
    /// next one granted on it), is prepared in storage, and the cown votes to <paramref name="coordinator"/>.
    /// </summary>
    [OneWay]
    Task Prepare(Guid behaviour, T state, GrainId coordinator);

    /// <summary>A reader of a behaviour that writes elsewhere is done: the request is released, and the cown votes to <paramref name="coordinator"/>.</summary>
    [OneWay]
    Task ReadDone(Guid behaviour, GrainId coordinator);

    /// <summary>
    /// Releases the request unchanged and answers, once every write-back its grant depended on is decided, Released if
    /// they all committed (the grant counts: a read-only behaviour's validation, or a body's exception that may surface),
    /// NotHeld otherwise.
    /// </summary>
    Task<ReleaseReply> Finish(Guid behaviour);

    /// <summary>
    /// The coordinator's commit: <paramref name="state"/> becomes the cown's latest state (the request is released), and
    /// once every participant and reader has voted yes and everything before it here has committed, it is written with
    /// the behaviour's commit record in one storage write (with other write-backs ready then: group commit).
    /// Committed once that write is durable (now or before); Aborted if a vote was no or never came, or (fenced) if it no
    /// longer holds the request; Unknown (for an attempt older than half the retention by the spawner's own clock:
    /// <paramref name="attemptAge"/>), Duplicate or Fenced as their docs say; Pending after a poll interval.
    /// </summary>
    Task<Decision> Commit(Guid behaviour, T state, GrainId[] participants, GrainId[] readers, TimeSpan attemptAge, string? idempotencyKey);

    /// <summary>
    /// Keeps a live call's idempotency key held here between its attempts (a lookup answers Pending for a lease after
    /// this); Fenced if a lookup already fenced the key.
    /// </summary>
    Task<CownReply> KeepKey(string idempotencyKey);

    /// <summary>The spawner has its answer: the commit record may go once every participant has applied.</summary>
    [OneWay]
    Task Forget(Guid behaviour);

    /// <summary>The state of the cown's protocol, for operators (see <see cref="CownInspection"/>).</summary>
    Task<CownInspection> Inspect();

    /// <summary>What this cown, as a coordinator, knows of the behaviour spawned with <paramref name="idempotencyKey"/>.</summary>
    Task<ClusterOutcome> LookUp(string idempotencyKey);
}
