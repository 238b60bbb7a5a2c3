namespace Boc.Orleans.Grains;

// What a cown does by itself, every quarter lease (docs/distributed.md, "Failures"): evict requests whose spawner went
// quiet, abort its own write-backs whose votes never came, resolve write-backs found prepared at activation through their
// coordinators, settle commit records whose participants have not all applied, and write settled records away when
// nothing else writes.
internal sealed partial class CownGrain<T>
{
    private readonly HashSet<Guid> _settling = [];
    private long _recoveryDeadline;
    private bool _resolving;

    private Task Tick(CancellationToken cancellationToken)
    {
        if (_poisoned is not null)
        {
            return Task.CompletedTask;
        }

        long now = Environment.TickCount64;
        if (_queue.EvictExpired(now) is { } evicted)
        {
            BocClusterMetrics.LeaseExpired(evicted.Count);
            Log.Evicted(_logger, this.GetPrimaryKeyString(), evicted.Count);
            _queue.WakeReady(Blocked);
        }

        foreach (Guid early in _earlyVotes.Keys.Where(b => _queue.Find(b) is null && FindWriteBack(b) is null).ToList())
        {
            _earlyVotes.Remove(early);
        }

        foreach (KeyValuePair<Guid, long> applied in _applied.Where(a => now - a.Value > 4 * LeaseMilliseconds).ToList())
        {
            _applied.Remove(applied.Key);
        }

        ForgetKeyHolds(now);

        // A coordinator's write-back whose participant or reader has not voted within a lease (unreachable, its prepare
        // failed, or the spawner's message to it was lost): its behaviour cannot commit, so it is aborted, and so is
        // everything that depended on it. One with every vote only waits for the write-backs before it, which decide.
        if (_chain.Find(w => w.Own && !w.Committing && w.Waiting.Count > 0 && w.Deadline < now) is { } late)
        {
            Drop(late, Decision.Aborted);
        }

        // Each recovery runs beside the tick, so a slow peer never holds back evictions.
        if (_chain.Count > 0 && _chain[0] is { Recovered: true } recovered && !_resolving && _recoveryDeadline < now)
        {
            _resolving = true;
            _ = ResolveAsync(recovered);
        }

        long learnedBefore = _clock.Milliseconds - LeaseMilliseconds;
        foreach (CommitRecord record in _durable.Commits)
        {
            if (!_participantsApplied.Contains(record.Behaviour) && _recordLearned.GetValueOrDefault(record.Behaviour) < learnedBefore
                && _settling.Add(record.Behaviour))
            {
                _ = SettleAsync(record);
            }
        }

        // Applies and settled records leave storage with the next write; a cown nothing writes to writes them itself.
        if (now - _lastWrite > LeaseMilliseconds / 4 && _writing is null
            && (_nextWrite is not null || (DropSettled(_durable, out Guid[] dropping) is not null && dropping.Length > 0)))
        {
            return WriteQuietlyAsync();
        }

        return Task.CompletedTask;
    }

    /// <summary>A write-back found prepared at activation: its coordinator's durable record decides.</summary>
    private async Task ResolveAsync(WriteBack<T> recovered)
    {
        try
        {
            Decision decision = await GrainFactory.GetGrain<ICownPeer>(recovered.Coordinator).Decide(recovered.Behaviour).ConfigureAwait(true);
            Log.Resolving(_logger, this.GetPrimaryKeyString(), recovered.Behaviour, decision);
            if (decision is Decision.Committed or Decision.Aborted)
            {
                Decided(recovered, decision == Decision.Committed);
                BocClusterMetrics.Recovered(decision == Decision.Committed ? "applied" : "dropped");
            }
        }
#pragma warning disable CA1031 // The coordinator may be unreachable for now, or this activation poisoned: the next tick asks again.
        catch (Exception failure)
#pragma warning restore CA1031
        {
            Log.RecoveryFailed(_logger, failure, this.GetPrimaryKeyString(), recovered.Behaviour);
        }
        finally
        {
            _resolving = false;
        }
    }

    /// <summary>
    /// Tells every participant of a commit record that has not said it applied to apply (idempotent; Applied comes only
    /// after a durable write or a fence); once all have, the record waits only for its spawner. Run by the tick for a
    /// record older than a lease: a participant that missed its decision (its vote's answer was lost, or its apply write
    /// failed) learns it here.
    /// </summary>
    private async Task SettleAsync(CommitRecord record)
    {
        try
        {
            HashSet<GrainId> done = _appliedBy.GetValueOrDefault(record.Behaviour) ?? [];
            GrainId[] missing = Array.FindAll(record.Participants, p => !done.Contains(p));
            ReleaseReply[] replies = await Task.WhenAll(missing.Select(p => GrainFactory.GetGrain<ICownPeer>(p).Release(record.Behaviour, apply: true))).ConfigureAwait(true);
            for (int i = 0; i < missing.Length; i++)
            {
                if (replies[i] == ReleaseReply.Applied)
                {
                    NoteApplied(record, missing[i]);
                }
            }

            BocClusterMetrics.Recovered("settled");
        }
#pragma warning disable CA1031 // A participant may be unreachable for now: the next tick tries again.
        catch (Exception failure)
#pragma warning restore CA1031
        {
            Log.RecoveryFailed(_logger, failure, this.GetPrimaryKeyString(), record.Behaviour);
        }
        finally
        {
            _settling.Remove(record.Behaviour);
        }
    }

    public Task<CownInspection> Inspect()
    {
        ThrowIfPoisoned();
        long now = Environment.TickCount64;
        WriteBack<T>? pending = _chain.Count > 0 ? _chain[0] : _applying.Count > 0 ? _applying[0] : null;
        return Task.FromResult(new CownInspection
        {
            Key = this.GetPrimaryKeyString(),
            Silo = this.GetGrainId().ToString() + "@" + RuntimeIdentity,
            Epoch = _durable.Epoch,
            PreparedBy = pending?.Behaviour,
            PreparedCoordinator = pending?.Coordinator.ToString(),
            PendingWriteBacks = _chain.Count + _applying.Count,
            CommitRecords = _durable.Commits.Length,
            Requests = [.. _queue.Requests.Select(r => new CownRequestInspection
            {
                Behaviour = r.Id,
                Write = r.Write,
                Scheduled = r.Scheduled,
                Granted = _queue.IsGranted(r, Blocked),
                LeaseRemaining = TimeSpan.FromMilliseconds(r.LeaseUntil - now),
            })],
        });
    }
}
