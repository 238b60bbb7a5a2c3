namespace Boc.Orleans.Tests;

[Collection(ClusterGroup.Name)]
public sealed class ValidationTests(ClusterFixture fixture)
{
    private readonly string _prefix = "validation-" + Guid.NewGuid().ToString("N")[..8] + "-";

    [Fact]
    public void A_null_or_empty_key_is_rejected()
    {
        Assert.Throws<ArgumentNullException>(() => fixture.Boc.Cown<Account>(null!));
        Assert.Throws<ArgumentException>(() => fixture.Boc.Cown<Account>(""));
    }

    [Fact]
    public void Read_of_null_is_rejected() => Assert.Throws<ArgumentNullException>(() => BocCluster.Read<Account>(null!));

    [Fact]
    public void Null_cowns_and_bodies_are_rejected_before_anything_is_sent_naming_the_argument()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "a");
        Assert.Equal("c1", Assert.Throws<ArgumentNullException>(() => Spawn(() => boc.WhenAsync((ClusterCown<Account>)null!, _ => { }))).ParamName);
        Assert.Equal("c2", Assert.Throws<ArgumentNullException>(() => Spawn(() => boc.WhenAsync(a, (ClusterCown<Account>)null!, (_, _) => { }))).ParamName);
        Assert.Equal("body", Assert.Throws<ArgumentNullException>(() => Spawn(() => boc.WhenAsync(a, (Action<Account>)null!))).ParamName);
        Assert.Equal("cowns", Assert.Throws<ArgumentNullException>(() => Spawn(() => boc.WhenAsync((IReadOnlyList<ClusterAcquirable<Account>>)null!, _ => { }))).ParamName);
        Assert.Equal("cowns", Assert.Throws<ArgumentException>(() => Spawn(() => boc.WhenAsync(Array.Empty<ClusterAcquirable<Account>>(), _ => { }))).ParamName);
        Assert.Equal("cowns", Assert.Throws<ArgumentException>(() => Spawn(() => boc.WhenAsync(new ClusterAcquirable<Account>[] { a, null! }, _ => { }))).ParamName);
    }

    [Fact]
    public async Task A_rejected_spawn_leaves_its_valid_cowns_free()
    {
        IBocCluster boc = fixture.Boc;
        ClusterCown<Account> a = boc.Cown<Account>(_prefix + "free");
        Assert.Throws<ArgumentNullException>(() => Spawn(() => boc.WhenAsync(a, (ClusterCown<Account>)null!, (x, _) => { x.Balance = 1; })));
        Assert.Throws<ArgumentException>(() => Spawn(() => boc.WhenAsync(new ClusterAcquirable<Account>[] { a, null! }, s => { s[0].Balance = 2; })));
        // Nothing was enqueued on a: it grants at once, and nothing was written.
        Assert.Equal(0, await boc.WhenAsync(a, x => x.Balance));
    }

    /// <summary>Calls a spawn synchronously: a validation exception must be thrown here, not stored in the task.</summary>
    private static void Spawn(Func<Task> spawn) => _ = spawn();

    [Fact]
    public void Options_out_of_range_are_rejected()
    {
        var options = new BocClusterOptions();
        Assert.Throws<ArgumentOutOfRangeException>(() => options.LeaseDuration = TimeSpan.Zero);
        Assert.Throws<ArgumentOutOfRangeException>(() => options.PollInterval = TimeSpan.FromSeconds(-1));
        Assert.Throws<ArgumentOutOfRangeException>(() => options.MaxAttempts = 0);
        Assert.Throws<ArgumentNullException>(() => new BocCluster(null!));
    }
}
