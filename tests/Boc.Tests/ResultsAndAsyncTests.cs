using System.Collections.Concurrent;

namespace Boc.Tests;

public abstract class ResultsAndAsyncTests(BocDispatcher dispatcher) : DispatcherTests(dispatcher)
{
    private sealed class Account
    {
        public long Balance;

        public long Pending;
    }

    [Fact]
    public async Task Result_CompletesWithTheBodysValue_AfterEarlierBehavioursOnTheCown()
    {
        var account = new Cown<Account>(new Account());
        for (int i = 0; i < 1_000; i++)
        {
            Runtime.When(account, a => a.Balance++);
        }

        Assert.Equal(1_000, await Runtime.WhenAsync(Cown.Read(account), a => a.Balance).Guard());
    }

    private static long Refuse(Account account) => throw new InvalidOperationException("refused");

    [Fact]
    public async Task Result_CarriesTheBodysException_AndTheCownStaysUsable()
    {
        var account = new Cown<Account>(new Account());
        var error = await Assert.ThrowsAsync<InvalidOperationException>(async () =>
            await Runtime.WhenAsync(account, Refuse).Guard());
        Assert.Equal("refused", error.Message);

        await Assert.ThrowsAsync<FormatException>(async () =>
            await Runtime.WhenAsync<Account, int>(account, async _ => { await Task.Yield(); throw new FormatException(); }).Guard());

        Assert.Equal(1, await Runtime.WhenAsync(account, a => ++a.Balance).Guard());
    }

    [Fact]
    public async Task CompletionForm_CompletesAfterTheBodyAndReportsCancellation()
    {
        var account = new Cown<Account>(new Account());
        await Runtime.WhenAsync(account, a => { a.Balance = 5; }).Guard();
        Assert.Equal(5, await Runtime.WhenAsync(account, a => a.Balance).Guard());

        using var cts = new CancellationTokenSource();
        await cts.CancelAsync();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(async () =>
            await Runtime.WhenAsync(account, _ => Task.FromCanceled(cts.Token)).Guard());
    }

    [Fact]
    public async Task AsyncBody_HoldsTheCownAcrossAwait_SoNoOneSeesIntermediateState()
    {
        // The body makes the state inconsistent (Pending != 0), awaits, then repairs it. Competing behaviours on the
        // cown must never observe the inconsistent state.
        var account = new Cown<Account>(new Account());
        var observed = new ConcurrentQueue<long>();
        var bodies = new List<Task>();
        for (int i = 0; i < 200; i++)
        {
            bodies.Add(Runtime.WhenAsync(account, async a =>
            {
                a.Pending = 10;
                await Task.Delay(1);
                await Task.Yield();
                a.Balance += a.Pending;
                a.Pending = 0;
            }).AsTask());
            Runtime.When(Cown.Read(account), a => observed.Enqueue(a.Pending));
            Runtime.When(account, a => observed.Enqueue(a.Pending));
        }

        await Task.WhenAll(bodies).Guard();

        await Runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(400, observed.Count);
        Assert.All(observed, pending => Assert.Equal(0, pending));
        Assert.Equal(2_000, await Runtime.WhenAsync(account, a => a.Balance).Guard());
    }

    [Fact]
    public async Task AsyncResult_AwaitsTheBodysTask()
    {
        var account = new Cown<Account>(new Account { Balance = 41 });
        long value = await Runtime.WhenAsync(account, async a =>
        {
            await Task.Yield();
            return ++a.Balance;
        }).Guard();
        Assert.Equal(42, value);
    }

