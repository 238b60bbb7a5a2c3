namespace Boc.Orleans.Grains;

// What a cown does by itself, every quarter lease (docs/distributed.md, "Failures"): evict requests whose spawner went
// quiet, resolve a prepared value whose spawner went quiet through its coordinator, settle commit records whose
// participants have not all applied, and write settled records away when nothing else writes.
internal sealed partial class CownGrain<T>
{
    private readonly HashSet<Guid> _settling = [];
    private long _preparedDeadline;
    private bool _resolving;

    private Task Tick(CancellationToken cancellationToken)
    {
        if (_poisoned is not null)
        {
            return Task.CompletedTask;
        }

        long now = Environment.TickCount64;
        if (_queue.EvictExpired(now, keep: BlockedBy) is { } evicted)
        {
            BocClusterMetrics.LeaseExpired(evicted.Count);
            Log.Evicted(_logger, this.GetPrimaryKeyString(), evicted.Count);
            _queue.WakeReady(BlockedBy);
        }

        foreach (KeyValuePair<Guid, long> applied in _applied.Where(a => now - a.Value > 4 * LeaseMilliseconds).ToList())
        {
            _applied.Remove(applied.Key);
        }

        ForgetKeyHolds(now);

        // Each recovery runs beside the tick, so a slow peer never holds back evictions.
        if (_durable.Prepared is { } prepared && prepared.Behaviour != _decided && !_resolving
            && (_queue.Find(prepared.Behaviour)?.LeaseUntil ?? _preparedDeadline) < now)
        {
            _resolving = true;
            _ = ResolvePreparedAsync(prepared);
        }

        long learnedBefore = _clock.Milliseconds - LeaseMilliseconds;
        foreach (CommitRecord record in _durable.Commits)
        {
            if (record.Participants.Length > 0 && _recordLearned.GetValueOrDefault(record.Behaviour) < learnedBefore
                && !_participantsApplied.Contains(record.Behaviour) && _settling.Add(record.Behaviour))
            {
                _ = SettleAsync(record, recovery: true);
            }
        }

        // Settled records leave storage with the next write; a cown nothing writes to writes them away itself.
        if (now - _lastWrite > LeaseMilliseconds / 4 && _writes.CurrentCount > 0 && DropSettled(_durable, out Guid[] dropping) is not null && dropping.Length > 0)
        {
            return FlushAsync();
        }

        return Task.CompletedTask;
    }

    /// <summary>The spawner went quiet after preparing this cown: the coordinator's durable record decides.</summary>
    private async Task ResolvePreparedAsync(PreparedWrite<T> prepared)
    {
        try
        {
            Decision decision = await GrainFactory.GetGrain<ICownPeer>(prepared.Coordinator).Decide(prepared.Behaviour).ConfigureAwait(true);
            Log.Resolving(_logger, this.GetPrimaryKeyString(), prepared.Behaviour, decision);
            if (decision is Decision.Committed or Decision.Aborted)
            {
                await Release(prepared.Behaviour, decision == Decision.Committed).ConfigureAwait(true);
                BocClusterMetrics.Recovered(decision == Decision.Committed ? "applied" : "dropped");
            }
        }
#pragma warning disable CA1031 // The coordinator may be unreachable for now, or this activation poisoned: the next tick asks again.
        catch (Exception failure)
#pragma warning restore CA1031
        {
            Log.RecoveryFailed(_logger, failure, this.GetPrimaryKeyString(), prepared.Behaviour);
        }
        finally
        {
            _resolving = false;
        }
    }

    /// <summary>
    /// Tells every participant of a commit record to apply (idempotent; Applied comes only after a durable write or a
    /// fence); once all have, the record waits only for its spawner. Run at once after the commit, and again by the
    /// tick for a record older than a lease whose participants have not all answered.
    /// </summary>
    private async Task SettleAsync(CommitRecord record, bool recovery)
    {
        try
        {
            ReleaseReply[] replies = await Task.WhenAll(record.Participants.Select(p => GrainFactory.GetGrain<ICownPeer>(p).Release(record.Behaviour, apply: true))).ConfigureAwait(true);
            if (Array.TrueForAll(replies, r => r == ReleaseReply.Applied))
            {
                _participantsApplied.Add(record.Behaviour);
                if (recovery)
                {
                    BocClusterMetrics.Recovered("settled");
                }
            }
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

    private async Task FlushAsync()
    {
        try
        {
            await WriteAsync(r => r).ConfigureAwait(true);
        }
#pragma warning disable CA1031 // The write poisoned the activation and logged why; the next activation reads storage.
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

    public Task<CownInspection> Inspect()
    {
        ThrowIfPoisoned();
        long now = Environment.TickCount64;
        Guid blockedBy = BlockedBy;
        return Task.FromResult(new CownInspection
        {
            Key = this.GetPrimaryKeyString(),
            Silo = this.GetGrainId().ToString() + "@" + RuntimeIdentity,
            Epoch = _durable.Epoch,
            PreparedBy = _durable.Prepared?.Behaviour,
            PreparedCoordinator = _durable.Prepared?.Coordinator.ToString(),
            CommitRecords = _durable.Commits.Length,
            Requests = [.. _queue.Requests.Select(r => new CownRequestInspection
            {
                Behaviour = r.Id,
                Write = r.Write,
                Scheduled = r.Scheduled,
                Granted = _queue.IsGranted(r, blockedBy),
                LeaseRemaining = TimeSpan.FromMilliseconds(r.LeaseUntil - now),
            })],
        });
    }
}
