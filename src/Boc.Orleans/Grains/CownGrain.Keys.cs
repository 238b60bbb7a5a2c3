namespace Boc.Orleans.Grains;

// Idempotency keys at their coordinator (docs/distributed.md, "Idempotency keys"). A lookup answers from three facts:
// a durable commit record with the key (Committed); a live call with the key, one of whose attempts is queued here or
// whose spawner was heard from within a lease, between attempts too, or whose write-back waits here (Pending);
// otherwise NotCommitted, but only after a write that fences the key: from then on nothing with the key may commit here
// until the retention has passed (the coordinator refuses its enqueue and its commit), so the answer stays true whatever
// a call still running does. The fence goes into the record with the write (Compose reads _fencing).
internal sealed partial class CownGrain<T>
{
    /// <summary>Keys of live calls, and until when (Environment.TickCount64) a lookup answers Pending without a request.</summary>
    private readonly Dictionary<string, long> _keyHolds = new(StringComparer.Ordinal);

    /// <summary>Keys whose fence is being written: refused already, as the durable fences are.</summary>
    private readonly HashSet<string> _fencing = new(StringComparer.Ordinal);

    public async Task<ClusterOutcome> LookUp(string idempotencyKey)
    {
        ThrowIfPoisoned();
        if (Array.Exists(_durable.Commits, c => c.IdempotencyKey == idempotencyKey))
        {
            return ClusterOutcome.Committed;
        }

        if (Array.IndexOf(_durable.Fences, idempotencyKey) >= 0)
        {
            return ClusterOutcome.NotCommitted;
        }

        if (!_fencing.Contains(idempotencyKey) && IsHeld(idempotencyKey))
        {
            return ClusterOutcome.Pending;
        }

        // The fence, and fence (2) of the header: after this write no earlier activation's commit with the key can land,
        // and none can be made here, because every enqueue and commit with the key is refused from this moment.
        _fencing.Add(idempotencyKey);
        await WriteAsync().ConfigureAwait(true);
        _fencing.Remove(idempotencyKey);
        return Array.Exists(_durable.Commits, c => c.IdempotencyKey == idempotencyKey) ? ClusterOutcome.Committed : ClusterOutcome.NotCommitted;
    }

    public Task<CownReply> KeepKey(string idempotencyKey)
    {
        ThrowIfPoisoned();
        if (IsFenced(idempotencyKey))
        {
            return Task.FromResult(CownReply.Fenced);
        }

        HoldKey(idempotencyKey);
        return Task.FromResult(CownReply.Ready);
    }

    private bool IsFenced(string key) => _fencing.Contains(key) || Array.IndexOf(_durable.Fences, key) >= 0;

    private void HoldKey(string key) => _keyHolds[key] = Environment.TickCount64 + LeaseMilliseconds;

    private bool IsHeld(string key) =>
        (_keyHolds.TryGetValue(key, out long until) && until > Environment.TickCount64)
        || _queue.Requests.Any(r => r.IdempotencyKey == key)
        || _chain.Exists(w => w.Own && w.IdempotencyKey == key);

    private void ForgetKeyHolds(long now)
    {
        foreach (KeyValuePair<string, long> hold in _keyHolds.Where(h => h.Value < now).ToList())
        {
            _keyHolds.Remove(hold.Key);
        }
    }
}
