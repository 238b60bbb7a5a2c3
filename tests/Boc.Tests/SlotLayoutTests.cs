using Xunit.Abstractions;

namespace Boc.Tests;

/// <summary>
/// A behaviour keeps its requests in one of three layouts (<c>SlotLayout</c> in Protocol/Slot.cs): one inline slot, an
/// inline pair (the second slot declared by the two-cown classes), or an array. One- and two-cown classes keep no
/// separate reference to their cowns: a body's arguments are read back from the slots, which Enqueue sorts by cown id
/// and merges. These tests pin what a body receives, whatever the cowns' id order, across pooled reuse, and with a
/// cown named twice; and that a queue dump reads every layout.
/// </summary>
public sealed class SlotLayoutTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData(BocDispatcher.BocScheduler)]
    [InlineData(BocDispatcher.ThreadPool)]
    public async Task EveryArity_PassesEachArgumentItsOwnCownsState_WhateverTheIdOrder(BocDispatcher dispatcher)
    {
        // Five cowns created in order, so their ids rise with the index; each state names its cown.
        var cowns = Enumerable.Range(0, 5).Select(i => new Cown<string>($"c{i}")).ToArray();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        var seen = new List<string>();

        // Every permutation of two and three cowns, each spawned twice in a row, so that a pooled object that last ran
        // with the cowns in the other order (the pair's "swapped" flag) is reused.
        foreach (int[] order in Permutations([0, 1]).Concat(Permutations([0, 1, 2])).SelectMany(p => new[] { p, p }))
        {
            string expected = string.Join(",", order.Select(i => $"c{i}"));
            if (order.Length == 2)
            {
                runtime.When(cowns[order[0]], cowns[order[1]], (a, b) => Record(seen, expected, $"{a},{b}"));
                Assert.Equal(expected, await runtime.WhenAsync(cowns[order[0]], cowns[order[1]], (a, b) => $"{a},{b}").AsTask().Guard());
                runtime.When(Cown.Read(cowns[order[0]]), cowns[order[1]], (a, b) => Record(seen, expected, $"{a},{b}"));
                runtime.When(cowns[order[0]], Cown.Read(cowns[order[1]]), static (a, b, state) => Record(state.Seen, state.Expected, $"{a},{b}"), (Seen: seen, Expected: expected));
            }
            else
            {
                runtime.When(cowns[order[0]], cowns[order[1]], cowns[order[2]], (a, b, c) => Record(seen, expected, $"{a},{b},{c}"));
            }
        }

        runtime.When(cowns[4], a => Record(seen, "c4", a));
        runtime.When(cowns[4], cowns[3], cowns[2], cowns[1], cowns[0], (a, b, c, d, e) => Record(seen, "c4,c3,c2,c1,c0", $"{a},{b},{c},{d},{e}"));
        await runtime.WaitForQuiescenceAsync().Guard();

        lock (seen)
        {
            output.WriteLine(string.Join('\n', seen));
            Assert.All(seen, line => Assert.StartsWith("ok ", line));
            Assert.Equal((2 * 2 * 3) + (6 * 2) + 2, seen.Count);
        }
    }

    [Fact]
    public async Task TheSameCownTwice_GivesBothArgumentsItsState_AndRunsOnce()
    {
        var cown = new Cown<int[]>(new int[1]);
        var other = new Cown<int[]>(new int[1]);
        await using var runtime = new BocRuntime();
        for (int i = 0; i < 100; i++)
        {
            // Alternate with a genuine pair so the pooled two-cown object moves between the merged and unmerged forms.
            runtime.When(cown, cown, static (a, b) =>
            {
                Assert.Same(a, b);
                a[0]++;
            });
            runtime.When(other, cown, static (a, b) =>
            {
                Assert.NotSame(a, b);
                a[0] += 1000;
                b[0] += 1000;
            });
            runtime.When(Cown.Read(cown), cown, static (a, b) =>
            {
                Assert.Same(a, b);
                b[0]++;
            });
        }

        Assert.Equal(100_200, await runtime.WhenAsync(cown, static a => a[0]).AsTask().Guard());
        Assert.Equal(100_000, await runtime.WhenAsync(other, static a => a[0]).AsTask().Guard());
    }

    [Fact]
    public async Task QueueDump_ListsTheCownsOfEveryLayout()
    {
        var cowns = Enumerable.Range(0, 3).Select(_ => new Cown<int[]>(new int[1])).ToArray();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.ThreadPool });
        string dump = await runtime.WhenAsync(cowns[0], _ =>
        {
            // Behind this body on cowns[0]: one cown, a pair given in reverse id order, and three cowns (the array
            // layout). They cannot start before this body ends, so the snapshot is stable.
            runtime.When(cowns[0], _ => { });
            runtime.When(cowns[1], cowns[0], (_, _) => { });
            runtime.When(cowns[2], Cown.Read(cowns[1]), cowns[0], (_, _, _) => { });
            return cowns[0].DescribeQueue();
        }).Guard();
        output.WriteLine(dump);
        Assert.Equal(
            [
                $"{cowns[0]}: queue not empty",
                $"  0: running on {cowns[0]} (write)",
                $"  1: waiting (1 to go) on {cowns[0]} (write)",
                $"  2: waiting (1 to go) on {cowns[0]} (write), {cowns[1]} (write)",
                $"  3: waiting (2 to go) on {cowns[0]} (write), {cowns[1]} (read), {cowns[2]} (write)",
            ],
            dump.Split('\n').Select(l => l.TrimEnd('\r')));
    }

    [Fact]
    public void ACown_KeepsItsQueueFieldsOffTheCacheLineOfItsStateAndId()
    {
        // Cown.cs lays the fields out explicitly: the state and the id (read by every spawn and every body) on the
        // first line, the queue's fields (written by every spawn and release) 72 bytes in, on another line wherever the
        // object starts, so that reading a cown's state or id never misses on a line another core's release just wrote.
        // That costs 56 bytes a cown: 120 on x64 instead of 64. Without the layout the size falls back to 64 and this
        // fails.
        var state = new SizeProbe();
        GC.KeepAlive(new Cown<SizeProbe>(state));
        long before = GC.GetAllocatedBytesForCurrentThread();
        var cown = new Cown<SizeProbe>(state);
        long after = GC.GetAllocatedBytesForCurrentThread();
        GC.KeepAlive(cown);
        Assert.Equal(120, after - before);
    }

    [Fact]
    public async Task APendingBehaviour_TakesNoMoreBytesThanItsLayoutNeeds()
    {
        // What a flood pays per pending behaviour (docs/performance/decisions.md, "Smaller pending behaviours"): spawned from one
        // thread behind a blocked cown, so the pool is soon empty and every spawn allocates its object. The bounds are
        // the measured sizes (96 and 120 bytes on x64 in Release; a pair carries the append word since pairs are
        // appended too) plus a little for the pool's own arrays. The one- and two-cown behaviours are measured with
        // spawns that alternate between two state types: a flood of spawns of one class is appended to the tail
        // behaviour instead (measured below), and a spawn rides only in its own class.
        // The cowns' state types are private to this test, so the behaviour classes measured are too: their pools hold
        // nothing that a test running in parallel returns (with int[] cowns, a parallel test's returned objects were
        // rented here and the Debug pass once measured 126 B for a 136 B object).
        var blocked = new Cown<SizeProbe>(new SizeProbe());
        var other = new Cown<OtherSizeProbe>(new OtherSizeProbe { Value = 1 });
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.ThreadPool });
        const int N = 20_000;

        double BytesPerSpawn(Action spawn)
        {
            using var gate = new ManualResetEventSlim();
            runtime.When(blocked, other, (_, _) => gate.Wait());
            for (int i = 0; i < 2_000; i++)
            {
                spawn();
            }

            long before = GC.GetAllocatedBytesForCurrentThread();
            for (int i = 0; i < N; i++)
            {
                spawn();
            }

            long after = GC.GetAllocatedBytesForCurrentThread();
            gate.Set();
            runtime.WaitForQuiescenceAsync().Guard().GetAwaiter().GetResult();
            return (after - before) / (double)N;
        }

        bool flip = false;
        double one = BytesPerSpawn(() =>
        {
            flip = !flip;
            if (flip)
            {
                runtime.When(blocked, static (s, _) => s.Value++, "a");
            }
            else
            {
                runtime.When(blocked, static (s, _) => s.Value++, (object)"b");
            }
        });
        double two = BytesPerSpawn(() =>
        {
            flip = !flip;
            if (flip)
            {
                runtime.When(blocked, other, static (s, t, _) => s.Value += t.Value, "a");
            }
            else
            {
                runtime.When(blocked, other, static (s, t, _) => s.Value += t.Value, (object)"b");
            }
        });
        double appended = BytesPerSpawn(() => runtime.When(blocked, static s => s.Value++));
        double appendedPairs = BytesPerSpawn(() => runtime.When(blocked, other, static (s, t) => s.Value += t.Value));
        output.WriteLine($"one cown: {one:F1} B, two cowns: {two:F1} B, appended one-cown writes: {appended:F1} B, appended pairs: {appendedPairs:F1} B per pending spawn");
