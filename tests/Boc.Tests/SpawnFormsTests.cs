using System.Collections.Concurrent;

namespace Boc.Tests;

/// <summary>Duplicates, zero-cown behaviours, dynamic cown sets, and the full arity range.</summary>
public abstract class SpawnFormsTests(BocDispatcher dispatcher) : DispatcherTests(dispatcher)
{
    private sealed class Box
    {
        public int Value;

        public int Occupancy;
    }

    [Fact]
    public async Task DuplicateCowns_AreAcquiredOnceAndNeverHang()
    {
        var box = new Cown<Box>(new Box());
        for (int i = 0; i < 1_000; i++)
        {
            Runtime.When(box, box, (a, b) =>
            {
                Assert.Same(a, b);
                a.Value++;
            });
            Runtime.When(box, Cown.Read(box), box, (a, _, _) => a.Value++);
            Runtime.When(new IAcquirable<Box>[] { box, box, Cown.Read(box) }, all => all[0].Value++);
        }

        Assert.Equal(3_000, await Runtime.WhenAsync(box, b => b.Value).Guard());
    }

    [Fact]
    public async Task DuplicateWithOneWrite_IsAWrite_SoItExcludesReaders()
    {
        var box = new Cown<Box>(new Box());
        var violations = new ConcurrentQueue<string>();
        for (int i = 0; i < 5_000; i++)
        {
            if (i % 2 == 0)
            {
                // Read + write of the same cown: must be treated as a write.
                Runtime.When(Cown.Read(box), box, (b, _) =>
                {
                    if (Interlocked.CompareExchange(ref b.Occupancy, -1, 0) != 0)
                    {
                        violations.Enqueue("merged write overlapped");
                    }

                    Thread.SpinWait(20);
                    Interlocked.Exchange(ref b.Occupancy, 0);
                });
            }
            else
            {
                Runtime.When(Cown.Read(box), Cown.Read(box), (b, _) =>
                {
                    if (Interlocked.Increment(ref b.Occupancy) <= 0)
                    {
                        violations.Enqueue("reader overlapped the merged write");
                    }

                    Thread.SpinWait(20);
                    Interlocked.Decrement(ref b.Occupancy);
                });
            }
        }

        await Runtime.WaitForQuiescenceAsync().Guard();
        Assert.Empty(violations);
    }

    [Fact]
    public async Task ZeroCownBehaviours_RunExactlyOnceEach()
    {
        var runs = new int[2_000];
        for (int i = 0; i < runs.Length; i++)
        {
            int index = i;
            Runtime.When(() => Interlocked.Increment(ref runs[index]));
        }

        int answer = await Runtime.WhenAsync(() => 42).Guard();
        await Runtime.WhenAsync(async () => await Task.Yield()).Guard();
        await Runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(42, answer);
        Assert.All(runs, r => Assert.Equal(1, r));
    }

    [Fact]
    public async Task DynamicSet_GivesStatesInCallerOrder_AndOrdersWithSingleCownBehaviours()
    {
        var boxes = Enumerable.Range(0, 10).Select(i => new Cown<Box>(new Box { Value = i })).ToArray();
        Cown<Box>[] shuffled = [boxes[7], boxes[2], boxes[9], boxes[0]];
        int[] seen = await Runtime.WhenAsync(shuffled, states => states.Select(s => s.Value).ToArray()).Guard();
        Assert.Equal([7, 2, 9, 0], seen);

        // A behaviour on all ten runs after earlier single-cown writers and before later ones.
        var log = new ConcurrentQueue<string>();
        Runtime.When(boxes[3], b => { Thread.SpinWait(500); b.Value = 100; log.Enqueue("single-before"); });
        Runtime.When(boxes.ToList(), states => log.Enqueue($"all:{states[3].Value}"));
        Runtime.When(boxes[3], b => { b.Value = 200; log.Enqueue("single-after"); });
        await Runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(["single-before", "all:100", "single-after"], log.ToArray());
    }

    [Fact]
    public async Task DynamicSet_MixesWithSingleCownsAndReadOnlyElements()
    {
        var log = new Cown<Box>(new Box());
        var boxes = Enumerable.Range(1, 5).Select(i => new Cown<Box>(new Box { Value = i })).ToArray();
        IAcquirable<Box>[] reads = boxes.Select(Cown.Read).ToArray();
        int sum = await Runtime.WhenAsync(log, reads, (l, states) => l.Value = states.Sum(s => s.Value)).Guard();
        Assert.Equal(15, sum);

        int two = await Runtime.WhenAsync(log, boxes[0], Array.Empty<Cown<Box>>(), (l, first, rest) => l.Value + first.Value + rest.Count).Guard();
        Assert.Equal(16, two);

        // An empty dynamic set is a zero-cown behaviour.
        Assert.Equal(0, await Runtime.WhenAsync(Array.Empty<Cown<Box>>(), states => states.Count).Guard());
    }

