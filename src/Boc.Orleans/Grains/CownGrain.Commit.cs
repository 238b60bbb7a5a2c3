namespace Boc.Orleans.Grains;

// The write-back (docs/distributed.md, "Commit"): the spawner hands every written cown its new state at once (Prepare at
// the participants, Commit at the coordinator) and every read cown its release (ReadDone). Each cown releases the request
// there and then. The participants prepare in storage and vote; the readers vote once their grant is validated; the
// coordinator commits (its state with the commit record, in one write) once every vote is yes and everything before it
// in its chain has committed, and answers the spawner and the voters. Every reply that says something was written is
// given after the write.
internal sealed partial class CownGrain<T>
{
    /// <summary>Behaviours whose write-back this activation applied, and when: a repeated release is answered from here.</summary>
    private readonly Dictionary<Guid, long> _applied = [];

    /// <summary>Votes that reached this coordinator before its behaviour's Commit did.</summary>
    private readonly Dictionary<Guid, List<(GrainId Voter, bool Yes)>> _earlyVotes = [];

    public Task Prepare(Guid behaviour, T state, GrainId coordinator)
    {
        if (_poisoned is not null || FindWriteBack(behaviour) is not null || _applied.ContainsKey(behaviour))
        {
            // A poisoned activation answers nothing (its coordinator's deadline aborts); a repeated message is ignored.
            return Task.CompletedTask;
        }

        if (Held(behaviour, write: true) is not { } request)
        {
            // Lost (evicted, or granted by an activation that is gone): the behaviour cannot commit here.
            SendVote(behaviour, coordinator, yes: false);
            return Task.CompletedTask;
        }

        var writeBack = new WriteBack<T>(behaviour, state, ++_seq, coordinator);
        _chain.Add(writeBack);
        Remove(request);
        DelayDeactivation(2 * _options.LeaseDuration);

        // Prepared by the next write; it votes from Advance once it is durable and at the chain's front.
        _ = WriteQuietlyAsync();
        return Task.CompletedTask;
    }

    public Task ReadDone(Guid behaviour, GrainId coordinator)
    {
        if (_poisoned is null)
        {
            _ = ReadDoneAsync(behaviour, coordinator);
        }

        return Task.CompletedTask;
    }

    private async Task ReadDoneAsync(Guid behaviour, GrainId coordinator) =>
        SendVote(behaviour, coordinator, await ReleaseValidatedAsync(behaviour).ConfigureAwait(true));

    public async Task<ReleaseReply> Finish(Guid behaviour)
    {
        ThrowIfPoisoned();
        return await ReleaseValidatedAsync(behaviour).ConfigureAwait(true) ? ReleaseReply.Released : ReleaseReply.NotHeld;
    }

    public async Task<Decision> Commit(Guid behaviour, T state, GrainId[] participants, GrainId[] readers, TimeSpan attemptAge, string? idempotencyKey)
    {
        ThrowIfPoisoned();
        if (_durable.FindCommit(behaviour) is not null)
        {
            return Decision.Committed;
        }

        WriteBack<T>? writeBack = FindWriteBack(behaviour);
        if (writeBack is null)
        {
            if (idempotencyKey is not null && Array.Exists(_durable.Commits, c => c.IdempotencyKey == idempotencyKey))
            {
                return Decision.Duplicate;
            }

            if (idempotencyKey is not null && IsFenced(idempotencyKey))
            {
                return Decision.Fenced;
            }

            if (Held(behaviour, write: true) is not { } request)
            {
                return await DecideWithoutRecordAsync(behaviour, attemptAge).ConfigureAwait(true);
            }

            writeBack = new WriteBack<T>(behaviour, state, ++_seq, Self)
            {
                Own = true,
                Participants = participants,
                Waiting = [.. participants, .. readers],
                IdempotencyKey = idempotencyKey,
                Deadline = Environment.TickCount64 + LeaseMilliseconds,
            };
            _chain.Add(writeBack);
            Remove(request);
            DelayDeactivation(2 * _options.LeaseDuration);
            if (_earlyVotes.Remove(behaviour, out List<(GrainId Voter, bool Yes)>? votes))
            {
                foreach ((GrainId voter, bool yes) in votes)
                {
                    CountVote(writeBack, voter, yes);
                }
            }

            Advance();
        }

        return await WithinAsync(writeBack.Outcome.Task, _options.PollInterval).ConfigureAwait(true) ? await writeBack.Outcome.Task.ConfigureAwait(true) : Decision.Pending;
    }

