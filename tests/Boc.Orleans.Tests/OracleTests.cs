using System.Collections.Concurrent;

namespace Boc.Orleans.Tests;

/// <summary>
/// Random programs over a few cowns, checked by an oracle: exclusivity (an owner marker set inside every body), spawn
/// order per spawner, exactly-once commits, reads that see a prefix of the final history, and progress. Seeded; the
/// seed is in every failure message. BOC_ORLEANS_SOAK=1 runs more and larger programs.
/// </summary>
[Collection(ClusterGroup.Name)]
public sealed class OracleTests(ClusterFixture fixture)
{
    private static readonly bool s_soak = Environment.GetEnvironmentVariable("BOC_ORLEANS_SOAK") == "1";

    public static TheoryData<int> Seeds() => s_soak ? [.. Enumerable.Range(1, 20)] : [1, 2];

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task Random_programs_keep_exclusivity_per_spawner_order_and_exactly_once(int seed)
    {
        var random = new Random(seed);
        int cownCount = s_soak ? 16 : 8;
        int spawnerCount = 3;
        int perSpawner = s_soak ? 80 : 25;
        string prefix = $"oracle-{seed}-{Guid.NewGuid():N}-";
        BocCluster[] spawners = [.. Enumerable.Range(0, spawnerCount).Select(_ => fixture.NewSpawner())];
        string[] keys = [.. Enumerable.Range(0, cownCount).Select(i => prefix + i)];

        var plans = new List<Plan>();
        for (int s = 0; s < spawnerCount; s++)
        {
            for (int i = 0; i < perSpawner; i++)
            {
                int arity = random.Next(1, 4);
                var picks = new List<(int Cown, bool Write)>();
                for (int k = 0; k < arity; k++)
                {
                    // Sometimes the same cown twice, to exercise merging.
                    int cown = k > 0 && random.Next(8) == 0 ? picks[0].Cown : random.Next(cownCount);
                    picks.Add((cown, random.Next(10) < 6));
                }

                plans.Add(new Plan(s * 1000 + i, s, i, picks));
            }
        }

        var markers = new Dictionary<int, (int Writer, int Readers)>();
        var violations = new ConcurrentQueue<string>();
        var observed = new ConcurrentDictionary<(int Id, int Cown), int[]>();

        // Each spawner spawns its behaviours in order without awaiting them; the spawners run concurrently.
        Task[] running = [.. Enumerable.Range(0, spawnerCount).Select(s => Task.Run(async () =>
        {
            var mine = new List<Task>();
            foreach (Plan plan in plans.Where(p => p.Spawner == s))
            {
                ClusterAcquirable<Probe>[] cowns = [.. plan.Picks.Select(p =>
                    p.Write ? (ClusterAcquirable<Probe>)spawners[s].Cown<Probe>(keys[p.Cown]) : BocCluster.Read(spawners[s].Cown<Probe>(keys[p.Cown])))];
                mine.Add(spawners[s].WhenAsync(cowns, async states =>
                {
                    Dictionary<int, bool> held = plan.Held;
                    lock (markers)
                    {
                        foreach ((int cown, bool write) in held)
                        {
                            (int writer, int readers) = markers.GetValueOrDefault(cown);
                            if (writer != 0 || (write && readers != 0))
                            {
                                violations.Enqueue($"behaviour {plan.Id} entered cown {cown} held by writer {writer} / {readers} readers");
                            }

                            markers[cown] = write ? (plan.Id, readers) : (writer, readers + 1);
                        }
                    }

                    await Task.Yield();
                    for (int k = 0; k < plan.Picks.Count; k++)
                    {
                        int cown = plan.Picks[k].Cown;
                        if (held[cown] && !states[k].Writers.Contains(plan.Id))
                        {
                            states[k].Writers.Add(plan.Id);
                        }
                        else if (!held[cown])
                        {
                            observed[(plan.Id, cown)] = [.. states[k].Writers];
                        }
                    }

                    lock (markers)
                    {
                        foreach ((int cown, bool write) in held)
                        {
                            (int writer, int readers) = markers[cown];
                            markers[cown] = write ? (0, readers) : (writer, readers - 1);
                        }
                    }
                }));
            }

            await Task.WhenAll(mine);
        }))];

        try
        {
            // Progress: every behaviour completes. The bound only turns a hang into a failure with the seed.
            await Task.WhenAll(running).WaitAsync(TimeSpan.FromMinutes(3));
        }
        catch (TimeoutException)
        {
            Assert.Fail($"seed {seed}: behaviours did not all complete (a cown stuck?)");
        }

        Assert.True(violations.IsEmpty, $"seed {seed}: exclusivity: {string.Join("; ", violations.Take(5))}");

        BocCluster reader = fixture.NewSpawner();
        List<int>[] final = await reader.WhenAsync(
            [.. keys.Select(k => (ClusterAcquirable<Probe>)BocCluster.Read(reader.Cown<Probe>(k)))],
            states => states.Select(s => s.Writers).ToArray());

        for (int cown = 0; cown < cownCount; cown++)
        {
            int[] expected = [.. plans.Where(p => p.Held.TryGetValue(cown, out bool w) && w).Select(p => p.Id).Order()];
            int[] actual = [.. final[cown].Order()];
            Assert.True(expected.SequenceEqual(actual), $"seed {seed}: cown {cown}: exactly once: expected writers {string.Join(",", expected)}, got {string.Join(",", final[cown])}");
        }

        foreach (((int id, int cown), int[] seen) in observed)
        {
            Assert.True(seen.SequenceEqual(final[cown].Take(seen.Length)), $"seed {seed}: behaviour {id} read cown {cown} as [{string.Join(",", seen)}], not a prefix of its history");
        }

        foreach (IGrouping<int, Plan> bySpawner in plans.GroupBy(p => p.Spawner))
        {
            Plan[] ordered = [.. bySpawner.OrderBy(p => p.Index)];
            for (int i = 0; i < ordered.Length; i++)
            {
                for (int j = i + 1; j < ordered.Length; j++)
                {
                    foreach ((int cown, bool firstWrites) in ordered[i].Held)
                    {
                        if (!ordered[j].Held.TryGetValue(cown, out bool secondWrites))
                        {
                            continue;
                        }

                        string pair = $"seed {seed}: spawner {bySpawner.Key}: {ordered[i].Id} before {ordered[j].Id} on cown {cown}";
                        if (firstWrites && secondWrites)
                        {
                            Assert.True(final[cown].IndexOf(ordered[i].Id) < final[cown].IndexOf(ordered[j].Id), pair);
                        }
                        else if (firstWrites)
                        {
                            Assert.True(observed[(ordered[j].Id, cown)].Contains(ordered[i].Id), pair + " (the later read missed the write)");
                        }
                        else if (secondWrites)
                        {
                            Assert.False(observed[(ordered[i].Id, cown)].Contains(ordered[j].Id), pair + " (the earlier read saw the later write)");
                        }
                    }
                }
            }
        }
    }

    private sealed record Plan(int Id, int Spawner, int Index, List<(int Cown, bool Write)> Picks)
    {
        /// <summary>Each distinct cown once, as a write if any occurrence writes.</summary>
        public Dictionary<int, bool> Held { get; } = Picks.GroupBy(p => p.Cown).ToDictionary(g => g.Key, g => g.Any(p => p.Write));
    }
}