    [Fact]
    public async Task EveryFixedArity_AcquiresAllItsCowns()
    {
        var c = Enumerable.Range(1, 8).Select(i => new Cown<Box>(new Box { Value = i })).ToArray();
        Assert.Equal(1, await Runtime.WhenAsync(c[0], a => a.Value).Guard());
        Assert.Equal(3, await Runtime.WhenAsync(c[0], c[1], (a, b) => a.Value + b.Value).Guard());
        Assert.Equal(6, await Runtime.WhenAsync(c[0], c[1], c[2], (a, b, d) => a.Value + b.Value + d.Value).Guard());
        Assert.Equal(10, await Runtime.WhenAsync(c[0], c[1], c[2], c[3], (a, b, d, e) => a.Value + b.Value + d.Value + e.Value).Guard());
        Assert.Equal(15, await Runtime.WhenAsync(c[0], c[1], c[2], c[3], c[4], (a, b, d, e, f) => a.Value + b.Value + d.Value + e.Value + f.Value).Guard());
        Assert.Equal(21, await Runtime.WhenAsync(c[0], c[1], c[2], c[3], c[4], c[5], (a, b, d, e, f, g) => a.Value + b.Value + d.Value + e.Value + f.Value + g.Value).Guard());
        Assert.Equal(28, await Runtime.WhenAsync(c[0], c[1], c[2], c[3], c[4], c[5], c[6], (a, b, d, e, f, g, h) => a.Value + b.Value + d.Value + e.Value + f.Value + g.Value + h.Value).Guard());

        // Eight cowns in reverse order, each incremented: all eight are held together.
        var done = Runtime.WhenAsync(c[7], c[6], c[5], c[4], c[3], c[2], c[1], c[0], (a, b, d, e, f, g, h, i) =>
        {
            foreach (Box x in new[] { a, b, d, e, f, g, h, i })
            {
                x.Value += 10;
            }
        });
        await done.Guard();
        Assert.Equal(Enumerable.Range(11, 8), await Runtime.WhenAsync(c, s => s.Select(x => x.Value).ToArray()).Guard());
    }

    [Fact]
    public async Task LargeDynamicSets_InOppositeOrdersWithDuplicates_DoNotDeadlock()
    {
        // Sets above the insertion-sort limit take the other sorting path; two threads spawn them over the same cowns
        // in opposite orders, with every cown listed twice.
        var boxes = Enumerable.Range(0, 200).Select(_ => new Cown<Box>(new Box())).ToArray();
        Cown<Box>[] forward = [.. boxes, .. boxes];
        Cown<Box>[] backward = Enumerable.Reverse(forward).ToArray();   // not forward.Reverse(): on net8.0 C# 14 binds that to the in-place Span overload
        Task[] spawners =
        [
            Task.Run(() => { for (int i = 0; i < 300; i++) { Runtime.When(forward, all => all[0].Value++); } }),
            Task.Run(() => { for (int i = 0; i < 300; i++) { Runtime.When(backward, all => all[^1].Value++); } }),
        ];
        await Task.WhenAll(spawners).Guard();
        await Runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(600, await Runtime.WhenAsync(boxes[0], b => b.Value).Guard());
    }

    [Fact]
    public async Task CovariantAcquisition_PassesTheDerivedStateAsItsBase()
    {
        var derived = new Cown<DerivedBox>(new DerivedBox { Name = "d" });
        IAcquirable<BaseBox> asBase = derived;
        string name = await Runtime.WhenAsync(asBase, b => b.Name).Guard();
        Assert.Equal("d", name);
    }

    private class BaseBox
    {
        public string Name { get; set; } = "";
    }

    private sealed class DerivedBox : BaseBox
    {
    }
}

public sealed class SpawnFormsTestsOnThreadPool() : SpawnFormsTests(BocDispatcher.ThreadPool);

public sealed class SpawnFormsTestsOnBocScheduler() : SpawnFormsTests(BocDispatcher.BocScheduler);
