using System.Collections.Concurrent;

namespace Boc.Tests;

public abstract class ReadOnlyTests(BocDispatcher dispatcher) : DispatcherTests(dispatcher)
{
    private sealed class Box
    {
        public int Value;

        // Instrumentation: -1 while a writer is inside, n > 0 while n readers are.
        public int Occupancy;
    }

    [Fact]
    public async Task TwoReadersOfOneCown_RunAtTheSameTime()
    {
        // Each reader waits at a barrier for the other: they can only both get through if they overlap.
        var box = new Cown<Box>(new Box());
        using var barrier = new Barrier(2);
        ValueTask<bool> first = Runtime.WhenAsync(Cown.Read(box), _ => barrier.SignalAndWait(Progress.Limit));
        ValueTask<bool> second = Runtime.WhenAsync(Cown.Read(box), _ => barrier.SignalAndWait(Progress.Limit));
        Assert.True(await first.Guard());
        Assert.True(await second.Guard());
    }

    [Fact]
    public async Task AWriter_NeverOverlapsReaders_AndReadersSeeWritesInSpawnOrder()
    {
        var box = new Cown<Box>(new Box());
        var violations = new ConcurrentQueue<string>();
        var seen = new ConcurrentQueue<(int Expected, int Seen)>();
        for (int i = 0; i < 20_000; i++)
        {
            if (i % 5 == 0)
            {
                Runtime.When(box, b =>
                {
                    if (Interlocked.CompareExchange(ref b.Occupancy, -1, 0) != 0)
                    {
                        violations.Enqueue("writer entered while occupied");
                    }

                    Thread.SpinWait(20);
                    b.Value++;
                    Interlocked.Exchange(ref b.Occupancy, 0);
                });
            }
            else
            {
                // Readers spawned after the k-th writer must see exactly k writes: not fewer (ordered after it), not
                // more (the next writer waits for them).
                int writesBefore = (i / 5) + 1;
                Runtime.When(Cown.Read(box), b =>
                {
                    if (Interlocked.Increment(ref b.Occupancy) <= 0)
                    {
                        violations.Enqueue("reader entered while a writer was inside");
                    }

                    Thread.SpinWait(20);
                    seen.Enqueue((writesBefore, b.Value));
                    Interlocked.Decrement(ref b.Occupancy);
                });
            }
        }

        await Runtime.WaitForQuiescenceAsync().Guard();
        Assert.Empty(violations);
        Assert.Equal(16_000, seen.Count);
        Assert.All(seen, s => Assert.Equal(s.Expected, s.Seen));
    }

    [Fact]
    public async Task ReaderChainsRacingWithWriters_FromManyThreads_KeepExclusivity()
    {
        // Several spawners mix long reader runs and writers on few cowns, with reads and writes of different cowns in
        // one behaviour: the cascade that hands the cown from a writer to a run of readers, and from the last reader
        // back to a waiting writer, races with new spawns on every cown.
        var boxes = Enumerable.Range(0, 3).Select(_ => new Cown<Box>(new Box())).ToArray();
        var violations = new ConcurrentQueue<string>();
        long writes = 0;

        void Enter(Box b, bool write)
        {
            if (write ? Interlocked.CompareExchange(ref b.Occupancy, -1, 0) != 0 : Interlocked.Increment(ref b.Occupancy) <= 0)
            {
                violations.Enqueue(write ? "writer overlapped" : "reader overlapped a writer");
            }
        }

        void Leave(Box b, bool write)
        {
            if (write)
            {
                Interlocked.Exchange(ref b.Occupancy, 0);
            }
            else
            {
                Interlocked.Decrement(ref b.Occupancy);
            }
        }

        Task[] spawners = Enumerable.Range(0, 4).Select(seed => Task.Run(() =>
        {
            var random = new Random(seed);
            for (int i = 0; i < 15_000; i++)
            {
                int x = random.Next(3);
                int y = (x + 1 + random.Next(2)) % 3;
                bool writeX = random.Next(8) == 0;
                bool writeY = random.Next(8) == 0;
                IAcquirable<Box> a = writeX ? boxes[x] : Cown.Read(boxes[x]);
                IAcquirable<Box> b = writeY ? boxes[y] : Cown.Read(boxes[y]);
                Runtime.When(a, b, (bx, by) =>
                {
                    Enter(bx, writeX);
                    Enter(by, writeY);
                    if (writeX)
                    {
                        bx.Value++;
                        Interlocked.Increment(ref writes);
                    }

                    Leave(by, writeY);
                    Leave(bx, writeX);
                });
            }
        })).ToArray();

        await Task.WhenAll(spawners).Guard();
        await Runtime.WaitForQuiescenceAsync().Guard();
        Assert.Empty(violations);
        int total = 0;
        foreach (Cown<Box> box in boxes)
        {
            total += await Runtime.WhenAsync(Cown.Read(box), b => b.Value).Guard();
        }

        Assert.Equal(Interlocked.Read(ref writes), total);
    }

    [Fact]
    public void Read_ReturnsOneCachedViewPerCown()
    {
        var box = new Cown<Box>(new Box());
        Assert.Same(Cown.Read(box), Cown.Read(box));
        Assert.Same(box, Cown.Read(box).Target);
        Assert.Same(Cown.Read(box), Behaviours.Read(box));
        Assert.Throws<ArgumentNullException>(() => Cown.Read<Box>(null!));
    }
}

public sealed class ReadOnlyTestsOnThreadPool() : ReadOnlyTests(BocDispatcher.ThreadPool);

public sealed class ReadOnlyTestsOnBocScheduler() : ReadOnlyTests(BocDispatcher.BocScheduler);
