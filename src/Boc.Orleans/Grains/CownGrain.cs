using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;
using Orleans.Concurrency;
using Orleans.Placement;

namespace Boc.Orleans.Grains;

// =====================================================================================================================
// A distributed cown (docs/distributed.md, "The protocol" and "Failures"). The grain is reentrant: a spawner's long poll
// (Enqueue, Acquire, Commit) waits inside the grain for the queue or the chain to change, and other calls must run
// meanwhile. Every step between two awaits runs alone on the activation, so nothing needs a lock.
//
// A cown holds a FIFO queue of requests and a chain of write-backs (CownGrain.Chain.cs). A request leaves the queue as
// soon as its behaviour hands its new state over (a participant's Prepare, a coordinator's Commit, a reader's ReadDone or
// Finish): the next request is granted at once, on that state, and depends on it. The storage writes (a participant's
// prepare, the coordinator's commit, the apply) are off that path, and a write carries whatever is ready when it starts
// (group commit, CownGrain.Durable.cs).
//
// The durable rule, for every answer another party acts on irrevocably. Committed (to a spawner or a participant) only
// after the write holding the commit record landed. A participant votes yes only once its write-back is in storage and
// every write-back before it here has committed. Applied only after the apply is in storage, or after a write that found
// none left to apply. A grant is not irrevocable: a behaviour whose grant depended on a write-back that aborts is aborted
// too, before it can commit, so an undecided state is never part of a committed one. If a write fails, storage may or may
// not hold it (a timeout can land later): the activation is poisoned, answers nothing more, and deactivates; the next
// activation reads storage afresh.
//
// The fences. (1) An activation's first act is a write (the epoch): storage checks each write's ETag, so every write
// still in flight from an earlier activation (a paused silo's, a duplicate's) fails from then on, and what this
// activation read stays what storage holds. (2) A negative answer given without holding the behaviour's request or
// write-back (Decide or Commit: Aborted; a release that finds nothing to apply: Applied; a lookup: not committed) is
// given only after a write of this activation succeeded since it last looked, so a later activation that this one does
// not know about cannot exist unnoticed: its fence would have failed this write. A coordinator that holds the request or
// the write-back may abort in memory: only the activation that holds a behaviour's request can ever commit it.
//
// Invariants:
//   * _queue is in arrival order of first Enqueue calls; a request is granted iff the cown is not blocked (write-backs
//     found in storage at activation are being resolved) and it is a writer at the head, or a reader with only readers
//     ahead.
//   * An Enqueue is acknowledged only when every request ahead is Scheduled (RequestQueue's header).
//   * The chain holds the undecided write-backs in queue order; decisions come in chain order (a participant votes, and
//     a coordinator commits, only once everything before it here has committed), and an abort drops the write-back and
//     everything after it, with every grant made on their states.
//   * For a behaviour this cown coordinates, its request, its write-back or its durable commit record exists at every
//     moment until it is decided, so Decide never answers Aborted for one that commits.
// The awaits use ConfigureAwait(true): continuations must run on the activation's scheduler.
// =====================================================================================================================
[Reentrant]
[Immovable]
internal sealed partial class CownGrain<T> : Grain, ICownGrain<T>
    where T : class, new()
{
    private readonly IPersistentState<CownRecord<T>> _record;
    private readonly BocClusterOptions _options;
    private readonly ILogger _logger;
    private readonly CownClock _clock;
    private readonly RequestQueue _queue = new();
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

    private GrainId Self => this.GetGrainId();

    public override async Task OnActivateAsync(CancellationToken cancellationToken)
    {
        _durable = _record.State ?? new CownRecord<T>();
        Learn(_durable);

        // Write-backs found prepared lost their requests with the old activation: they block grants until resolved.
        foreach (PreparedWrite<T> prepared in _durable.PreparedChain)
        {
            _chain.Add(new WriteBack<T>(prepared.Behaviour, prepared.Value, ++_seq, prepared.Coordinator) { Recovered = true, Durable = true });
            _recovering++;
        }

        // Fence (1): from this write on, no earlier activation's write can land.
        _bumpEpoch = true;
        await WriteAsync().ConfigureAwait(true);

        // Give the recovered write-backs' spawners a lease to finish them, then ask their coordinators.
        _recoveryDeadline = Environment.TickCount64 + LeaseMilliseconds;
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

    public async Task<Grant<T>> Enqueue(Guid behaviour, bool write, bool first, bool last, TimeSpan wait, string? idempotencyKey)
    {
        ThrowIfPoisoned();
        Request? request = _queue.Find(behaviour);
        if (request is null)
        {
            if (!first)
            {
                return new Grant<T>(CownReply.Lost, null);
            }

            if (idempotencyKey is not null)
            {
                // A key a lookup answered NotCommitted for may not commit here: the attempt is refused before it queues.
                if (IsFenced(idempotencyKey))
                {
                    return new Grant<T>(CownReply.Fenced, null);
                }

                HoldKey(idempotencyKey);
            }

            request = _queue.Add(behaviour, write, idempotencyKey);
        }

        Renew(request);
        CownReply reply = await WaitAsync(request, _queue.IsAcknowledged, wait).ConfigureAwait(true);
        if (reply != CownReply.Ready)
        {
            return new Grant<T>(reply, null);
        }

        if (last)
        {
            // Every enqueue of the behaviour is acknowledged, so it is scheduled from now on.
            Schedule(request);
        }

        return IsGranted(request) ? GrantOf(request) : new Grant<T>(CownReply.Ready, null);
    }

    public Task Schedule(Guid behaviour)
    {
        if (_poisoned is null && _queue.Find(behaviour) is { } request)
        {
            Schedule(request);
        }

        return Task.CompletedTask;
    }

    public async Task<Grant<T>> Acquire(Guid behaviour, TimeSpan wait)
    {
        ThrowIfPoisoned();
        if (_queue.Find(behaviour) is not { } request)
        {
            return new Grant<T>(CownReply.Lost, null);
        }

        Schedule(request);
        Renew(request);
        CownReply reply = await WaitAsync(request, IsGranted, wait).ConfigureAwait(true);
        return reply == CownReply.Ready ? GrantOf(request) : new Grant<T>(reply, null);
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

    private void Schedule(Request request)
    {
        if (!request.Scheduled)
        {
            request.Scheduled = true;
            _queue.WakeReady(Blocked);
        }
    }

    /// <summary>
    /// The grant's state: the latest write-back's (the behaviour depends on every write-back up to it: ReadSeq), or the
    /// committed state.
    /// </summary>
    private Grant<T> GrantOf(Request request)
    {
        request.GrantSent = true;
        request.ReadSeq = _seq;
        return new Grant<T>(CownReply.Ready, LatestValue ?? new T());
    }

    private bool IsGranted(Request request) => _queue.IsGranted(request, Blocked);

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

    private void Remove(Request request) => _queue.Remove(request, Blocked);

    /// <summary>The request, if this cown holds it for a grant it sent (a write-back or a release may then act on it).</summary>
    private Request? Held(Guid behaviour, bool write)
    {
        Request? request = _queue.Find(behaviour);
        return request is not null && request.GrantSent && (request.Write || !write) && IsGranted(request) ? request : null;
    }

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

    /// <summary>Waits up to <paramref name="wait"/> for <paramref name="task"/>; false if the wait ran out first.</summary>
    private static async Task<bool> WithinAsync(Task task, TimeSpan wait)
    {
        if (task.IsCompleted)
        {
            return true;
        }

        using var cancel = new CancellationTokenSource();
        if (await Task.WhenAny(task, Task.Delay(wait, cancel.Token)).ConfigureAwait(true) == task)
        {
            await cancel.CancelAsync().ConfigureAwait(true);
            return true;
        }

        return false;
    }
}
