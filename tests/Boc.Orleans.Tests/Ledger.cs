using Boc.Orleans.Grains;

namespace Boc.Orleans.Tests;

/// <summary>
/// Transfers between ledger accounts and the oracle that reads the ground truth from storage: a transfer is on both of
/// its accounts or on neither, at most once each, and every balance is its opening plus the transfers it holds.
/// </summary>
internal sealed class Ledger(FaultClusterFixture fixture, string prefix, long opening)
{
    private readonly Dictionary<int, (string From, string To, long Amount)> _transfers = [];

    public string Key(string name) => prefix + name;

    public async Task OpenAsync(params string[] names)
    {
        IBocCluster boc = fixture.Boc;
        await Task.WhenAll(names.Select(n => boc.WhenAsync(boc.Cown<LedgerAccount>(Key(n)), a => { a.Balance = opening; })));
    }

    public Task TransferAsync(IBocCluster spawner, int id, string from, string to, long amount, Func<Task>? inBody = null)
    {
        _transfers[id] = (Key(from), Key(to), amount);
        return spawner.WhenAsync(spawner.Cown<LedgerAccount>(Key(from)), spawner.Cown<LedgerAccount>(Key(to)), async (f, t) =>
        {
            if (inBody is not null)
            {
                await inBody();
            }

            f.Balance -= amount;
            t.Balance += amount;
            f.Transfers.Add(id);
            t.Transfers.Add(id);
        });
    }

    /// <summary>Whether storage holds transfer <paramref name="id"/> (on both accounts), after asserting all-or-nothing.</summary>
    public bool Committed(int id, string seed)
    {
        (string from, string to, _) = _transfers[id];
        int onFrom = Stored(from).Transfers.Count(t => t == id);
        int onTo = Stored(to).Transfers.Count(t => t == id);
        Assert.True(onFrom <= 1 && onTo <= 1, $"{seed}: transfer {id} applied {onFrom} times on {from}, {onTo} on {to}");
        Assert.True(onFrom == onTo, $"{seed}: transfer {id} is on {(onFrom == 1 ? from : to)} only: half a transfer committed");
        return onFrom == 1;
    }

    /// <summary>Every balance in storage equals its opening plus the transfers storage holds for it; no prepared value is left.</summary>
    public void AssertConsistent(string seed, params string[] names)
    {
        foreach (string name in names)
        {
            string key = Key(name);
            CownRecord<LedgerAccount> record = fixture.Stored(key) ?? throw new InvalidOperationException($"{seed}: {key} was never stored");
            Assert.True(record.Prepared is null, $"{seed}: {key} still holds the prepared value of {record.Prepared?.Behaviour}");
            long expected = opening + record.Value!.Transfers.Sum(id => _transfers[id].To == key ? _transfers[id].Amount : -_transfers[id].Amount);
            Assert.True(record.Value.Balance == expected, $"{seed}: {key} holds {record.Value.Balance}, its transfers say {expected}");
        }

        foreach (int id in _transfers.Keys)
        {
            Committed(id, seed);
        }
    }

    /// <summary>
    /// Progress after a fault: a writer is granted on every account within <paramref name="bound"/> (the documented
    /// bound, a lease after the spawner's last message, with room for failure detection), and storage then holds no
    /// prepared value: every write-back was applied or dropped.
    /// </summary>
    public async Task AssertGrantedAgainAsync(string seed, TimeSpan bound, params string[] names)
    {
        IBocCluster boc = fixture.Boc;
        Task all = Task.WhenAll(names.Select(n => boc.WhenAsync(boc.Cown<LedgerAccount>(Key(n)), a => { a.Balance += 0; })));
        Task first = await Task.WhenAny(all, Task.Delay(bound));
        Assert.True(first == all, $"{seed}: a writer was not granted on every one of {string.Join(", ", names)} within {bound.TotalSeconds} s");
        await all;
    }

    /// <summary>
    /// Waits (bounded) until the coordinator keeps only <paramref name="remaining"/> commit records: the rest settled
    /// and written away.
    /// </summary>
    public async Task AssertRecordsDrainAsync(string seed, TimeSpan bound, string name, int remaining = 0)
    {
        string key = Key(name);
        long deadline = Environment.TickCount64 + (long)bound.TotalMilliseconds;
        int records;
        while ((records = (await fixture.Boc.InspectAsync(fixture.Boc.Cown<LedgerAccount>(key))).CommitRecords) > remaining && Environment.TickCount64 < deadline)
        {
            await Task.Delay(100);
        }

        Assert.True(records == remaining, $"{seed}: {key} keeps {records} commit records after {bound.TotalSeconds} s, not {remaining}");
        Assert.True(fixture.Stored(key)!.Commits.Length == remaining, $"{seed}: {key}'s stored record holds {fixture.Stored(key)!.Commits.Length} commit records, not {remaining}");
    }

    private LedgerAccount Stored(string key) => fixture.Stored(key)?.Value ?? new LedgerAccount();
}
