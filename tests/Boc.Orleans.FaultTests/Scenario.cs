using Boc.Orleans.FaultTests.Node;
using Boc.TestStore;

namespace Boc.Orleans.FaultTests;

/// <summary>
/// What the process fault scenarios share: their cases (every store kind with every seed), and the steps many of them
/// take. Waits are budgets on an idle machine, stretched by the load (<see cref="Patience"/>).
/// </summary>
internal static class Scenario
{
    public static readonly TimeSpan Minute = TimeSpan.FromMinutes(1);

    // Every store kind with every seed. BOC_FAULT_SEED=k runs seed k alone: a soak that loops over seeds runs every
    // scenario once per seed, so stopping it early leaves no scenario with fewer runs than another.
    public static TheoryData<StoreKind, int> Cases()
    {
        int[] seeds = int.TryParse(Environment.GetEnvironmentVariable("BOC_FAULT_SEED"), out int seed)
            ? [seed]
            : [.. Enumerable.Range(1, int.TryParse(Environment.GetEnvironmentVariable("BOC_FAULT_RUNS"), out int n) ? n : 1)];
        var cases = new TheoryData<StoreKind, int>();
        foreach (StoreKind kind in StoreFixture.Kinds)
        {
            foreach (int s in seeds)
            {
                cases.Add(kind, s);
            }
        }

        return cases;
    }

    /// <summary>
    /// Where the cowns live: writes each of the first <paramref name="accounts"/> once (one process, one behaviour per
    /// cown), with an observing fault that records the writing silo's pid, and returns one cown key per silo (pid to
    /// key), at most one key per silo.
    /// </summary>
    internal static async Task<Dictionary<int, string>> PlaceAsync(FaultRun run, string prefix, int accounts, params string[] args)
    {
        string[] rules = [.. Enumerable.Range(0, accounts).Select(i => Faults.Arm(run.Db, run.Cluster, $"{prefix}{i}", Faults.Kind.Observe, TimeSpan.Zero))];
        NodeProcess touch = run.Start("touch", "touch", [$"prefix={prefix}", $"keys={string.Join(",", Enumerable.Range(0, accounts))}", $"journal={run.JournalPath("touch")}", .. args]);
        var silos = new Dictionary<int, string>();
        for (int i = 0; i < accounts; i++)
        {
            string pid = await run.WaitForKeyAsync(Faults.Hit(run.Cluster, rules[i]), Minute, $"{prefix}{i} was never written");
            silos.TryAdd(int.Parse(pid, System.Globalization.CultureInfo.InvariantCulture), $"{prefix}{i}");
        }

        await touch.WaitForExitAsync(Minute);
        return silos;
    }

    internal static async Task OpenAsync(FaultRun run, string prefix, int accounts)
    {
        NodeProcess opener = run.Start("opener", "spawner", [$"prefix={prefix}", $"accounts={accounts}", "open=true", "transfers=0", $"journal={run.JournalPath("opener")}"]);
        await run.WaitForJournalAsync("opener", "done", Minute);
        opener.Kill();
    }

    /// <summary>
    /// Progress: a writer is granted on every account within a bound (a lease after the last spawner's last message,
    /// plus failure detection and a slow machine, stretched by the load), and every write-back has been applied or
    /// dropped by then.
    /// </summary>
    internal static async Task AssertGrantedAgainAsync(FaultRun run, string prefix, int accounts)
    {
        TimeSpan bound = (10 * run.Lease) + TimeSpan.FromSeconds(20);
        string journal = $"probe-{Guid.NewGuid().ToString("N")[..4]}";
        NodeProcess probe = run.Start(journal, "spawner", [$"prefix={prefix}", $"accounts={accounts}", "open=false", "transfers=0", $"journal={run.JournalPath(journal)}", "probe=true"]);
        await run.WaitForJournalAsync(journal, "done", bound);
        probe.Kill();
        await Patience.UntilAsync(
            () => Task.FromResult(run.Stored().Values.Any(r => r.Prepared is not null) ? null : prefix),
            bound,
            () => $"{run.Tag}: a prepared value was neither applied nor dropped",
            TimeSpan.FromMilliseconds(200));
    }
}