    [Fact]
    public async Task ResultContinuation_DoesNotRunOnTheReleasingWorker()
    {
        // One worker. If the awaiter's continuation ran inline where the behaviour completes, it would occupy the only
        // worker while blocking on a behaviour that needs that worker: a hang. It must run elsewhere.
        await using var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 1, Dispatcher = Dispatcher });
        var account = new Cown<Account>(new Account());
        Task<bool> continuation = runtime.WhenAsync(account, a => ++a.Balance).AsTask().ContinueWith(
            _ => runtime.WhenAsync(account, a => a.Balance).AsTask().Wait(Progress.Limit),
            CancellationToken.None,
            TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);
        Assert.True(await continuation.Guard());
    }

    [Fact]
    public async Task PooledResults_ReusedAcrossThreads_EachAwaiterGetsItsOwnValue()
    {
        // Result behaviours are their own ValueTask sources and go back to the pool when awaited; with four threads
        // spawning and awaiting at once, objects are reused constantly. A mix-up would hand someone another's value.
        var cowns = Enumerable.Range(0, 8).Select(_ => new Cown<Account>(new Account())).ToArray();
        var wrong = new ConcurrentQueue<string>();
        Task[] clients = Enumerable.Range(0, 4).Select(client => Task.Run(async () =>
        {
            for (int i = 0; i < 20_000; i++)
            {
                long expected = (client * 1_000_000L) + i;
                long got = await Runtime.WhenAsync(cowns[i % cowns.Length], static (a, n) => { a.Balance++; return n; }, expected);
                if (got != expected)
                {
                    wrong.Enqueue($"client {client} step {i}: expected {expected}, got {got}");
                }

                await Runtime.WhenAsync(Cown.Read(cowns[(i + client) % cowns.Length]), static (_, _) => { }, 0);
            }
        })).ToArray();
        await Task.WhenAll(clients).Guard();
        Assert.Empty(wrong);
        long total = 0;
        foreach (Cown<Account> c in cowns)
        {
            total += await Runtime.WhenAsync(c, a => a.Balance).Guard();
        }

        Assert.Equal(80_000, total);
    }

    [Fact]
    public async Task AwaitingAPooledResultTwice_IsDetected()
    {
        var account = new Cown<Account>(new Account { Balance = 3 });
        ValueTask<long> result = Runtime.WhenAsync(account, a => a.Balance);
        Assert.Equal(3, await result.AsTask().Guard());

        // The behaviour went back to the pool and its version moved on: the stale ValueTask must not read anything.
#pragma warning disable CA2012 // Deliberate misuse under test.
        await Assert.ThrowsAsync<InvalidOperationException>(async () => await result);
#pragma warning restore CA2012
    }

    [Fact]
    public async Task StateOverloads_PassTheStateToTheBody()
    {
        var a = new Cown<Account>(new Account { Balance = 1 });
        var b = new Cown<Account>(new Account { Balance = 2 });
        Runtime.When(a, b, static (x, y, amount) => { x.Balance -= amount; y.Balance += amount; }, 1L);
        await Runtime.WhenAsync(a, static async (x, delta) => { await Task.Yield(); x.Balance += delta; }, 10L).Guard();
        long sum = await Runtime.WhenAsync(new[] { a, b }, static (all, scale) => all.Sum(x => x.Balance) * scale, 2L).Guard();
        Assert.Equal((10 + 3) * 2, sum);
        Assert.Equal("done", await Runtime.WhenAsync(static s => s, "done").Guard());
    }

    [Fact]
    public async Task ResultsFromManyThreads_EachGetTheirOwnValue()
    {
        var account = new Cown<Account>(new Account());
        long[] results = await Task.WhenAll(Enumerable.Range(0, 2_000).Select(_ => Runtime.WhenAsync(account, a => ++a.Balance).AsTask())).Guard();
        Assert.Equal(Enumerable.Range(1, 2_000).Select(i => (long)i), results.Order());
    }
}

public sealed class ResultsAndAsyncTestsOnThreadPool() : ResultsAndAsyncTests(BocDispatcher.ThreadPool);

public sealed class ResultsAndAsyncTestsOnBocScheduler() : ResultsAndAsyncTests(BocDispatcher.BocScheduler);
