namespace Boc;

/// <summary>
/// The members of a scope that a cancellation may have to withdraw ("Registration" in Scopes/BocScope.Members.cs): an
/// (arbiter, life) entry per member that had not started when its spawner registered it. A mutable struct kept inside
/// its <see cref="BocScope"/> (never copied); its array is created by the first registration, so a scope whose members
/// all start at once (or run inline) allocates nothing for it.
/// </summary>
/// <remarks>
/// One short spin lock orders an append, a compaction and a walk; it is never held while waiting for anything else.
/// Entries whose life is over (the member started, finished, even went on to another life) are dropped when the array
/// is full, before it grows, so it holds about as many entries as there are members not yet started.
/// </remarks>
internal struct MemberRegistry
{
    // The first size; it doubles when compaction cannot free half of it.
    private const int FirstSize = 8;

    private Entry[]? _entries;
    private int _count;
    private int _busy;

    /// <summary>Adds a member's entry.</summary>
    public void Add(Withdrawal arbiter, long life)
    {
        Lock();
        try
        {
            Entry[] entries = _entries is { } existing && _count < existing.Length ? existing : Compact();
            entries[_count++] = new Entry(arbiter, life);
        }
        finally
        {
            Unlock();
        }
    }

    /// <summary>
    /// Takes every entry of a member that has not started, and empties the registry (the cancellation's walk: from now
    /// on a late registration withdraws its member itself).
    /// </summary>
    public List<Entry>? TakePending()
    {
        List<Entry>? pending = null;
        Lock();
        try
        {
            for (int i = 0; i < _count; i++)
            {
                if (_entries![i].Arbiter.IsPending(_entries[i].Life))
                {
                    (pending ??= []).Add(_entries[i]);
                }
            }

            if (_entries is not null)
            {
                Array.Clear(_entries, 0, _count);
            }

            _count = 0;
        }
        finally
        {
            Unlock();
        }

        return pending;
    }

    /// <summary>Whether a member that has not started waits for a cown <paramref name="holder"/> holds (a self-wait).</summary>
    public bool AnyPendingBehind(Behaviour holder)
    {
        Lock();
        try
        {
            for (int i = 0; i < _count; i++)
            {
                // Pending before and after the look: the member was in that life, not started, throughout, so the slots
                // read were its own (a life changes them only once it is over).
                Entry entry = _entries![i];
                if (entry.Arbiter.IsPending(entry.Life) && entry.Arbiter.Behaviour.WaitsFor(holder) && entry.Arbiter.IsPending(entry.Life))
                {
                    return true;
                }
            }

            return false;
        }
        finally
        {
            Unlock();
        }
    }

    /// <summary>
    /// Makes room in a full (or missing) array: keeps the entries of members that have not started, and doubles the
    /// array if they fill more than half of it. Under the lock.
    /// </summary>
    private Entry[] Compact()
    {
        if (_entries is not { } entries)
        {
            return _entries = new Entry[FirstSize];
        }

        int kept = 0;
        for (int i = 0; i < _count; i++)
        {
            if (entries[i].Arbiter.IsPending(entries[i].Life))
            {
                entries[kept++] = entries[i];
            }
        }

        Array.Clear(entries, kept, _count - kept);
        _count = kept;
        if (kept > entries.Length / 2)
        {
            Array.Resize(ref entries, entries.Length * 2);
            _entries = entries;
        }

        return entries;
    }

    private void Lock()
    {
        if (Atomic.CompareExchange(ref _busy, 1, 0) != 0)
        {
            LockContended();
        }
    }

    private void LockContended()
    {
        var spin = default(SpinWait);
        while (Atomic.Read(ref _busy) != 0 || Atomic.CompareExchange(ref _busy, 1, 0) != 0)
        {
            Atomic.SpinOnce(ref spin);
        }
    }

    private void Unlock() => Atomic.Write(ref _busy, 0);

    /// <summary>A registered member: its arbiter and the life the registration means.</summary>
    internal readonly record struct Entry(Withdrawal Arbiter, long Life);
}
