using Xunit.Abstractions;
using Gate = Boc.Tests.BackpressureTests.Gate;

namespace Boc.Tests;

/// <summary>
/// Cancelling spawns that wait for room on a full runtime (<see cref="BocFullMode.Wait"/>): a blocked
/// <c>WhenAsync(…, cancellationToken)</c> returns as soon as its token is canceled, with a canceled awaitable, having
/// enqueued and counted nothing; and the waiters that were not canceled are all admitted as room appears (a canceled
/// waiter must not take a wake-up with it). <see cref="BocRuntime.PendingCount"/> and the bodies' run counts are the
/// oracle; each case is seeded and says its seed on failure.
/// </summary>
public sealed class BackpressureWaitCancellationTests(ITestOutputHelper output)
{
    public static TheoryData<int> Seeds() => [41, 42, 43, 44];

    [Theory]
    [MemberData(nameof(Seeds))]
    public async Task CanceledWaiters_CompleteCanceled_CountNothing_AndEveryOtherWaiterIsAdmitted(int seed)
    {
        var random = new Random(seed);
        int bound = random.Next(1, 3);
        int count = random.Next(3, 7);

        // Which waiters are canceled and what kind of waiter each is, by the seed; but at least one blocked spawn is
        // canceled, and at least one waiter is kept.
        bool[] cancel = Enumerable.Range(0, count).Select(_ => random.Next(3) == 0).ToArray();
        Kind[] kinds = Enumerable.Range(0, count).Select(_ => (Kind)random.Next(3)).ToArray();
        int canceledSpawn = random.Next(count);
        cancel[canceledSpawn] = true;
        kinds[canceledSpawn] = (Kind)random.Next(2);
        cancel[(canceledSpawn + 1 + random.Next(count - 1)) % count] = false;
        string context = $"seed={seed} bound={bound} waiters={string.Join(",", Enumerable.Range(0, count).Select(i => $"{kinds[i]}{(cancel[i] ? "(canceled)" : string.Empty)}"))}";
        output.WriteLine(context);

        var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2, MaxPendingBehaviours = bound });
        await using var bounded = runtime.DrainOnExit();
        using var gate = new Gate();
        var gated = new Cown<List<int>>([]);
        var target = new Cown<List<int>>([]);
        BackpressureTests.FillBehindGate(runtime, gated, gate, bound);

        var runs = new int[count];
        var sources = Enumerable.Range(0, count).Select(_ => new CancellationTokenSource()).ToArray();
        var outcomes = new Task[count];
        var returned = new ManualResetEventSlim[count];
        var threads = new Thread?[count];
        for (int i = 0; i < count; i++)
        {
            int id = i;
            CancellationToken token = sources[id].Token;
            returned[id] = new ManualResetEventSlim();
            void Body(List<int> l)
            {
                Interlocked.Increment(ref runs[id]);
                l.Add(id);
            }

            switch (kinds[id])
            {
                case Kind.BlockedWhenAsync:
                case Kind.BlockedWhenAsyncWithResult:
                    // A blocking spawn needs a thread of its own (it must not hold a pool thread the signal needs).
                    var outcome = new TaskCompletionSource<Task>(TaskCreationOptions.RunContinuationsAsynchronously);
                    outcomes[id] = outcome.Task.Unwrap();
                    threads[id] = new Thread(() =>
                    {
                        try
                        {
                            outcome.SetResult(kinds[id] == Kind.BlockedWhenAsync
                                ? runtime.WhenAsync(target, Body, token).AsTask()
                                : runtime.WhenAsync(target, l => { Body(l); return id; }, token).AsTask());
                        }
                        catch (Exception e)
                        {
                            // After a failure the drain at the end disposes the runtime under a waiter still blocked.
                            outcome.SetException(e);
                        }
                        finally
                        {
                            returned[id].Set();
                        }
                    })
                    { IsBackground = true };
                    threads[id]!.Start();
                    break;
                default:
                    // The asynchronous producer's loop: TryWhen, and WaitForRoomAsync while the runtime is full.
                    outcomes[id] = Task.Run(async () =>
                    {
                        try
                        {
                            while (!runtime.TryWhen(target, Body))
                            {
                                await runtime.WaitForRoomAsync(token);
                            }
                        }
                        finally
                        {
                            returned[id].Set();
                        }
                    });
                    break;
            }
        }

        // Every waiter asleep (or about to be) on the full runtime; only then cancel, so the wait itself is canceled.
        await WaitUntil(() => runtime.RoomWaiters == count, $"{context}: not every waiter started waiting; waiting {runtime.RoomWaiters}");
        for (int i = 0; i < count; i++)
        {
            if (cancel[i])
            {
                sources[i].Cancel();
            }
        }

        // The gate is still shut, so there is no room: a canceled waiter returns only because it saw its token.
        for (int i = 0; i < count; i++)
        {
            if (!cancel[i])
            {
                continue;
            }

            Assert.True(returned[i].Wait(Progress.Limit), $"{context}: waiter {i} ({kinds[i]}) did not return when its token was canceled");
            OperationCanceledException canceled = await Assert.ThrowsAnyAsync<OperationCanceledException>(() => outcomes[i].Guard());
            Assert.Equal(sources[i].Token, canceled.CancellationToken);
            if (kinds[i] != Kind.ProducerLoop)
            {
                Assert.IsType<BehaviourWithdrawnException>(canceled);
            }
        }

        int kept = cancel.Count(c => !c);
        Assert.Equal(bound, runtime.PendingCount);
        await WaitUntil(() => runtime.RoomWaiters == kept, $"{context}: {runtime.RoomWaiters} waiters left, expected {kept}");
        for (int i = 0; i < count; i++)
        {
            Assert.False(!cancel[i] && returned[i].IsSet, $"{context}: waiter {i} ({kinds[i]}) returned while the runtime was full");
        }

        // Room appears one behaviour at a time: every waiter that was not canceled must be admitted (a lost wake-up
        // leaves one asleep), and run exactly once; no canceled one ever runs.
        gate.Set();
        for (int i = 0; i < count; i++)
        {
            if (!cancel[i])
            {
                Assert.True(returned[i].Wait(Progress.Limit), $"{context}: waiter {i} ({kinds[i]}) was never admitted (a lost wake-up?); pending {runtime.PendingCount}");
                await outcomes[i].Guard();
            }
        }

        await runtime.WaitForQuiescenceAsync().Guard();
        for (int i = 0; i < count; i++)
        {
            Assert.True(runs[i] == (cancel[i] ? 0 : 1), $"{context}: waiter {i} ({kinds[i]}) ran {runs[i]} times");
        }

        int[] order = await runtime.WhenAsync(target, l => l.ToArray()).Guard();
        Assert.Equal(Enumerable.Range(0, count).Where(i => !cancel[i]).Order(), order.Order());
        Assert.Equal(0, runtime.PendingCount);
        foreach (CancellationTokenSource source in sources)
        {
            source.Dispose();
        }
    }

    [Fact]
    public async Task TokenCanceledBeforeAFullRuntimeIsReached_NeitherWaitsNorCounts()
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2, MaxPendingBehaviours = 1 });
        await using var drain = runtime.DrainOnExit();
        using var gate = new Gate();
        var cown = new Cown<List<int>>([]);
        BackpressureTests.FillBehindGate(runtime, cown, gate, 1);
        using var canceled = new CancellationTokenSource();
        canceled.Cancel();

        // On this thread: a spawn that waited would block the test (and fail it at the time limit) instead.
        ValueTask<int> spawn = runtime.WhenAsync(cown, l => l.Count, canceled.Token);
        Assert.True(spawn.IsCanceled);
        await Assert.ThrowsAsync<BehaviourWithdrawnException>(() => spawn.Guard());
        Assert.Equal(1, runtime.PendingCount);
        gate.Set();
    }

    private static async Task WaitUntil(Func<bool> condition, string message)
    {
        using var limit = new CancellationTokenSource(Progress.Limit);
        while (!condition())
        {
            try
            {
                await Task.Delay(1, limit.Token);
            }
            catch (OperationCanceledException)
            {
                Assert.Fail(message);
            }
        }
    }

    private enum Kind
    {
        BlockedWhenAsync,
        BlockedWhenAsyncWithResult,
        ProducerLoop,
    }
}
