using System.Collections.Concurrent;

namespace Boc.Tests;

/// <summary>
/// The examples of sections 2-4 of the BoC paper (Cheeseman et al., OOPSLA 2023), each as a test of the property the
/// paper uses it to show. Orders are checked with a logical clock stamped at the start and end of every body; examples
/// whose outcome depends on scheduling are repeated.
/// </summary>
public abstract class PaperExamplesTests(BocDispatcher dispatcher) : DispatcherTests(dispatcher)
{
    private sealed class Account(long balance)
    {
        public long Balance { get; set; } = balance;

        public bool Frozen { get; set; }

        public List<string> History { get; } = [];
    }

    private sealed class OutStream
    {
        public List<string> Lines { get; } = [];

        public void Log(string line) => Lines.Add(line);
    }

    /// <summary>Start and end stamps of named bodies.</summary>
    private sealed class Timeline
    {
        private readonly LogicalClock _clock = new();
        private readonly ConcurrentDictionary<string, (long Start, long End)> _spans = new();

        public void Run(string name, Action body)
        {
            long start = _clock.Tick();
            body();
            Assert.True(_spans.TryAdd(name, (start, _clock.Tick())), $"{name} ran twice");
        }

        public void Mark(string name) => Run(name, () => { });

        public void AssertBefore(string first, string second, int iteration)
        {
            var (_, firstEnd) = _spans[first];
            var (secondStart, _) = _spans[second];
            Assert.True(firstEnd < secondStart, $"iteration {iteration}: {first} (ended {firstEnd}) must happen before {second} (started {secondStart})");
        }
    }

    // Listing 2: withdraw and deposit as two single-cown behaviours.
    private void TransferListing2(Cown<Account> src, Cown<Account> dst, long amount)
    {
        Runtime.When(src, s => { s.Balance -= amount; s.History.Add($"withdraw {amount}"); });
        Runtime.When(dst, d => { d.Balance += amount; d.History.Add($"deposit {amount}"); });
    }

    // Listing 3: deposit only if the withdrawal succeeded, spawned from inside the withdrawing behaviour.
    private void TransferListing3(Cown<Account> src, Cown<Account> dst, long amount)
    {
        Runtime.When(src, s =>
        {
            if (s.Balance >= amount)
            {
                s.Balance -= amount;
                Runtime.When(dst, d => d.Balance += amount);
            }
        });
    }

    // Listing 5: one behaviour on both accounts.
    private void TransferListing5(Cown<Account> src, Cown<Account> dst, long amount)
    {
        Runtime.When(src, dst, (s, d) =>
        {
            if (s.Balance >= amount && !s.Frozen && !d.Frozen)
            {
                s.Balance -= amount;
                d.Balance += amount;
            }
        });
    }

    private async Task<long> BalanceOf(Cown<Account> account) =>
        await Runtime.WhenAsync(Cown.Read(account), a => a.Balance).Guard();

    [Fact]
    public async Task Listing1And2_TransferMovesMoneyAndAliasedWithdrawRunsBeforeDeposit()
    {
        var src = new Cown<Account>(new Account(100));
        var dst = new Cown<Account>(new Account(0));
        TransferListing2(src, dst, 30);
        Assert.Equal(70, await BalanceOf(src));
        Assert.Equal(30, await BalanceOf(dst));

        // "If src and dst are aliases, then withdraw will complete before deposit" (section 2.6).
        var same = new Cown<Account>(new Account(0));
        for (int i = 0; i < 200; i++)
        {
            TransferListing2(same, same, i);
        }

        List<string> history = await Runtime.WhenAsync(same, a => a.History.ToList()).Guard();
        Assert.Equal(Enumerable.Range(0, 200).SelectMany(i => new[] { $"withdraw {i}", $"deposit {i}" }), history);
    }

    [Fact]
    public async Task Listing3_DepositsOnlyAfterASuccessfulWithdrawal()
    {
        var rich = new Cown<Account>(new Account(50));
        var poor = new Cown<Account>(new Account(10));
        TransferListing3(rich, poor, 40); // succeeds
        TransferListing3(poor, rich, 60); // poor has 50 now, so this is refused and nothing is deposited
        await Runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(10, await BalanceOf(rich));
        Assert.Equal(50, await BalanceOf(poor));
    }

    [Fact]
    public async Task Listing4_TransfersInOppositeDirectionsDoNotDeadlock()
    {
        var a = new Cown<Account>(new Account(1_000_000));
        var b = new Cown<Account>(new Account(1_000_000));

        // Two threads issue transfers in opposite directions at the same time, in the nested style of Listing 3 and
        // in the two-cown style of Listing 5 with the cowns named in opposite orders. Lock-based code written this way
        // deadlocks; BoC must finish.
        Task forward = Task.Run(() =>
        {
            for (int i = 0; i < 20_000; i++)
            {
                TransferListing3(a, b, 1);
                TransferListing5(a, b, 1);
            }
        });
        Task backward = Task.Run(() =>
        {
            for (int i = 0; i < 20_000; i++)
            {
                TransferListing3(b, a, 2);
                TransferListing5(b, a, 2);
            }
        });
        await Task.WhenAll(forward, backward).Guard();
        await Runtime.WaitForQuiescenceAsync().Guard();

        // Every transfer had enough funds, so each side moved exactly 20,000 x (1 + 1) one way and x (2 + 2) back.
        Assert.Equal(1_000_000 - 40_000 + 80_000, await BalanceOf(a));
        Assert.Equal(1_000_000 + 40_000 - 80_000, await BalanceOf(b));
    }

