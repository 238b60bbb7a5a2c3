namespace Boc.Orleans.Grains;

// The durable rule and the poison (CownGrain's header): one place writes the record, and one place gives up. Writes go
// out one at a time; a write carries everything ready when it starts (group commit): the participants' new write-backs
// (prepared), the applies of committed ones, the coordinator's ready write-backs with their commit records, fences and
// settled records dropped. Whoever needs a write waits for the first one that starts after it asked.
internal sealed partial class CownGrain<T>
{
    /// <summary>Commit records whose spawner said it has its answer (Forget).</summary>
    private readonly HashSet<Guid> _forgotten = [];

    /// <summary>Commit records whose every participant has its apply in storage.</summary>
    private readonly HashSet<Guid> _participantsApplied = [];

    /// <summary>The participants of each commit record known to have applied, until all have.</summary>
    private readonly Dictionary<Guid, HashSet<GrainId>> _appliedBy = [];

    /// <summary>
    /// When this activation learned of each commit record (<see cref="CownClock.Milliseconds"/>): read at activation, or
    /// written. A record's retention counts from here, on this machine's monotonic clock, so no clock skew can shorten
    /// it; a reactivation restarts the count, which only lengthens it.
    /// </summary>
    private readonly Dictionary<Guid, long> _recordLearned = [];

    /// <summary>When this activation learned of each fenced key, as <see cref="_recordLearned"/>.</summary>
    private readonly Dictionary<string, long> _fenceLearned = new(StringComparer.Ordinal);

    /// <summary>When this activation's last write succeeded (Environment.TickCount64), for the idle flush.</summary>
    private long _lastWrite;

    /// <summary>The next write bumps the epoch (fence 1).</summary>
    private bool _bumpEpoch;

    /// <summary>Completes when the write that starts next has landed; null if nobody waits for one.</summary>
    private TaskCompletionSource? _nextWrite;

    /// <summary>Someone needs the next write to happen (not only to hear of it).</summary>
    private bool _writeWanted;

    /// <summary>The writer loop, while one runs.</summary>
    private Task? _writing;

    /// <summary>
    /// Waits for a write that starts after this call (so it carries everything ready now) to land, and for its effects
    /// to be answered from. On failure the activation is poisoned and the exception rethrown: storage may hold either
    /// record now, so nothing may be answered from either.
    /// </summary>
    private Task WriteAsync()
    {
        ThrowIfPoisoned();
        TaskCompletionSource next = _nextWrite ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        _writeWanted = true;
        _writing ??= WriteLoopAsync();
        return next.Task;
    }

