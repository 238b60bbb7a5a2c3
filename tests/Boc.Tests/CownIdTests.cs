namespace Boc.Tests;

/// <summary>
/// Cown ids, which order every multi-cown acquisition (<c>Protocol/Behaviour.Enqueue.cs</c>, step 0). Threads take ids in blocks
/// (<c>Cown.NextId</c>), so what must hold is uniqueness across threads, whatever the interleaving; the order then only
/// has to be total, which <see cref="SpawnPathTests"/> exercises with cowns whose ids are out of creation order.
/// </summary>
public sealed class CownIdTests
{
    [Fact]
    public void CownsMadeOnManyThreadsAtOnce_HaveDistinctPositiveIds()
    {
        const int Threads = 4;

        // Several blocks per thread, so that threads take blocks while others are in the middle of theirs.
        const int PerThread = 5_000;
        var ids = new long[Threads][];
        using var go = new Barrier(Threads);
        Thread[] threads = Enumerable.Range(0, Threads).Select(t => new Thread(() =>
        {
            var mine = new long[PerThread];
            go.SignalAndWait();
            for (int i = 0; i < PerThread; i++)
            {
                mine[i] = new Cown<object>(new object()).Id;
            }

            ids[t] = mine;
        })).ToArray();
        foreach (Thread thread in threads)
        {
            thread.Start();
        }

        foreach (Thread thread in threads)
        {
            Assert.True(thread.Join(Progress.Limit), "a thread making cowns made no progress");
        }

        long[] all = ids.SelectMany(x => x).ToArray();
        Assert.All(all, id => Assert.True(id > 0, $"id {id} is not positive"));
        long[] repeated = all.GroupBy(id => id).Where(g => g.Count() > 1).Select(g => g.Key).Take(5).ToArray();
        Assert.True(repeated.Length == 0, $"ids given to more than one cown, e.g. {string.Join(", ", repeated)}");
    }

    [Fact]
    public void CownsMadeOnOneThread_HaveGrowingIds()
    {
        // What a single-threaded program sees (and what its diagnostics read as creation order).
        long previous = 0;
        for (int i = 0; i < 1_000; i++)
        {
            long id = new Cown<object>(new object()).Id;
            Assert.True(id > previous, $"cown #{i} got id {id} after {previous}");
            previous = id;
        }
    }

    [Fact]
    public void CownsMadeOnTwoThreadsInTurn_GetIdsOutOfCreationOrder()
    {
        // The premise of SpawnPathTests' rows with cowns made on two threads: checks that those rows do exercise an
        // acquisition order that differs from creation order.
        Cown<object>[] cowns = MakeInTurns(3, () => new Cown<object>(new object()));
        long[] ids = cowns.Select(c => c.Id).ToArray();
        Assert.True(ids[2] < ids[1], $"ids in creation order: {string.Join(", ", ids)}");
    }

    /// <summary>
    /// Makes <paramref name="count"/> cowns alternately on two threads (the first, third, ... on one; the second,
    /// fourth, ... on the other), one at a time in index order.
    /// </summary>
    internal static T[] MakeInTurns<T>(int count, Func<T> make)
    {
        var made = new T[count];
        using var first = new SemaphoreSlim(0);
        using var second = new SemaphoreSlim(0);
        SemaphoreSlim[] turns = [first, second];
        var threads = new Thread[2];
        for (int side = 0; side < 2; side++)
        {
            int mySide = side;
            threads[side] = new Thread(() =>
            {
                for (int i = mySide; i < count; i += 2)
                {
                    turns[mySide].Wait();
                    made[i] = make();
                    turns[1 - mySide].Release();
                }
            });
            threads[side].Start();
        }

        turns[0].Release();
        foreach (Thread thread in threads)
        {
            Assert.True(thread.Join(Progress.Limit), "a thread making cowns made no progress");
        }

        return made;
    }
}
