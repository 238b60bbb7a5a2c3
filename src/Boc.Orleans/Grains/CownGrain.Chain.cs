namespace Boc.Orleans.Grains;

// The chain of write-backs (WriteBack.cs) and the dependencies of grants made on it. A request leaves the queue when its
// behaviour hands its state over; the next request is granted on the chain's latest state, with its read position
// (Request.ReadSeq). Decisions come in chain order: the front decides first, because a participant votes and a
// coordinator commits only once everything before it here has committed (Advance). An abort drops the write-back and
// everything after it (Drop): those were computed from its state, so they vote no (or, as the coordinator, abort), and
// every grant made on their states is revoked, so no behaviour that saw an aborted state commits.
internal sealed partial class CownGrain<T>
{
    /// <summary>The undecided write-backs, in chain order.</summary>
    private readonly List<WriteBack<T>> _chain = [];

    /// <summary>Participant write-backs known committed whose apply is not in storage yet, in chain order.</summary>
    private readonly List<WriteBack<T>> _applying = [];

    /// <summary>Releases waiting for the write-backs their grant depended on to be decided.</summary>
    private readonly List<(long ReadSeq, TaskCompletionSource<bool> Valid)> _readWaits = [];

    /// <summary>The last chain position given (positions only grow within an activation).</summary>
    private long _seq;

    /// <summary>Recovered write-backs still in the chain: while any is, nothing is granted.</summary>
    private int _recovering;

    private bool Blocked => _recovering > 0;

    /// <summary>The latest state: the chain's last write-back's, else the last one being applied, else the stored one.</summary>
    private T? LatestValue => _chain.Count > 0 ? _chain[^1].Value : _applying.Count > 0 ? _applying[^1].Value : _durable.Value;

    private WriteBack<T>? FindWriteBack(Guid behaviour)
    {
        foreach (WriteBack<T> writeBack in _chain)
        {
            if (writeBack.Behaviour == behaviour)
            {
                return writeBack;
            }
        }

        return null;
    }

    /// <summary>True once every write-back up to <paramref name="readSeq"/> is decided (committed: an abort revokes the grant first).</summary>
    private bool Settled(long readSeq) => _chain.Count == 0 || _chain[0].Seq > readSeq;

    /// <summary>
    /// Moves the chain on from its front, after any change: a participant's write-backs that are in storage vote once
    /// everything before them here is decided, or is undecided only at the same coordinator (which commits in this
    /// chain's order too: two behaviours that share two cowns are in the same order on both, so it decides them in
    /// order, and drops the later one if the earlier aborts); the coordinator's front write-backs that have every vote
    /// are committed by the next write (a run of them at once); releases waiting for their dependencies are answered.
    /// </summary>
    private void Advance()
    {
        if (_poisoned is not null)
        {
            return;
        }

        VoteReady();
        while (_chain.Count > 0)
        {
            WriteBack<T> front = _chain[0];
            if (!front.Own)
            {
                break;
            }

            if (front.Committing || front.Waiting.Count > 0)
            {
                break;
            }

            if (front.IdempotencyKey is { } key && Array.Exists(_durable.Commits, c => c.IdempotencyKey == key))
            {
                // A behaviour with the same key committed here first (it was ahead in the chain): this one is not run.
                Drop(front, Decision.Duplicate);
                continue;
            }

            // Ready: the next write commits it, with every ready write-back after it (Compose).
            _ = WriteQuietlyAsync();
            break;
        }

        for (int i = _readWaits.Count - 1; i >= 0; i--)
        {
            if (Settled(_readWaits[i].ReadSeq))
            {
                _readWaits[i].Valid.TrySetResult(true);
                _readWaits.RemoveAt(i);
            }
        }
    }

    /// <summary>The participant write-backs that may vote now (see <see cref="Advance"/>) vote.</summary>
    private void VoteReady()
    {
        if (_chain.Count == 0 || _chain[0].Own || _chain[0].Recovered)
        {
            return;
        }

        GrainId coordinator = _chain[0].Coordinator;
        foreach (WriteBack<T> writeBack in _chain)
        {
            if (writeBack.Own || writeBack.Recovered || writeBack.Coordinator != coordinator || !writeBack.Durable)
            {
                return;
            }

            if (!writeBack.Voted)
            {
                writeBack.Voted = true;
                _ = VoteAsync(writeBack);
            }
        }
    }

    /// <summary>
    /// Drops <paramref name="writeBack"/> and every write-back after it (its decision is <paramref name="decision"/>, theirs
    /// Aborted), revokes the grants made on their states, and fails the releases that depended on them.
    /// </summary>
    private void Drop(WriteBack<T> writeBack, Decision decision)
    {
        long seq = writeBack.Seq;
        bool stored = false;
        for (int i = _chain.Count - 1; i >= 0 && _chain[i].Seq >= seq; i--)
        {
            WriteBack<T> dropped = _chain[i];
            _chain.RemoveAt(i);
            stored |= dropped.Durable;
            if (dropped.Recovered)
            {
                _recovering--;
            }

            dropped.Outcome.TrySetResult(dropped == writeBack ? decision : Decision.Aborted);
            if (!dropped.Own && !dropped.Voted && !dropped.Recovered)
            {
                // Its coordinator waits for this vote: a no lets it abort at once.
                SendVote(dropped.Behaviour, dropped.Coordinator, yes: false);
            }
        }

        foreach (Request revoked in _queue.Requests.Where(r => r.GrantSent && r.ReadSeq >= seq).ToList())
        {
            Remove(revoked);
        }

        for (int i = _readWaits.Count - 1; i >= 0; i--)
        {
            if (_readWaits[i].ReadSeq >= seq)
            {
                _readWaits[i].Valid.TrySetResult(false);
                _readWaits.RemoveAt(i);
            }
        }

        if (stored)
        {
            // Only on a failure's path: storage stops holding the dropped write-backs as prepared.
            _ = WriteQuietlyAsync();
        }

        _queue.WakeReady(Blocked);
        Advance();
    }