    /// <summary>Waits for the next write, whatever starts it, without starting one.</summary>
    private Task NextWriteAsync()
    {
        ThrowIfPoisoned();
        return (_nextWrite ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;
    }

    /// <summary>A write nobody awaits (a failure poisons the activation, which every later call sees).</summary>
    private async Task WriteQuietlyAsync()
    {
        try
        {
            await WriteAsync().ConfigureAwait(true);
        }
#pragma warning disable CA1031 // See the summary.
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    private async Task WriteLoopAsync()
    {
        // Runs on the activation; yields first so that whatever else this turn makes ready goes in the same write.
        await Task.Yield();
        while (_writeWanted)
        {
            _writeWanted = false;
            TaskCompletionSource? done = _nextWrite;
            _nextWrite = null;
            if (_poisoned is not null)
            {
                done?.TrySetException(Unavailable());
                continue;
            }

            WritePlan plan = Compose();
            _record.State = plan.Record;
            try
            {
                await _record.WriteStateAsync().ConfigureAwait(true);
            }
#pragma warning disable CA1031 // Every waiter gets the failure; the activation answers nothing more.
            catch (Exception failure)
#pragma warning restore CA1031
            {
                Poison(failure);
                done?.TrySetException(failure);
                _nextWrite?.TrySetException(failure);
                _nextWrite = null;
                break;
            }

            Landed(plan);
            done?.TrySetResult();
        }

        _writing = null;
    }

    /// <summary>What one write carries, and so what it decides once it lands.</summary>
    private sealed record WritePlan(CownRecord<T> Record, WriteBack<T>[] Preparing, WriteBack<T>[] Applying, WriteBack<T>[] Committing, Guid[] Dropping);

    /// <summary>The next record: the stored one, with everything ready now folded in.</summary>
    private WritePlan Compose()
    {
        CownRecord<T> record = DropSettled(_durable, out Guid[] dropping);
        T? value = record.Value;

        // Committed participant write-backs: the front of what was the chain, in order.
        WriteBack<T>[] applying = [.. _applying];
        foreach (WriteBack<T> applied in applying)
        {
            value = applied.Value;
        }

        // The coordinator's write-backs at the chain's front that have every vote: committed together by this write.
        var committing = new List<WriteBack<T>>();
        CommitRecord[] commits = record.Commits;
        foreach (WriteBack<T> writeBack in _chain)
        {
            if (!writeBack.Own || writeBack.Waiting.Count > 0 || KeyTaken(writeBack, commits))
            {
                break;
            }

            writeBack.Committing = true;
            committing.Add(writeBack);
            value = writeBack.Value;
            commits = [.. commits, new CommitRecord(writeBack.Behaviour, writeBack.Participants, _clock.UtcNow, writeBack.IdempotencyKey)];
        }

        // Every participant write-back still undecided, in chain order (each computed from the one before).
        PreparedWrite<T>[] prepared = [.. _chain.Where(w => !w.Own).Select(w => w.ToPrepared())];
        WriteBack<T>[] preparing = [.. _chain.Where(w => !w.Own && !w.Durable)];
        string[] fences = _fencing.Count == 0 ? record.Fences : [.. record.Fences, .. _fencing.Where(k => Array.IndexOf(record.Fences, k) < 0)];
        record = record with
        {
            Value = value,
            PreparedChain = prepared,
            Commits = commits,
            Fences = fences,
            Epoch = _bumpEpoch ? record.Epoch + 1 : record.Epoch,
        };
        _bumpEpoch = false;
        return new WritePlan(record, preparing, applying, [.. committing], dropping);
    }

    /// <summary>A commit record with the write-back's key is among <paramref name="commits"/>: it must wait, and is then a duplicate.</summary>
    private static bool KeyTaken(WriteBack<T> writeBack, CommitRecord[] commits) =>
        writeBack.IdempotencyKey is { } key && Array.Exists(commits, c => c.IdempotencyKey == key);

    /// <summary>The write of <paramref name="plan"/> is in storage: it is the record answers come from, and its decisions are told.</summary>
    private void Landed(WritePlan plan)
    {
        _durable = plan.Record;
        Learn(_durable);
        _lastWrite = Environment.TickCount64;
        _forgotten.ExceptWith(plan.Dropping);
        _participantsApplied.ExceptWith(plan.Dropping);
        foreach (Guid dropped in plan.Dropping)
        {
            _appliedBy.Remove(dropped);
        }

        foreach (WriteBack<T> prepared in plan.Preparing)
        {
            prepared.Durable = true;
        }

        foreach (WriteBack<T> applied in plan.Applying)
        {
            _applying.Remove(applied);
        }

        foreach (WriteBack<T> committed in plan.Committing)
        {
            _chain.Remove(committed);
            committed.Outcome.TrySetResult(Decision.Committed);
            if (committed.Participants.Length == 0)
            {
                _participantsApplied.Add(committed.Behaviour);
            }
        }

        _queue.WakeReady(Blocked);
        Advance();
    }

    /// <summary>
    /// The record without the commit records nobody can ask about any more: every participant applied, and the spawner
    /// has its answer (a record with an idempotency key stays for the retention, so its outcome can be looked up) or the
    /// retention has passed (the spawner stops asking long before: docs/distributed.md, "Commit"); and without the fences
    /// older than the retention. Ages are this activation's (<see cref="_recordLearned"/>), never a wall clock's.
    /// </summary>
    private CownRecord<T> DropSettled(CownRecord<T> record, out Guid[] dropping)
    {
        long now = _clock.Milliseconds;
        long retention = (long)_options.CommitRecordRetention.TotalMilliseconds;
        CommitRecord[] drop = Array.FindAll(record.Commits, c =>
            _participantsApplied.Contains(c.Behaviour)
            && ((_forgotten.Contains(c.Behaviour) && c.IdempotencyKey is null) || now - _recordLearned.GetValueOrDefault(c.Behaviour, now) > retention));
        string[] expiredFences = Array.FindAll(record.Fences, k => now - _fenceLearned.GetValueOrDefault(k, now) > retention);
        dropping = [.. drop.Select(c => c.Behaviour)];
        if (drop.Length == 0 && expiredFences.Length == 0)
        {
            return record;
        }

        return record with
        {
            Commits = drop.Length == 0 ? record.Commits : Array.FindAll(record.Commits, c => Array.IndexOf(drop, c) < 0),
            Fences = expiredFences.Length == 0 ? record.Fences : Array.FindAll(record.Fences, k => Array.IndexOf(expiredFences, k) < 0),
        };
    }

    /// <summary>A participant of <paramref name="record"/> has its apply in storage; once all have, only the spawner's answer (or the retention) keeps it.</summary>
    private void NoteApplied(CommitRecord record, GrainId participant)
    {
        if (_participantsApplied.Contains(record.Behaviour))
        {
            return;
        }

        if (!_appliedBy.TryGetValue(record.Behaviour, out HashSet<GrainId>? applied))
        {
            _appliedBy[record.Behaviour] = applied = [];
        }

        applied.Add(participant);
        if (Array.TrueForAll(record.Participants, applied.Contains))
        {
            _appliedBy.Remove(record.Behaviour);
            _participantsApplied.Add(record.Behaviour);
        }
    }

    /// <summary>Notes when this activation learned of the records and fences of <paramref name="record"/> it did not know, and forgets the ones it no longer holds.</summary>
    private void Learn(CownRecord<T> record)
    {
        long now = _clock.Milliseconds;
        foreach (CommitRecord commit in record.Commits)
        {
            _recordLearned.TryAdd(commit.Behaviour, now);
            if (commit.Participants.Length == 0)
            {
                _participantsApplied.Add(commit.Behaviour);
            }
        }

        foreach (string key in record.Fences)
        {
            _fenceLearned.TryAdd(key, now);
        }

        if (_recordLearned.Count > record.Commits.Length)
        {
            foreach (Guid gone in _recordLearned.Keys.Where(b => record.FindCommit(b) is null).ToList())
            {
                _recordLearned.Remove(gone);
            }
        }

        if (_fenceLearned.Count > record.Fences.Length)
        {
            foreach (string gone in _fenceLearned.Keys.Where(k => Array.IndexOf(record.Fences, k) < 0).ToList())
            {
                _fenceLearned.Remove(gone);
            }
        }
    }

    private void Poison(Exception failure)
    {
        if (_poisoned is not null)
        {
            return;
        }

        _poisoned = failure;
        Log.Poisoned(_logger, failure, this.GetPrimaryKeyString(), _queue.Count);

        // Write-backs that have not voted vote no, so their coordinators abort at once (an abort is always safe before the
        // commit record is written; one whose prepare landed anyway is resolved to Aborted by its coordinator). The
        // coordinator's own write-backs are decided by the next activation, which the spawner's retried commit reaches.
        foreach (WriteBack<T> writeBack in _chain)
        {
            if (writeBack.Own)
            {
                writeBack.Outcome.TrySetException(Unavailable());
            }
            else if (!writeBack.Voted && !writeBack.Recovered)
            {
                SendVote(writeBack.Behaviour, writeBack.Coordinator, yes: false);
            }
        }

        foreach ((_, TaskCompletionSource<bool> valid) in _readWaits)
        {
            valid.TrySetResult(false);
        }

        _readWaits.Clear();
        _queue.WakeAll();
        DeactivateOnIdle();
    }

    private void ThrowIfPoisoned()
    {
        if (_poisoned is not null)
        {
            throw Unavailable();
        }
    }

    private CownUnavailableException Unavailable() =>

        // The failure's text, not the failure: its type may not be serializable to the caller.
        new($"The cown {this.GetPrimaryKeyString()} is reloading after a storage write failed ({_poisoned?.GetType().Name}: {_poisoned?.Message}).");
}