#if DEBUG
        // Debug builds carry the pool-safety stamps: a generation per behaviour and per slot link.
        (int oneSize, int twoSize) = (112, 144);
#else
        (int oneSize, int twoSize) = (96, 120);
#endif
        Assert.InRange(one, oneSize - 8, oneSize + 4);
        Assert.InRange(two, twoSize - 8, twoSize + 4);

        // Appended: per 1 + MaxAppended spawns, one behaviour, its side object and its array of MaxAppended 16-byte
        // entries (about 21 bytes a spawn on x64 in Release with MaxAppended 31; 34 with 7), where a behaviour each is
        // oneSize (twoSize for pairs, whose entries are the same 16 bytes).
        Assert.InRange(appended, 16, oneSize / 2);
        Assert.InRange(appendedPairs, 16, twoSize / 2);
    }

    private sealed class SizeProbe
    {
        public int Value;
    }

    private sealed class OtherSizeProbe
    {
        public int Value;
    }

    private static void Record(List<string> seen, string expected, string actual)
    {
        lock (seen)
        {
            seen.Add(expected == actual ? $"ok {actual}" : $"expected {expected}, got {actual}");
        }
    }

    private static IEnumerable<int[]> Permutations(int[] items) =>
        items.Length <= 1
            ? [items]
            : items.SelectMany((item, i) => Permutations([.. items[..i], .. items[(i + 1)..]]).Select(rest => (int[])[item, .. rest]));
}
