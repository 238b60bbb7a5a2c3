namespace Boc.Orleans.Grains;

// The write-back (docs/distributed.md, "Commit"): prepare at every written cown but the coordinator, commit at the
// coordinator, then apply at the prepared cowns. Every reply that says something was written is given after the write.
internal sealed partial class CownGrain<T>
{
    /// <summary>Behaviours whose prepared value this activation applied, and when: a repeated release is answered from here.</summary>
    private readonly Dictionary<Guid, long> _applied = [];

    public async Task<CownReply> Prepare(Guid behaviour, T state, GrainId coordinator)
    {
        ThrowIfPoisoned();
        if (_durable.Prepared?.Behaviour == behaviour)
        {
            return CownReply.Ready;
        }

        if (_queue.Find(behaviour) is not { } request || !request.Write || !IsGranted(request))
        {
            return CownReply.Lost;
        }

        // From here until the write's outcome is known, the value may land: it blocks grants, and the lease cannot end
        // the request (a prepared value is resolved through its coordinator, never by eviction).
        request.Writing = true;
        _preparing = behaviour;
        try
        {
            await WriteAsync(r => r with { Prepared = new PreparedWrite<T>(behaviour, state, coordinator) }).ConfigureAwait(true);
        }
        finally
        {
            request.Writing = false;
            _preparing = Guid.Empty;
        }

        Renew(request);
        return CownReply.Ready;
    }

    public async Task<Decision> Commit(Guid behaviour, T state, GrainId[] participants, TimeSpan attemptAge, string? idempotencyKey)
    {
        ThrowIfPoisoned();
        if (_durable.FindCommit(behaviour) is not null)
        {
            return Decision.Committed;
        }

        if (idempotencyKey is not null && Array.Exists(_durable.Commits, c => c.IdempotencyKey == idempotencyKey))
        {
            return Decision.Duplicate;
        }

        if (idempotencyKey is not null && IsFenced(idempotencyKey))
        {
            return Decision.Fenced;
        }

        if (_queue.Find(behaviour) is { } request && request.Write && IsGranted(request))
        {
            // The request stays until the record is durable: at every moment one of the two exists, so a participant's
            // Decide sees Pending, never Aborted, while the write is in flight.
            request.Writing = true;
            try
            {
                await WriteAsync(r => r with
                {
                    Value = state,
                    Commits = [.. r.Commits, new CommitRecord(behaviour, participants, _clock.UtcNow, idempotencyKey)],
                }).ConfigureAwait(true);
            }
            finally
            {
                request.Writing = false;
            }

            Remove(request);

            // The coordinator tells the participants itself: one hop sooner than through the spawner, and it learns
            // from their Applied when the record can go (SettleAsync; retried by the tick if a participant misses it).
            if (participants.Length > 0 && _settling.Add(behaviour))
            {
                _ = SettleAsync(_durable.FindCommit(behaviour)!, recovery: false);
            }

            return Decision.Committed;
        }

        return await DecideWithoutRecordAsync(behaviour, attemptAge).ConfigureAwait(true);
    }

    public Task<Decision> Decide(Guid behaviour)
    {
        ThrowIfPoisoned();
        if (_durable.FindCommit(behaviour) is not null)
        {
            return Task.FromResult(Decision.Committed);
        }

        return _queue.Find(behaviour) is not null ? Task.FromResult(Decision.Pending) : DecideWithoutRecordAsync(behaviour, null);
    }

    /// <summary>
    /// The answer for a behaviour with neither a durable record nor a request here. Fence (2) first: if a later
    /// activation exists, this write fails and nothing is answered. After it, no record can appear (a commit needs the
    /// request, which never comes back), so Aborted is final.
    /// </summary>
    private async Task<Decision> DecideWithoutRecordAsync(Guid behaviour, TimeSpan? attemptAge)
    {
        await WriteAsync(r => r).ConfigureAwait(true);
        if (_durable.FindCommit(behaviour) is not null)
        {
            return Decision.Committed;
        }

        if (_queue.Find(behaviour) is not null)
        {
            return Decision.Pending;
        }

        // A record without participants may be dropped once the retention has passed; an attempt older than half of it
        // cannot be told apart from one whose record went. Its age is the spawner's own monotonic clock (the record was
        // made after the attempt started, and is kept a retention after this activation learned of it): no wall clock.
        if (attemptAge is { } age && age > _options.CommitRecordRetention / 2)
        {
            return Decision.Unknown;
        }

        Log.Aborted(_logger, this.GetPrimaryKeyString(), behaviour);
        return Decision.Aborted;
    }

    public async Task<ReleaseReply> Release(Guid behaviour, bool apply)
    {
        ThrowIfPoisoned();
        Request? request = _queue.Find(behaviour);
        if (request is { Writing: true })
        {
            // Its commit or prepare write is in flight: that call removes the request or keeps it prepared.
            return ReleaseReply.NotHeld;
        }

        bool held = request is not null && IsGranted(request);
        if (apply && _durable.Prepared?.Behaviour == behaviour)
        {
            // The commit is durable at the coordinator and the value durable here: it is the state from now on. The
            // next request is granted it at once; the apply reaches storage with this write (or any earlier one, which
            // folds it in), and Applied is answered only then.
            _decided = behaviour;
            if (request is not null)
            {
                Remove(request);
            }
            else
            {
                _queue.WakeReady(BlockedBy);
            }

            await WriteAsync(r => r).ConfigureAwait(true);
            _applied[behaviour] = Environment.TickCount64;
            return ReleaseReply.Applied;
        }

        if (_durable.Prepared?.Behaviour == behaviour || (apply && !_applied.ContainsKey(behaviour)))
        {
            // Drop the prepared value; or, with nothing prepared (apply only), fence (2): after this write no prepared
            // value of the behaviour can be pending here, so it was applied earlier.
            await WriteAsync(r => r.Prepared?.Behaviour == behaviour ? r with { Prepared = null } : r).ConfigureAwait(true);
            if (apply)
            {
                _applied[behaviour] = Environment.TickCount64;
            }

            request = _queue.Find(behaviour);
        }

        if (request is not null && !request.Writing)
        {
            Remove(request);
        }
        else
        {
            // A dropped value unblocks grants even without a request.
            _queue.WakeReady(BlockedBy);
        }

        return apply ? ReleaseReply.Applied : held ? ReleaseReply.Released : ReleaseReply.NotHeld;
    }

    public Task Forget(Guid behaviour)
    {
        ThrowIfPoisoned();

        // In memory until the next write: Decide keeps answering Committed from the durable record meanwhile, which is
        // true; a crash before the write only brings the record back, kept until the retention passes.
        if (_durable.FindCommit(behaviour) is not null)
        {
            _forgotten.Add(behaviour);
        }

        return Task.CompletedTask;
    }
}