    /// <summary>
    /// A participant's write-back is decided: committed, it leaves the chain to be applied (and so does every write-back
    /// before it, which a commit of it implies); aborted, it is dropped with everything after it.
    /// </summary>
    private void Decided(WriteBack<T> writeBack, bool committed)
    {
        int index = _chain.IndexOf(writeBack);
        if (index < 0)
        {
            return;
        }

        if (!committed)
        {
            Drop(writeBack, Decision.Aborted);
            return;
        }

        // Everything before it here committed first (it voted only once they had, or once they waited only for the same
        // coordinator, which decides in chain order; for recovered ones the same held when they voted), so the chain's
        // prefix up to it is applied in order.
        for (int i = 0; i <= index; i++)
        {
            WriteBack<T> done = _chain[0];
            _chain.RemoveAt(0);
            if (done.Recovered)
            {
                _recovering--;
            }

            done.Outcome.TrySetResult(Decision.Committed);
            _applying.Add(done);
            _ = ApplyAsync(done);
        }

        _queue.WakeReady(Blocked);
        Advance();
    }

    /// <summary>
    /// Releases a held request unchanged and answers whether its grant counts: every write-back it depended on committed.
    /// A reader's validation, and the check before a body's exception may surface.
    /// </summary>
    private async Task<bool> ReleaseValidatedAsync(Guid behaviour)
    {
        Request? request = _queue.Find(behaviour);
        if (request is null || !request.GrantSent || !IsGranted(request))
        {
            if (request is not null)
            {
                Remove(request);
            }

            return false;
        }

        long readSeq = request.ReadSeq;
        Remove(request);
        if (Settled(readSeq))
        {
            return true;
        }

        var valid = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
        _readWaits.Add((readSeq, valid));
        return await valid.Task.ConfigureAwait(true);
    }

    /// <summary>A participant votes yes and learns the decision (its coordinator answers it), asking again until it has one.</summary>
    private async Task VoteAsync(WriteBack<T> writeBack)
    {
        ICownPeer coordinator = GrainFactory.GetGrain<ICownPeer>(writeBack.Coordinator);
        int delay = 10;
        while (_poisoned is null && _chain.Contains(writeBack))
        {
            try
            {
                Decision decision = await coordinator.Vote(writeBack.Behaviour, Self, yes: true).ConfigureAwait(true);
                if (decision is Decision.Committed or Decision.Aborted)
                {
                    Decided(writeBack, decision == Decision.Committed);
                    return;
                }

                delay = 10;
            }
#pragma warning disable CA1031 // The coordinator may be unreachable for now: ask again; its next activation decides.
            catch (Exception failure)
#pragma warning restore CA1031
            {
                Log.RecoveryFailed(_logger, failure, this.GetPrimaryKeyString(), writeBack.Behaviour);
                await Task.Delay(delay).ConfigureAwait(true);
                delay = (int)Math.Min(2L * delay, LeaseMilliseconds);
            }
        }
    }

    /// <summary>A vote nobody waits for the answer to: a no, or a reader's yes (best effort; the coordinator's deadline covers a lost one).</summary>
    private void SendVote(Guid behaviour, GrainId coordinator, bool yes) => _ = SendVoteAsync(behaviour, coordinator, yes);

    private async Task SendVoteAsync(Guid behaviour, GrainId coordinator, bool yes)
    {
        try
        {
            await GrainFactory.GetGrain<ICownPeer>(coordinator).Vote(behaviour, Self, yes).ConfigureAwait(true);
        }
#pragma warning disable CA1031 // See SendVote.
        catch (Exception failure)
#pragma warning restore CA1031
        {
            Log.RecoveryFailed(_logger, failure, this.GetPrimaryKeyString(), behaviour);
        }
    }

    /// <summary>
    /// Waits for a committed participant write-back's apply to reach storage, then tells its coordinator, whose record may
    /// then go. The apply rides on the cown's next write, whatever starts it (a busy cown writes often); an idle cown's
    /// tick writes it (Tick). Nothing waits for it meanwhile: the state is committed, and the record answers for it.
    /// </summary>
    private async Task ApplyAsync(WriteBack<T> writeBack)
    {
        try
        {
            await NextWriteAsync().ConfigureAwait(true);
        }
#pragma warning disable CA1031 // The write poisoned the activation; the next one finds the write-back prepared and asks again.
        catch (Exception)
#pragma warning restore CA1031
        {
            return;
        }

        _applied[writeBack.Behaviour] = Environment.TickCount64;
        GrainFactory.GetGrain<ICownPeer>(writeBack.Coordinator).Applied(writeBack.Behaviour, Self).Ignore();
    }
}
