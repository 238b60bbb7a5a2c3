namespace Boc.Orleans.Grains;

// The durable rule and the poison (CownGrain's header): one place writes the record, and one place gives up.
internal sealed partial class CownGrain<T>
{
    /// <summary>Commit records whose settlement is known (spawner forgot, or recovery settled them): dropped at the next write.</summary>
    private readonly HashSet<Guid> _settled = [];

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
            Guid[] dropping = [.. _settled];
            CownRecord<T> next = change(DropSettled(_durable, dropping));
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
            _lastWrite = Environment.TickCount64;
            _settled.ExceptWith(dropping);
        }
        finally
        {
            _writes.Release();
        }
    }

    private CownRecord<T> DropSettled(CownRecord<T> record, Guid[] dropping)
    {
        DateTime expired = DateTime.UtcNow - _options.CommitRecordRetention;
        bool Drop(CommitRecord c) =>

            // A record with an idempotency key stays for the retention, so its outcome can still be looked up.
            (Array.IndexOf(dropping, c.Behaviour) >= 0 && (c.IdempotencyKey is null || c.CommittedUtc < expired))

            // A record without participants only waits for its spawner, which stops asking long before this.
            || (c.Participants.Length == 0 && c.CommittedUtc < expired);

        return Array.Exists(record.Commits, Drop) ? record with { Commits = Array.FindAll(record.Commits, c => !Drop(c)) } : record;
    }

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
