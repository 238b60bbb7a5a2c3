namespace Boc.Orleans.Grains;

// =====================================================================================================================
// A cown's FIFO of requests, in memory (docs/distributed.md, "The protocol"). Not thread-safe: it lives on one grain
// activation, whose calls and timer callbacks run one at a time between awaits.
//
// Two properties decide every answer, and both hold for a prefix of the queue:
//   * acknowledged: every request ahead is Scheduled (the in-process "link only behind a Scheduled predecessor" rule of
//     Behaviour.Enqueue.cs): true up to and including the first request that is not Scheduled;
//   * granted: the head if it writes, else the leading run of readers; and nothing while the cown is blocked (write-backs
//     found in storage at activation are being resolved). Write-backs of behaviours that left the queue do not block: a
//     grant carries their state and depends on them (CownGrain.Chain.cs).
// A change wakes only the waiters whose property may have turned true: the prefixes above, plus a removed request's
// own waiter. A hot cown's release is O(woken) instead of waking every spawner polling it.
// =====================================================================================================================
internal sealed class RequestQueue
{
    private readonly List<Request> _requests = [];

    public int Count => _requests.Count;

    public IReadOnlyList<Request> Requests => _requests;

    public Request? Find(Guid behaviour)
    {
        foreach (Request request in _requests)
        {
            if (request.Id == behaviour)
            {
                return request;
            }
        }

        return null;
    }

    public Request Add(Guid behaviour, bool write, string? idempotencyKey)
    {
        var request = new Request(behaviour, write) { IdempotencyKey = idempotencyKey };
        _requests.Add(request);
        BocClusterMetrics.Queued.Add(1);
        return request;
    }

    public void Remove(Request request, bool blocked)
    {
        if (_requests.Remove(request))
        {
            BocClusterMetrics.Queued.Add(-1);
            request.Removed = true;
            request.Wake();
            WakeReady(blocked);
        }
    }

    /// <summary>True once every request ahead of <paramref name="request"/> is Scheduled.</summary>
    public bool IsAcknowledged(Request request)
    {
        foreach (Request ahead in _requests)
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

        return false;
    }

    /// <summary>True if <paramref name="request"/> holds the cown (nothing does while it is <paramref name="blocked"/>).</summary>
    public bool IsGranted(Request request, bool blocked)
    {
        if (blocked)
        {
            return false;
        }

        if (request.Write)
        {
            return _requests.Count > 0 && _requests[0] == request;
        }

        foreach (Request ahead in _requests)
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

    /// <summary>
    /// Wakes the waiters of the requests that are now acknowledged or granted: the two prefixes of the queue. Called
    /// after every change that can extend them (a Scheduled mark, a removal, the cown unblocked).
    /// </summary>
    public void WakeReady(bool blocked)
    {
        bool acknowledged = true;
        bool granted = !blocked;
        for (int i = 0; i < _requests.Count && (acknowledged || granted); i++)
        {
            Request request = _requests[i];
            bool grantedHere = granted && (!request.Write || i == 0);
            if (acknowledged || grantedHere)
            {
                request.Wake();
            }

            acknowledged &= request.Scheduled;
            granted &= !request.Write;
        }
    }

    /// <summary>Wakes every waiter: the activation is giving up (a storage write failed) and answers nothing more.</summary>
    public void WakeAll()
    {
        foreach (Request request in _requests)
        {
            request.Wake();
        }
    }

    /// <summary>Forgets every request: the activation is going away, and its spawners will find them lost.</summary>
    public void Clear()
    {
        BocClusterMetrics.Queued.Add(-_requests.Count);
        foreach (Request request in _requests)
        {
            request.Removed = true;
            request.Wake();
        }

        _requests.Clear();
    }

    /// <summary>Removes and returns the requests whose lease ended before <paramref name="now"/>.</summary>
    public List<Request>? EvictExpired(long now)
    {
        List<Request>? evicted = null;
        for (int i = _requests.Count - 1; i >= 0; i--)
        {
            Request request = _requests[i];
            if (request.LeaseUntil < now)
            {
                _requests.RemoveAt(i);
                BocClusterMetrics.Queued.Add(-1);
                request.Removed = true;
                request.Wake();
                (evicted ??= []).Add(request);
            }
        }

        return evicted;
    }
}

/// <summary>One behaviour's request on a cown.</summary>
internal sealed class Request(Guid id, bool write)
{
    private TaskCompletionSource? _changed;

    public Guid Id { get; } = id;

    public bool Write { get; } = write;

    /// <summary>The spawner has every acknowledgement: requests behind may be acknowledged.</summary>
    public bool Scheduled { get; set; }

    /// <summary>The spawner has been sent the grant: its body may be running on the state it carried.</summary>
    public bool GrantSent { get; set; }

    /// <summary>The chain position the grant carried: the write-backs up to it must all commit for the grant to count.</summary>
    public long ReadSeq { get; set; }

    /// <summary>No longer in the queue: released, evicted, or the activation gave up.</summary>
    public bool Removed { get; set; }

    public long LeaseUntil { get; set; }

    /// <summary>The behaviour's idempotency key, told to its coordinator only.</summary>
    public string? IdempotencyKey { get; init; }

    /// <summary>A task that completes at the next change that may concern this request.</summary>
    public Task Changed => (_changed ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously)).Task;

    public void Wake()
    {
        TaskCompletionSource? changed = _changed;
        _changed = null;
        changed?.TrySetResult();
    }
}
