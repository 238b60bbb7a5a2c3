namespace Boc.Orleans.Grains;

// The durable rule and the poison (CownGrain's header): one place writes the record, and one place gives up.
internal sealed partial class CownGrain<T>
{
    /// <summary>Commit records whose spawner said it has its answer (Forget).</summary>
    private readonly HashSet<Guid> _forgotten = [];

    /// <summary>Commit records whose every participant answered Applied (durably) to this coordinator.</summary>
    private readonly HashSet<Guid> _participantsApplied = [];

    /// <summary>
    /// The behaviour whose prepared value here is known committed (its coordinator's Release arrived) but not yet
    /// applied in storage. Its value is durable (prepared) and so is the decision (the coordinator's record), so it is
    /// the state grants carry, and every write folds it into the value; _durable catches up when the apply lands.
    /// </summary>
    private Guid _decided;

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

    /// <summary>The behaviour whose prepare write is in flight: it blocks grants as a durable prepared value does.</summary>
    private Guid _preparing;

    /// <summary>
    /// Writes the record <paramref name="change"/> makes of the durable one (with settled records dropped), then makes
    /// it the durable record. On failure the activation is poisoned and the exception rethrown: storage may hold
    /// either record now, so nothing may be answered from either.
    /// </summary>
    private async Task WriteAsync(Func<CownRecord<T>, CownRecord<T>> change)
    {
        await _writes.WaitAsync().ConfigureAwait(true);
        try
        {
            ThrowIfPoisoned();
            CownRecord<T> next = change(FoldDecided(DropSettled(_durable, out Guid[] dropping)));
            _record.State = next;
            try
            {
                await _record.WriteStateAsync().ConfigureAwait(true);
            }
            catch (Exception failure)
            {
                Poison(failure);
                throw;
            }

            _durable = next;
            Learn(next);
            _lastWrite = Environment.TickCount64;
            _forgotten.ExceptWith(dropping);
            _participantsApplied.ExceptWith(dropping);
            if (_durable.Prepared?.Behaviour != _decided)
            {
                _decided = Guid.Empty;
            }
        }
        finally
        {
            _writes.Release();
        }
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
            (c.Participants.Length == 0 || _participantsApplied.Contains(c.Behaviour))
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

    /// <summary>Notes when this activation learned of the records and fences of <paramref name="record"/> it did not know, and forgets the ones it no longer holds.</summary>
    private void Learn(CownRecord<T> record)
    {
        long now = _clock.Milliseconds;
        foreach (CommitRecord commit in record.Commits)
        {
            _recordLearned.TryAdd(commit.Behaviour, now);
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

    /// <summary>The record with a prepared value known committed folded into its value (see <see cref="_decided"/>).</summary>
    private CownRecord<T> FoldDecided(CownRecord<T> record) =>
        _decided != Guid.Empty && record.Prepared is { } prepared && prepared.Behaviour == _decided
            ? record with { Value = prepared.Value, Prepared = null }
            : record;

    /// <summary>The state a grant carries: the committed value, or a prepared value whose commit is known.</summary>
    private T? EffectiveValue => FoldDecided(_durable).Value;

    private void Poison(Exception failure)
    {
        if (_poisoned is not null)
        {
            return;
        }

        _poisoned = failure;
        Log.Poisoned(_logger, failure, this.GetPrimaryKeyString(), _queue.Count);
        _queue.WakeAll();
        DeactivateOnIdle();
    }

    private void ThrowIfPoisoned()
    {
        if (_poisoned is not null)
        {
            // The failure's text, not the failure: its type may not be serializable to the caller.
            throw new CownUnavailableException(
                $"The cown {this.GetPrimaryKeyString()} is reloading after a storage write failed ({_poisoned.GetType().Name}: {_poisoned.Message}).");
        }
    }
}
