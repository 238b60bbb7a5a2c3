using Boc.Orleans.Grains;

namespace Boc.Orleans.Tests;

/// <summary>
/// A behaviour spawned with an idempotency key commits at most once per key at its coordinator (within the retention),
/// and its outcome can be looked up by key: what a caller needs to retry after an unknown outcome.
/// </summary>
[Collection(FaultGroup.Name)]
public sealed class IdempotencyTests(FaultClusterFixture fixture)
{
    private readonly string _prefix = $"idem-{Guid.NewGuid():N}-";

    [Fact]
    public async Task A_second_spawn_with_a_committed_key_is_not_run_and_the_lookup_says_committed()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "a");
        ClusterCown<Account> b = boc.Cown<Account>(_prefix + "b");

        await boc.WithIdempotencyKey("t-1").WhenAsync(a, b, (x, y) => { x.Balance -= 10; y.Balance += 10; });
        var duplicate = await Assert.ThrowsAsync<BocClusterDuplicateException>(
            () => boc.WithIdempotencyKey("t-1").WhenAsync(a, b, (x, y) => { x.Balance -= 10; y.Balance += 10; }));
        Assert.Equal("t-1", duplicate.IdempotencyKey);

        // Another key runs; the duplicate's writes (and its prepared value at b) were dropped.
        await boc.WithIdempotencyKey("t-2").WhenAsync(a, b, (x, y) => { x.Balance -= 1; y.Balance += 1; });
        Assert.Equal((-11L, 11L), await boc.WhenAsync(BocCluster.Read(a), BocCluster.Read(b), (x, y) => (x.Balance, y.Balance)));
        Assert.Equal(ClusterOutcome.Committed, await boc.GetOutcomeAsync(a, "t-1"));
        Assert.Equal(ClusterOutcome.Committed, await boc.GetOutcomeAsync(a, "t-2"));
        Assert.Equal(ClusterOutcome.NotCommitted, await boc.GetOutcomeAsync(a, "t-3"));
    }

    [Fact]
    public async Task A_NotCommitted_answer_fences_the_key_so_a_spawn_with_it_fails_and_writes_nothing()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "fa");
        ClusterCown<Account> b = boc.Cown<Account>(_prefix + "fb");
        Assert.Equal(ClusterOutcome.NotCommitted, await boc.GetOutcomeAsync(a, "fenced"));

        // Definitive: a call with the key (a late attempt of a call the caller gave up on, or a new one) cannot commit.
        BocClusterException refused = await Assert.ThrowsAsync<BocClusterException>(
            () => boc.WithIdempotencyKey("fenced").WhenAsync(a, b, (x, y) => { x.Balance -= 10; y.Balance += 10; }));
        Assert.Contains("fenced", refused.Message, StringComparison.Ordinal);
        Assert.Equal((0L, 0L), await boc.WhenAsync(BocCluster.Read(a), BocCluster.Read(b), (x, y) => (x.Balance, y.Balance)));
        Assert.Equal(ClusterOutcome.NotCommitted, await boc.GetOutcomeAsync(a, "fenced"));

        // The coordinator is not held by the refused call: other keys run.
        await boc.WithIdempotencyKey("other").WhenAsync(a, b, (x, y) => { x.Balance -= 1; y.Balance += 1; });
        Assert.Equal((-1L, 1L), await boc.WhenAsync(BocCluster.Read(a), BocCluster.Read(b), (x, y) => (x.Balance, y.Balance)));
    }

    [Fact]
    public async Task A_lookup_between_the_attempts_of_a_keyed_call_says_pending_and_the_call_commits_once()
    {
        // The first attempt's prepare at b fails, so it is abandoned and gives the coordinator back; the lookup runs in
        // the gap before the next attempt, when no request with the key is queued at the coordinator.
        var ledger = new Ledger(fixture, $"gap-{Guid.NewGuid():N}-", 100);
        await ledger.OpenAsync("a", "b");
        WriteFault fault = StoreFaults.Arm(fixture.GrainOf(ledger.Key("b")), r => r is CownRecord<LedgerAccount> { Prepared: not null }, FaultKind.StallThenFail, TimeSpan.FromMilliseconds(200));
        BocCluster spawner = fixture.NewSpawner();
        var answers = new List<ClusterOutcome>();
        ClusterCown<LedgerAccount> coordinator = spawner.Cown<LedgerAccount>(ledger.Key("a"));
        spawner.BetweenAttemptsHook = async _ => answers.Add(await spawner.GetOutcomeAsync(coordinator, "gap"));

        await ledger.TransferAsync(spawner.WithIdempotencyKey("gap"), 1, "a", "b", 10);
        Assert.Equal("failed", await fault.Outcome.Task.WaitAsync(TimeSpan.FromMinutes(1)));
        Assert.NotEmpty(answers);
        Assert.True(!answers.Contains(ClusterOutcome.NotCommitted), $"a lookup answered NotCommitted ({string.Join(", ", answers)}) while the call could still commit, and it did");
        Assert.Equal(ClusterOutcome.Committed, await spawner.GetOutcomeAsync(coordinator, "gap"));
        await ledger.AssertGrantedAgainAsync("lookup between attempts", (8 * fixture.Lease) + TimeSpan.FromSeconds(10), "a", "b");
        ledger.AssertConsistent("lookup between attempts", "a", "b");
        Assert.True(ledger.Committed(1, "lookup between attempts"));
    }

    [Fact]
    public async Task A_key_of_a_behaviour_still_waiting_for_its_coordinator_looks_up_as_pending()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "p");
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var entered = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        Task holder = boc.WithIdempotencyKey("held").WhenAsync(a, async x =>
        {
            entered.TrySetResult();
            await gate.Task;
            x.Balance = 1;
        });
        await entered.Task;
        Assert.Equal(ClusterOutcome.Pending, await boc.GetOutcomeAsync(a, "held"));
        gate.TrySetResult();
        await holder;
        Assert.Equal(ClusterOutcome.Committed, await boc.GetOutcomeAsync(a, "held"));
    }

    [Fact]
    public async Task Bad_keys_and_foreign_cowns_are_refused_before_anything_is_sent()
    {
        IBocCluster boc = fixture.Boc;
        Assert.Throws<ArgumentException>(() => boc.WithIdempotencyKey(""));
        await Assert.ThrowsAsync<ArgumentException>(() => boc.GetOutcomeAsync(boc.Cown<Account>(_prefix + "x"), ""));
        await Assert.ThrowsAsync<ArgumentNullException>(() => boc.GetOutcomeAsync<Account>(null!, "k"));
    }
}
