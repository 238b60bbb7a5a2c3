using Microsoft.Extensions.Options;
using Orleans.Concurrency;

namespace Boc.Orleans.Grains;

// =====================================================================================================================
// A distributed cown (docs/distributed.md, "The protocol"). The grain is reentrant: a spawner's long poll (Enqueue,
// Acquire) waits inside the grain for the queue to change, and other calls must run meanwhile. Every step between two
// awaits runs alone on the activation, so the queue needs no locks; storage writes are serialized by _writes because
// a write awaits.
//
// Invariants:
//   * _queue is in arrival order of first Enqueue calls; a request is granted iff no prepared value is pending (other
//     than its own) and it is a writer at the head, or a reader with only readers ahead.
//   * An Enqueue is acknowledged only when every request ahead is Scheduled: the "scheduled" rule of
//     Behaviour.Enqueue.cs, which makes spawns sharing several cowns queue in the same order on each.
//   * A prepared value blocks every grant until it is applied or dropped, and survives reactivation (it is persisted),
//     so a multi-cown write-back is never half visible.
//   * For a behaviour this cown coordinated, its request or its commit record exists at every moment (Commit writes
//     the record before it removes the request), so Decide never answers Aborted for a behaviour that commits.
// The awaits use ConfigureAwait(true): continuations must run on the activation's scheduler.
// =====================================================================================================================
[Reentrant]
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "_writes never allocates a wait handle (only WaitAsync is used), so it holds nothing to dispose.")]
internal sealed class CownGrain<T> : Grain, ICownGrain<T>
    where T : class, new()
{
    private readonly IPersistentState<CownRecord<T>> _record;
    private readonly TimeSpan _lease;
    private readonly List<Request> _queue = [];
    private readonly SemaphoreSlim _writes = new(1, 1);
    private TaskCompletionSource _changed = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private long _preparedDeadline;
    private bool _resolving;

    public CownGrain([PersistentState("cown", BocCluster.StorageName)] IPersistentState<CownRecord<T>> record, IOptions<BocClusterOptions> options)
    {
        _record = record;
        _lease = options.Value.LeaseDuration;
    }

    private CownRecord<T> State => _record.State;

    public override Task OnActivateAsync(CancellationToken cancellationToken)
    {
        // A prepared value found in storage lost its request with the old activation: give its spawner a lease to
        // finish it, then ask the coordinator.
        _preparedDeadline = Environment.TickCount64 + (long)_lease.TotalMilliseconds;
        TimeSpan period = _lease / 4;
        this.RegisterGrainTimer(Tick, new GrainTimerCreationOptions(period, period) { Interleave = true, KeepAlive = false });
        return Task.CompletedTask;
    }

    public async Task<CownReply> Enqueue(Guid behaviour, bool write, bool first, TimeSpan wait)
    {
        Request? request = Find(behaviour);
        if (request is null)
        {
            if (!first)
            {
                return CownReply.Lost;
            }

            request = new Request(behaviour, write);
            _queue.Add(request);
        }

        Renew(request);
        return await WaitAsync(behaviour, AllAheadScheduled, wait).ConfigureAwait(true);
    }

    public Task Schedule(Guid behaviour)
    {
        if (Find(behaviour) is { } request)
        {
            request.Scheduled = true;
            Renew(request);
            Signal();
        }

        return Task.CompletedTask;
    }

    public async Task<Grant<T>> Acquire(Guid behaviour, TimeSpan wait)
    {
        CownReply reply = await WaitAsync(behaviour, IsGranted, wait).ConfigureAwait(true);
        return reply == CownReply.Ready ? new Grant<T>(reply, State.Value ?? new T()) : new Grant<T>(reply, null);
    }

    public Task<CownReply> Renew(Guid behaviour)
    {
        if (Find(behaviour) is not { } request)
        {
            return Task.FromResult(CownReply.Lost);
        }

        Renew(request);
        return Task.FromResult(CownReply.Ready);
    }

    public async Task<CownReply> Prepare(Guid behaviour, T state, GrainId coordinator)
    {
        await _writes.WaitAsync().ConfigureAwait(true);
        try
        {
            if (State.PreparedBy == behaviour)
            {
                return CownReply.Ready;
            }

            if (Find(behaviour) is not { } request || !IsGranted(request))
            {
                return CownReply.Lost;
            }

            Renew(request);
            State.Prepared = state;
            State.PreparedBy = behaviour;
            State.Coordinator = coordinator;
            await PersistAsync(() =>
            {
                State.Prepared = null;
                State.PreparedBy = Guid.Empty;
                State.Coordinator = default;
            }).ConfigureAwait(true);
            return CownReply.Ready;
        }
        finally
        {
            _writes.Release();
        }
    }

    public async Task<Decision> Commit(Guid behaviour, T? state)
    {
        await _writes.WaitAsync().ConfigureAwait(true);
        try
        {
            if (State.Committed.Contains(behaviour))
            {
                return Decision.Committed;
            }

            if (Find(behaviour) is not { } request || !IsGranted(request))
            {
                return Decision.Aborted;
            }

            T? before = State.Value;
            if (state is not null)
            {
                State.Value = state;
            }

            State.Committed.Add(behaviour);
            await PersistAsync(() =>
            {
                State.Value = before;
                State.Committed.Remove(behaviour);
            }).ConfigureAwait(true);
            Remove(request);
            return Decision.Committed;
        }
        finally
        {
            _writes.Release();
        }
    }

    public async Task Release(Guid behaviour, bool apply)
    {
        if (State.PreparedBy == behaviour)
        {
            await _writes.WaitAsync().ConfigureAwait(true);
            try
            {
                if (State.PreparedBy == behaviour)
                {
                    T? before = State.Value;
                    T? prepared = State.Prepared;
                    GrainId coordinator = State.Coordinator;
                    if (apply)
                    {
                        State.Value = prepared;
                    }

                    State.Prepared = null;
                    State.PreparedBy = Guid.Empty;
                    State.Coordinator = default;
                    await PersistAsync(() =>
                    {
                        State.Value = before;
                        State.Prepared = prepared;
                        State.PreparedBy = behaviour;
                        State.Coordinator = coordinator;
                    }).ConfigureAwait(true);
                }
            }
            finally
            {
                _writes.Release();
            }
        }

        if (Find(behaviour) is { } request)
        {
            Remove(request);
        }
        else
        {
            // A dropped or applied prepared value unblocks grants even without a request.
            Signal();
        }
    }

    public Task Forget(Guid behaviour)
    {
        // In memory only: the next write persists it, and a record that survives a crash is harmless.
        State.Committed.Remove(behaviour);
        return Task.CompletedTask;
    }

    public Task<Decision> Decide(Guid behaviour) => Task.FromResult(
        State.Committed.Contains(behaviour) ? Decision.Committed
        : Find(behaviour) is not null ? Decision.Pending
        : Decision.Aborted);

    private async Task Tick(CancellationToken cancellationToken)
    {
        long now = Environment.TickCount64;
        bool evicted = false;
        for (int i = _queue.Count - 1; i >= 0; i--)
        {
            Request request = _queue[i];
            if (request.LeaseUntil < now && request.Id != State.PreparedBy)
            {
                _queue.RemoveAt(i);
                evicted = true;
            }
        }

        if (evicted)
        {
            Signal();
        }

        Guid prepared = State.PreparedBy;
        if (prepared == Guid.Empty || _resolving)
        {
            return;
        }

        long deadline = Find(prepared) is { } holder ? holder.LeaseUntil : _preparedDeadline;
        if (deadline >= now)
        {
            return;
        }

        // The spawner went quiet after preparing: the coordinator's commit record decides.
        _resolving = true;
        try
        {
            Decision decision = await GrainFactory.GetGrain<ICownDecider>(State.Coordinator).Decide(prepared).ConfigureAwait(true);
            if (decision != Decision.Pending)
            {
                await Release(prepared, decision == Decision.Committed).ConfigureAwait(true);
            }
        }
#pragma warning disable CA1031 // The coordinator may be unreachable for now: the next tick asks again.
        catch (Exception)
#pragma warning restore CA1031
        {
        }
        finally
        {
            _resolving = false;
        }
    }

    private async Task PersistAsync(Action undo)
    {
        try
        {
            await _record.WriteStateAsync().ConfigureAwait(true);
        }
        catch
        {
            // The write may or may not have reached storage: undo in memory and reload from storage on the next call.
            undo();
            DeactivateOnIdle();
            throw;
        }
    }

    private async Task<CownReply> WaitAsync(Guid behaviour, Func<Request, bool> ready, TimeSpan wait)
    {
        long deadline = Environment.TickCount64 + (long)wait.TotalMilliseconds;
        while (true)
        {
            if (Find(behaviour) is not { } request)
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
            Task changed = _changed.Task;
            Task timeout = Task.Delay(TimeSpan.FromMilliseconds(remaining), cancel.Token);
            if (await Task.WhenAny(changed, timeout).ConfigureAwait(true) == changed)
            {
                await cancel.CancelAsync().ConfigureAwait(true);
            }
        }
    }

    private bool AllAheadScheduled(Request request)
    {
        foreach (Request ahead in _queue)
        {
            if (ahead == request)
            {
                return true;
            }

            if (!ahead.Scheduled)
            {
                return false;
            }
        }

        return true;
    }

    private bool IsGranted(Request request)
    {
        if (State.PreparedBy != Guid.Empty && State.PreparedBy != request.Id)
        {
            return false;
        }

        if (request.Write)
        {
            return _queue.Count > 0 && _queue[0] == request;
        }

        foreach (Request ahead in _queue)
        {
            if (ahead == request)
            {
                return true;
            }

            if (ahead.Write)
            {
                return false;
            }
        }

        return false;
    }

    private Request? Find(Guid behaviour)
    {
        foreach (Request request in _queue)
        {
            if (request.Id == behaviour)
            {
                return request;
            }
        }

        return null;
    }

    private void Remove(Request request)
    {
        _queue.Remove(request);
        Signal();
    }

    private void Renew(Request request) => request.LeaseUntil = Environment.TickCount64 + (long)_lease.TotalMilliseconds;

    private void Signal()
    {
        TaskCompletionSource changed = _changed;
        _changed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        changed.TrySetResult();
    }

    private sealed class Request(Guid id, bool write)
    {
        public Guid Id { get; } = id;

        public bool Write { get; } = write;

        public bool Scheduled { get; set; }

        public long LeaseUntil { get; set; }
    }
}
