using System.Collections.Concurrent;
using Xunit.Abstractions;

namespace Boc.Tests;

/// <summary>
/// The one-cown spawn path (<c>Behaviour.EnqueueOne</c>) racing the general one: several threads spawn a seeded mix of
/// one- and two-cown behaviours on two or three cowns at once. The race this targets: a two-cown spawner links behind
/// a one-cown behaviour and moves on to its second cown; if the one-cown behaviour claimed to be Scheduled before the
/// behaviour ahead of it had finished its own phase 1, the spawner could overtake that behaviour on the second cown
/// (opposite orders on two cowns: a deadlock, or an order that is not the spawn order). Checked with the oracle
/// (exclusivity and spawn order), exactly-once, and progress.
/// </summary>
public sealed class SpawnPathTests(ITestOutputHelper output)
{
    public static TheoryData<int, int, double, BocDispatcher, bool> Races() => new()
    {
        // seed, cowns, share of read-only requests, dispatcher, cowns made on two threads in turn
        { 11, 2, 0.0, BocDispatcher.BocScheduler, false },
        { 12, 3, 0.3, BocDispatcher.BocScheduler, false },
        { 13, 2, 0.0, BocDispatcher.ThreadPool, false },
        { 14, 3, 0.3, BocDispatcher.ThreadPool, false },

        // Threads take cown ids in blocks, so cowns made on two threads in turn get ids out of creation order: the
        // acquisition order (by id) then differs from the order the cowns were made and are named in.
        { 15, 3, 0.0, BocDispatcher.BocScheduler, true },
        { 16, 5, 0.3, BocDispatcher.BocScheduler, true },
    };

    [Theory]
    [MemberData(nameof(Races))]
    public async Task OneAndTwoCownSpawnsFromManyThreads_StayExclusiveOrderedAndLive(int seed, int cownCount, double readShare, BocDispatcher dispatcher, bool cownsFromTwoThreads)
    {
        const int Spawners = 3;
        const int PerSpawner = 20_000;
        string context = $"seed={seed} cowns={cownCount} readShare={readShare} dispatcher={dispatcher} cownsFromTwoThreads={cownsFromTwoThreads}";

        // Plan first (seeded, per spawner), so the run itself only spawns.
        var plans = new (int[] Cowns, bool[] Writes)[Spawners][];
        for (int s = 0; s < Spawners; s++)
        {
            var random = new Random(seed * 31 + s);
            plans[s] = new (int[], bool[])[PerSpawner];
            for (int i = 0; i < PerSpawner; i++)
            {
                // Two thirds one-cown behaviours, so that two-cown spawners keep landing behind one-cown ones.
                int arity = random.Next(3) == 0 ? 2 : 1;
                int first = random.Next(cownCount);
                int[] picked = arity == 1 ? [first] : [first, (first + 1 + random.Next(cownCount - 1)) % cownCount];
                bool[] writes = picked.Select(_ => random.NextDouble() >= readShare).ToArray();
                plans[s][i] = (picked, writes);
            }
        }

        int total = Spawners * PerSpawner;
        var clock = new LogicalClock();
        var (spawnStart, spawnEnd, start, end, runs) = (new long[total], new long[total], new long[total], new long[total], new int[total]);
        Cown<int[]>[] cowns = cownsFromTwoThreads
            ? CownIdTests.MakeInTurns(cownCount, () => new Cown<int[]>(new int[1]))
            : Enumerable.Range(0, cownCount).Select(_ => new Cown<int[]>(new int[1])).ToArray();
        output.WriteLine($"{context}: cown ids {string.Join(", ", cowns.Select(c => c.Id))}");

        // Not `await using`: after a deadlock, disposal would drain forever and hang the run instead of failing it.
        var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        using var go = new Barrier(Spawners);
        var threads = Enumerable.Range(0, Spawners).Select(s => new Thread(() =>
        {
            go.SignalAndWait();
            for (int i = 0; i < PerSpawner; i++)
            {
                int id = (s * PerSpawner) + i;
                (int[] ids, bool[] writes) = plans[s][i];
                IAcquirable<int[]> At(int k) => writes[k] ? cowns[ids[k]] : Cown.Read(cowns[ids[k]]);

                spawnStart[id] = clock.Tick();
                if (ids.Length == 1)
                {
                    runtime.When(At(0), _ => Body(id));
                }
                else
                {
                    runtime.When(At(0), At(1), (_, _) => Body(id));
                }

                spawnEnd[id] = clock.Tick();
            }
        })).ToArray();

        foreach (Thread t in threads)
        {
            t.Start();
        }

        foreach (Thread t in threads)
        {
            Assert.True(t.Join(Progress.Limit), $"{context}: a spawner made no progress");
        }

        await runtime.WaitForQuiescenceAsync().Guard();
        await runtime.DisposeAsync();

        int[] wrongRuns = Enumerable.Range(0, total).Where(id => runs[id] != 1).Take(5).ToArray();
        Assert.True(wrongRuns.Length == 0, $"{context}: behaviours not run exactly once, e.g. {string.Join(", ", wrongRuns.Select(id => $"#{id} ran {runs[id]}x"))}");

        var accesses = new List<Access>();
        for (int id = 0; id < total; id++)
        {
            (int[] ids, bool[] writes) = plans[id / PerSpawner][id % PerSpawner];
            for (int k = 0; k < ids.Length; k++)
            {
                accesses.Add(new Access(id, ids[k], writes[k], spawnStart[id], spawnEnd[id], start[id], end[id]));
            }
        }

        List<string> violations = Oracle.Check(accesses);
        Assert.True(violations.Count == 0, $"{context}: {string.Join("; ", violations)}");
        output.WriteLine($"{context}: {total} behaviours from {Spawners} threads");

        void Body(int id)
        {
            start[id] = clock.Tick();
            Interlocked.Increment(ref runs[id]);
            end[id] = clock.Tick();
        }
    }
}