    [Fact]
    public async Task Listing5_TransferIsAtomicToEveryOtherBehaviour()
    {
        var src = new Cown<Account>(new Account(1_000_000));
        var dst = new Cown<Account>(new Account(0));
        var observedTotals = new ConcurrentBag<long>();
        for (int i = 0; i < 5_000; i++)
        {
            TransferListing5(src, dst, 7);
            Runtime.When(Cown.Read(src), Cown.Read(dst), (s, d) => observedTotals.Add(s.Balance + d.Balance));
        }

        // A frozen account refuses transfers.
        Runtime.When(dst, d => d.Frozen = true);
        TransferListing5(src, dst, 1);
        await Runtime.WaitForQuiescenceAsync().Guard();

        Assert.All(observedTotals, total => Assert.Equal(1_000_000, total));
        Assert.Equal(5_000, observedTotals.Count);
        Assert.Equal(1_000_000 - 35_000, await BalanceOf(src));
        Assert.Equal(35_000, await BalanceOf(dst));
    }

    [Fact]
    public async Task Listing6_OverlappingTransfersRunInSpawnOrder()
    {
        for (int iteration = 0; iteration < 300; iteration++)
        {
            var timeline = new Timeline();
            var s = Enumerable.Range(0, 4).Select(_ => new Cown<Account>(new Account(100))).ToArray();
            Runtime.When(s[0], s[1], (_, _) => timeline.Run("first", () => Thread.SpinWait(200)));
            Runtime.When(s[1], s[3], (_, _) => timeline.Mark("second"));
            await Runtime.WaitForQuiescenceAsync().Guard();
            timeline.AssertBefore("first", "second", iteration);
        }
    }

    [Fact]
    public async Task Listing7_DisjointTransfersMayRunInParallel()
    {
        // transfer(s1, s2); transfer(s3, s4) with four distinct cowns: neither waits for the other. Both bodies must
        // reach the barrier together, which is only possible if they run at the same time.
        var s = Enumerable.Range(0, 4).Select(_ => new Cown<Account>(new Account(100))).ToArray();
        using var barrier = new Barrier(2);
        ValueTask<bool> first = Runtime.WhenAsync(s[0], s[1], (_, _) => barrier.SignalAndWait(Progress.Limit));
        ValueTask<bool> second = Runtime.WhenAsync(s[2], s[3], (_, _) => barrier.SignalAndWait(Progress.Limit));
        Assert.True(await first.Guard(), "the first transfer never met the second");
        Assert.True(await second.Guard(), "the second transfer never met the first");
    }

    [Fact]
    public async Task Listing7_AliasedCownsAreOrdered()
    {
        // The same program when s3 aliases s1: now the two transfers share a cown and run in spawn order.
        for (int iteration = 0; iteration < 300; iteration++)
        {
            var timeline = new Timeline();
            var s1 = new Cown<Account>(new Account(100));
            var s2 = new Cown<Account>(new Account(100));
            var s4 = new Cown<Account>(new Account(100));
            Cown<Account> s3 = s1;
            Runtime.When(s1, s2, (_, _) => timeline.Run("first", () => Thread.SpinWait(200)));
            Runtime.When(s3, s4, (_, _) => timeline.Mark("second"));
            await Runtime.WaitForQuiescenceAsync().Guard();
            timeline.AssertBefore("first", "second", iteration);
        }
    }

    [Fact]
    public async Task Listing8_LogIsBeginThenDepositAndFreezeThenTransfer()
    {
        for (int iteration = 0; iteration < 1_000; iteration++)
        {
            var src = new Cown<Account>(new Account(100));
            var dst = new Cown<Account>(new Account(100));
            var log = new Cown<OutStream>(new OutStream());

            // b0 is this loop body; b1..b7 as in the paper.
            Runtime.When(log, l => l.Log("begin"));                                        // b1
            Runtime.When(src, s => { Thread.SpinWait(s.GetHashCode() & 63); Runtime.When(log, l => l.Log("deposit")); });  // b2, b3
            Runtime.When(dst, d => { d.Frozen = true; Runtime.When(log, l => l.Log("freeze")); });                     // b4, b5
            Runtime.When(src, dst, (s, d) => Runtime.When(log, l => l.Log("transfer")));  // b6, b7

            await Runtime.WaitForQuiescenceAsync().Guard();
            List<string> lines = await Runtime.WhenAsync(log, l => l.Lines.ToList()).Guard();

            // begin < deposit < transfer and begin < freeze < transfer; deposit and freeze are unordered.
            Assert.True(lines.Count == 4 && lines[0] == "begin" && lines[3] == "transfer", $"iteration {iteration}: {string.Join(", ", lines)}");
            Assert.True(lines.Contains("deposit") && lines.Contains("freeze"), $"iteration {iteration}: {string.Join(", ", lines)}");
        }
    }