    public async Task<Decision> Vote(Guid behaviour, GrainId voter, bool yes)
    {
        ThrowIfPoisoned();
        long deadline = Environment.TickCount64 + (long)_options.PollInterval.TotalMilliseconds;
        while (true)
        {
            if (_durable.FindCommit(behaviour) is not null)
            {
                return Decision.Committed;
            }

            if (FindWriteBack(behaviour) is { Own: true } writeBack)
            {
                CountVote(writeBack, voter, yes);
                Advance();
                return await WithinAsync(writeBack.Outcome.Task, TimeSpan.FromMilliseconds(Math.Max(0, deadline - Environment.TickCount64))).ConfigureAwait(true)
                    ? await writeBack.Outcome.Task.ConfigureAwait(true)
                    : Decision.Pending;
            }

            if (_queue.Find(behaviour) is not { } request)
            {
                return await DecideWithoutRecordAsync(behaviour, null).ConfigureAwait(true);
            }

            // The behaviour's Commit has not arrived yet: keep the vote for it, and wait for it (or for the request to go).
            if (!_earlyVotes.TryGetValue(behaviour, out List<(GrainId Voter, bool Yes)>? votes))
            {
                _earlyVotes[behaviour] = votes = [];
            }

            if (!votes.Contains((voter, yes)))
            {
                votes.Add((voter, yes));
            }

            long remaining = deadline - Environment.TickCount64;
            if (remaining <= 0 || !await WithinAsync(request.Changed, TimeSpan.FromMilliseconds(remaining)).ConfigureAwait(true))
            {
                return Decision.Pending;
            }

            ThrowIfPoisoned();
        }
    }

    private void CountVote(WriteBack<T> writeBack, GrainId voter, bool yes)
    {
        if (!yes)
        {
            if (!writeBack.Committing)
            {
                Drop(writeBack, Decision.Aborted);
            }

            return;
        }

        writeBack.Waiting.Remove(voter);
    }

    public Task<Decision> Decide(Guid behaviour)
    {
        ThrowIfPoisoned();
        if (_durable.FindCommit(behaviour) is not null)
        {
            return Task.FromResult(Decision.Committed);
        }

        return FindWriteBack(behaviour) is { Own: true } || _queue.Find(behaviour) is not null
            ? Task.FromResult(Decision.Pending)
            : DecideWithoutRecordAsync(behaviour, null);
    }

    /// <summary>
    /// The answer for a behaviour with neither a durable record, nor a write-back, nor a request here. Fence (2) first: if
    /// a later activation exists, this write fails and nothing is answered. After it, no record can appear (a commit needs
    /// the request, which never comes back), so Aborted is final.
    /// </summary>
    private async Task<Decision> DecideWithoutRecordAsync(Guid behaviour, TimeSpan? attemptAge)
    {
        await WriteAsync().ConfigureAwait(true);
        if (_durable.FindCommit(behaviour) is not null)
        {
            return Decision.Committed;
        }

        if (FindWriteBack(behaviour) is { Own: true } || _queue.Find(behaviour) is not null)
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
        WriteBack<T>? writeBack = FindWriteBack(behaviour);
        if (!apply)
        {
            // The spawner abandons: before its write-back, or after its coordinator's final Aborted.
            if (writeBack is { Own: false })
            {
                Decided(writeBack, committed: false);
            }

            Request? request = _queue.Find(behaviour);
            bool held = request is not null && IsGranted(request);
            if (request is not null)
            {
                Remove(request);
            }

            return held ? ReleaseReply.Released : ReleaseReply.NotHeld;
        }

        // The coordinator's recovery: the commit is durable there.
        if (writeBack is { Own: false })
        {
            Decided(writeBack, committed: true);
        }

        if (writeBack is not null || _applying.Exists(w => w.Behaviour == behaviour) || !_applied.ContainsKey(behaviour))
        {
            // The apply reaches storage with the next write; with nothing left to apply, that write is fence (2): no
            // prepared value of the behaviour can be pending here after it, so it was applied earlier.
            await WriteAsync().ConfigureAwait(true);
            _applied[behaviour] = Environment.TickCount64;
        }

        return ReleaseReply.Applied;
    }

    public Task Forget(Guid behaviour)
    {
        // In memory until the next write: Decide keeps answering Committed from the durable record meanwhile, which is
        // true; a crash before the write only brings the record back, kept until the retention passes.
        if (_poisoned is null && _durable.FindCommit(behaviour) is not null)
        {
            _forgotten.Add(behaviour);
        }

        return Task.CompletedTask;
    }

    public Task Applied(Guid behaviour, GrainId participant)
    {
        if (_poisoned is null && _durable.FindCommit(behaviour) is { } record)
        {
            NoteApplied(record, participant);
        }

        return Task.CompletedTask;
    }
}
