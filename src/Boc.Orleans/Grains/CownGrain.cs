using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Orleans.Concurrency;
using Orleans.Placement;

namespace Boc.Orleans.Grains;

// =====================================================================================================================
// A distributed cown (docs/distributed.md, "The protocol" and "Failures"). The grain is reentrant: a spawner's long poll
// (Enqueue, Acquire) waits inside the grain for the queue to change, and other calls must run meanwhile. Every step
// between two awaits runs alone on the activation, so the queue needs no locks; storage writes are serialized by
// _writes because a write awaits.
//
// The durable rule. Every answer is given from _durable, the record storage is known to hold: the one this activation
// read or last wrote successfully. A change builds the next record, writes it, and only then becomes _durable; while
// the write is in flight the old record keeps answering, and the request it concerns is marked Writing, so neither a
// lease nor a Decide can end it. If a write fails, storage may or may not hold it (a timeout can land later): the
// activation is poisoned, answers nothing more, and deactivates; the next activation reads storage afresh. One state
// is answered before its own write: a prepared value whose commit the coordinator has announced (_decided). It is
// durable here (prepared) and its decision is durable at the coordinator, so a crash before its apply lands loses
// nothing: the next activation finds it prepared and asks the coordinator.
//
// The fences. (1) An activation's first act is a write (the epoch): storage checks each write's ETag, so every write
// still in flight from an earlier activation (a paused silo's, a duplicate's) fails from then on, and what this
// activation read stays what storage holds. (2) A negative answer that another cown acts on (Decide: Aborted; a
// release that finds no prepared value: Applied) is given only after a write of this activation succeeded since it
// last looked, so a later activation that this one does not know about cannot exist unnoticed: its fence would have
// failed this write. Positive answers are durable facts and need no fence.
//
// Invariants:
//   * _queue is in arrival order of first Enqueue calls; a request is granted iff no other behaviour's write-back is
//     pending here (prepared in _durable, or being prepared) and it is a writer at the head, or a reader with only
//     readers ahead.
//   * An Enqueue is acknowledged only when every request ahead is Scheduled (RequestQueue's header).
//   * For a behaviour this cown coordinates, its request or its durable commit record exists at every moment (the
//     request is removed only after the commit write succeeded), so Decide never answers Aborted for one that commits.
// The awaits use ConfigureAwait(true): continuations must run on the activation's scheduler.
// =====================================================================================================================
[Reentrant]
[Immovable]
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "_writes never allocates a wait handle (only WaitAsync is used), so it holds nothing to dispose.")]
internal sealed partial class CownGrain<T> : Grain, ICownGrain<T>
    where T : class, new()
{
    private readonly IPersistentState<CownRecord<T>> _record;
    private readonly BocClusterOptions _options;
    private readonly ILogger _logger;
    private readonly CownClock _clock;
    private readonly RequestQueue _queue = new();
    private readonly SemaphoreSlim _writes = new(1, 1);
    private CownRecord<T> _durable = new();
    private Exception? _poisoned;

    public CownGrain(
        [PersistentState("cown", BocCluster.StorageName)] IPersistentState<CownRecord<T>> record,
        IOptions<BocClusterOptions> options,
        CownClock clock,
        ILogger<CownGrain<T>> logger)
    {
        _record = record;
        _options = options.Value;
        _clock = clock;
        _logger = logger;
    }

    private long LeaseMilliseconds => (long)_options.LeaseDuration.TotalMilliseconds;

    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        _durable = _record.State ?? new CownRecord<T>();
        Learn(_durable);

        // Fence (1): from this write on, no earlier activation's write can land.
        await WriteAsync(r => r with { Epoch = r.Epoch + 1 }).ConfigureAwait(true);

        // A prepared value found in storage lost its request with the old activation: give its spawner a lease to
        // finish it, then ask the coordinator.
        _preparedDeadline = Environment.TickCount64 + LeaseMilliseconds;
        TimeSpan period = _options.LeaseDuration / 4;
        this.RegisterGrainTimer(Tick, new GrainTimerCreationOptions(period, period) { Interleave = true, KeepAlive = false });
        Log.Activated(_logger, this.GetPrimaryKeyString(), _durable.Epoch, _durable.Prepared?.Behaviour, _durable.Commits.Length);
    }

    public override Task OnDeactivateAsync(DeactivationReason reason, CancellationToken cancellationToken)
    {
        // The queue dies with the activation; its spawners find their requests lost (or, for a reader that has finished
        // its body, unvalidated) and retry.
        _queue.Clear();
        return Task.CompletedTask;
    }

    public async Task<CownReply> Enqueue(Guid behaviour, bool write, bool first, TimeSpan wait, string? idempotencyKey)
    {
        ThrowIfPoisoned();
        Request? request = _queue.Find(behaviour);
        if (request is null)
        {
            if (!first)
            {
                return CownReply.Lost;
            }

            if (idempotencyKey is not null)
            {
                // A key a lookup answered NotCommitted for may not commit here: the attempt is refused before it queues.
                if (IsFenced(idempotencyKey))
                {
                    return CownReply.Fenced;
                }

                HoldKey(idempotencyKey);
            }

            request = _queue.Add(behaviour, write, idempotencyKey);
        }

        Renew(request);
        return await WaitAsync(request, _queue.IsAcknowledged, wait).ConfigureAwait(true);
    }

    public async Task<Grant<T>> Acquire(Guid behaviour, TimeSpan wait)
    {
        ThrowIfPoisoned();
        if (_queue.Find(behaviour) is not { } request)
        {
            return new Grant<T>(CownReply.Lost, null);
        }

        if (!request.Scheduled)
        {
            request.Scheduled = true;
            _queue.WakeReady(BlockedBy);
        }

        Renew(request);
        CownReply reply = await WaitAsync(request, IsGranted, wait).ConfigureAwait(true);

        // A durable state: the committed value, or a prepared value whose commit is durable at its coordinator.
        return reply == CownReply.Ready ? new Grant<T>(reply, EffectiveValue ?? new T()) : new Grant<T>(reply, null);
    }

    public Task<CownReply> Renew(Guid behaviour)
    {
        ThrowIfPoisoned();
        if (_queue.Find(behaviour) is not { } request)
        {
            return Task.FromResult(CownReply.Lost);
        }

        Renew(request);
        return Task.FromResult(CownReply.Ready);
    }

    public Task<CownReply> Validate(Guid behaviour)
    {
        ThrowIfPoisoned();
        return Task.FromResult(_queue.Find(behaviour) is { } request && IsGranted(request) ? CownReply.Ready : CownReply.Lost);
    }

    /// <summary>
    /// The behaviour whose write-back blocks every other grant: the durable prepared value's (unless its commit is
    /// known), or the one being prepared (its write is in flight and may land).
    /// </summary>
    private Guid BlockedBy => _durable.Prepared is { } prepared && prepared.Behaviour != _decided ? prepared.Behaviour : _preparing;

    private bool IsGranted(Request request) => _queue.IsGranted(request, BlockedBy);

    private void Renew(Request request)
    {
        request.LeaseUntil = Environment.TickCount64 + LeaseMilliseconds;
        if (request.IdempotencyKey is { } key)
        {
            HoldKey(key);
        }

        // A held or queued request keeps the activation: its loss would cost the spawner an attempt.
        DelayDeactivation(2 * _options.LeaseDuration);
    }

    private void Remove(Request request) => _queue.Remove(request, BlockedBy);

    private async Task<CownReply> WaitAsync(Request request, Func<Request, bool> ready, TimeSpan wait)
    {
        long deadline = Environment.TickCount64 + (long)wait.TotalMilliseconds;
        while (true)
        {
            ThrowIfPoisoned();
            if (request.Removed)
            {
                return CownReply.Lost;
            }

            if (ready(request))
            {
                return CownReply.Ready;
            }

            long remaining = deadline - Environment.TickCount64;
            if (remaining <= 0)
            {
                return CownReply.NotYet;
            }

            using var cancel = new CancellationTokenSource();
            Task changed = request.Changed;
            Task timeout = Task.Delay(TimeSpan.FromMilliseconds(remaining), cancel.Token);
            if (await Task.WhenAny(changed, timeout).ConfigureAwait(true) == changed)
            {
                await cancel.CancelAsync().ConfigureAwait(true);
            }
        }
    }
}