    [Fact]
    public async Task Listing9_SequentialSchedulingOrdersAllFourPhilosophers()
    {
        for (int iteration = 0; iteration < 300; iteration++)
        {
            var timeline = new Timeline();
            var f = Enumerable.Range(0, 4).Select(_ => new Cown<Account>(new Account(0))).ToArray();
            Runtime.When(f[0], f[1], (_, _) => timeline.Run("b1", () => Thread.SpinWait(100)));
            Runtime.When(f[1], f[2], (_, _) => timeline.Run("b2", () => Thread.SpinWait(100)));
            Runtime.When(f[2], f[3], (_, _) => timeline.Run("b3", () => Thread.SpinWait(100)));
            Runtime.When(f[3], f[0], (_, _) => timeline.Mark("b4"));
            await Runtime.WaitForQuiescenceAsync().Guard();
            timeline.AssertBefore("b1", "b2", iteration);
            timeline.AssertBefore("b2", "b3", iteration);
            timeline.AssertBefore("b3", "b4", iteration);
        }
    }

    [Fact]
    public async Task Listing10_AlternatingSchedulingOrdersOnlyNeighbours()
    {
        for (int iteration = 0; iteration < 300; iteration++)
        {
            var timeline = new Timeline();
            var f = Enumerable.Range(0, 4).Select(_ => new Cown<Account>(new Account(0))).ToArray();
            Runtime.When(f[0], f[1], (_, _) => timeline.Run("b1", () => Thread.SpinWait(100)));
            Runtime.When(f[2], f[3], (_, _) => timeline.Run("b3", () => Thread.SpinWait(100)));
            Runtime.When(f[1], f[2], (_, _) => timeline.Run("b2", () => Thread.SpinWait(100)));
            Runtime.When(f[3], f[0], (_, _) => timeline.Mark("b4"));
            await Runtime.WaitForQuiescenceAsync().Guard();
            timeline.AssertBefore("b1", "b2", iteration);
            timeline.AssertBefore("b3", "b2", iteration);
            timeline.AssertBefore("b1", "b4", iteration);
            timeline.AssertBefore("b3", "b4", iteration);
        }

        // And the parallelism the reordering buys: b1 and b3 can run together, and then b2 and b4 can.
        var forks = Enumerable.Range(0, 4).Select(_ => new Cown<Account>(new Account(0))).ToArray();
        using var firstPair = new Barrier(2);
        using var secondPair = new Barrier(2);
        var met = new ConcurrentBag<bool>();
        Runtime.When(forks[0], forks[1], (_, _) => met.Add(firstPair.SignalAndWait(Progress.Limit)));
        Runtime.When(forks[2], forks[3], (_, _) => met.Add(firstPair.SignalAndWait(Progress.Limit)));
        Runtime.When(forks[1], forks[2], (_, _) => met.Add(secondPair.SignalAndWait(Progress.Limit)));
        Runtime.When(forks[3], forks[0], (_, _) => met.Add(secondPair.SignalAndWait(Progress.Limit)));
        await Runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal([true, true, true, true], met.ToArray());
    }

    [Fact]
    public async Task Listing11_DependencyGraphIsRespected()
    {
        for (int iteration = 0; iteration < 500; iteration++)
        {
            var timeline = new Timeline();
            var c = Enumerable.Range(0, 4).Select(_ => new Cown<Account>(new Account(0))).ToArray();
            Runtime.When(c[0], _ => timeline.Run("b0", () => Thread.SpinWait(50)));
            Runtime.When(c[2], _ => timeline.Run("b1", () => Thread.SpinWait(50)));
            Runtime.When(c[0], c[1], (_, _) => timeline.Run("b2", () => Thread.SpinWait(50)));
            Runtime.When(c[0], _ => timeline.Mark("b3"));
            Runtime.When(c[1], c[2], (_, _) => timeline.Run("b4", () => Thread.SpinWait(50)));
            Runtime.When(c[2], _ => timeline.Mark("b5"));
            await Runtime.WaitForQuiescenceAsync().Guard();

            // The edges of the paper's Figure 2.
            timeline.AssertBefore("b0", "b2", iteration);
            timeline.AssertBefore("b1", "b4", iteration);
            timeline.AssertBefore("b2", "b3", iteration);
            timeline.AssertBefore("b2", "b4", iteration);
            timeline.AssertBefore("b4", "b5", iteration);
        }
    }
}

public sealed class PaperExamplesTestsOnThreadPool() : PaperExamplesTests(BocDispatcher.ThreadPool);

public sealed class PaperExamplesTestsOnBocScheduler() : PaperExamplesTests(BocDispatcher.BocScheduler);
