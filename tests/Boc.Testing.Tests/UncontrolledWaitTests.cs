using System.Net;
using System.Net.Sockets;

namespace Boc.Testing.Tests;

/// <summary>
/// A run stuck on work outside its control (a timer on the system clock, the thread pool, I/O) fails as
/// <see cref="BocTestFailureKind.UncontrolledWait"/>, naming what was awaited and where, not as a deadlock; correct code
/// on the run's clock and behaviours is not reported; real deadlocks still are. No test here waits for real time: every
/// uncontrolled wait below never completes until the test releases it after the run.
/// </summary>
public sealed class UncontrolledWaitTests
{
    private sealed class Box
    {
        public int Value;
    }

    [Fact]
    public async Task A_body_awaiting_Task_Delay_on_the_system_clock_is_an_uncontrolled_wait_named_with_its_body()
    {
        using var release = new CancellationTokenSource();
        BocTestFailureException failure = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(20, async rt =>
        {
            var c = new Cown<Box>(new Box());
            rt.When(c, async b =>
            {
                await Task.Delay(TimeSpan.FromHours(1), release.Token);   // the bug: not rt.TimeProvider
                b.Value++;
            });
            await rt.WaitForQuiescenceAsync();
        }));
        await release.CancelAsync();

        Assert.Equal(BocTestFailureKind.UncontrolledWait, failure.Kind);
        Assert.Contains("b1's body: a lambda in UncontrolledWaitTests.A_body_awaiting_Task_Delay_on_the_system_clock", failure.Message, StringComparison.Ordinal);
        Assert.Contains("awaits Task.Delay on the system clock", failure.Message, StringComparison.Ordinal);
        Assert.Contains("UncontrolledWait in iteration 0", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_wait_deep_in_helpers_names_every_method_on_the_way()
    {
        using var release = new CancellationTokenSource();
        BocTestFailureException failure = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(1, async rt =>
        {
            var c = new Cown<Box>(new Box());
            int value = await rt.WhenAsync(c, async b => await Pricing.QuoteAsync(b.Value, release.Token));
            Assert.Equal(1, value);
        }));
        await release.CancelAsync();

        Assert.Equal(BocTestFailureKind.UncontrolledWait, failure.Kind);
        Assert.Contains("Pricing.QuoteAsync → Pricing.RateAsync awaits Task.Delay on the system clock", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_scenario_awaiting_Task_Run_on_the_thread_pool_is_an_uncontrolled_wait()
    {
        using var gate = new ManualResetEventSlim();
        BocTestFailureException failure = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(1, async rt =>
        {
            await Task.Run(() => gate.Wait());
        }));
        gate.Set();

        Assert.Equal(BocTestFailureKind.UncontrolledWait, failure.Kind);
        Assert.Contains("the scenario: a lambda in UncontrolledWaitTests.A_scenario_awaiting_Task_Run", failure.Message, StringComparison.Ordinal);
        Assert.Contains("awaits a task started with Task.Run on the thread pool", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_body_awaiting_an_async_Task_Run_is_an_uncontrolled_wait()
    {
        var gate = new TaskCompletionSource();
        BocTestFailureException failure = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(1, async rt =>
        {
            var c = new Cown<Box>(new Box());
            await rt.WhenAsync(c, async b => await Task.Run(async () => await gate.Task));
        }));
        gate.SetResult();

        Assert.Equal(BocTestFailureKind.UncontrolledWait, failure.Kind);
        Assert.Contains("b1's body", failure.Message, StringComparison.Ordinal);
        Assert.Contains("awaits a task started with Task.Run on the thread pool", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_body_awaiting_a_socket_is_an_uncontrolled_wait_on_I_O()
    {
        using var listener = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        listener.Bind(new IPEndPoint(IPAddress.Loopback, 0));
        listener.Listen(1);
        using var client = new Socket(AddressFamily.InterNetwork, SocketType.Stream, ProtocolType.Tcp);
        await client.ConnectAsync(listener.LocalEndPoint!);
        using Socket server = await listener.AcceptAsync();

        BocTestFailureException failure = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(1, async rt =>
        {
            var c = new Cown<Box>(new Box());
            rt.When(c, async b => b.Value = await client.ReceiveAsync(new byte[16], SocketFlags.None));   // nothing is ever sent
            await rt.WaitForQuiescenceAsync();
        }));

        Assert.Equal(BocTestFailureKind.UncontrolledWait, failure.Kind);
        Assert.Contains("b1's body", failure.Message, StringComparison.Ordinal);
        Assert.Contains("awaits I/O (System.Net.Sockets.", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Correct_code_on_the_runs_clock_and_behaviours_is_never_reported()
    {
        BocTestReport report = await BocTest.ExploreAsync(200, async rt =>
        {
            var account = new Cown<Box>(new Box());
            var audit = new Cown<Box>(new Box());
            rt.When(account, async a =>
            {
                await Task.Delay(TimeSpan.FromHours(1), rt.TimeProvider);
                a.Value += await rt.WhenAsync(audit, x => x.Value + 1);
            });
            await rt.WhenAsync(audit, async x =>
            {
                await Task.Yield();
                await Task.Delay(TimeSpan.FromSeconds(30), rt.TimeProvider);
                x.Value = 10;
            });
            await rt.WaitForQuiescenceAsync();
            Assert.InRange(await rt.WhenAsync(account, a => a.Value), 1, 11);
        });

        Assert.Equal(200, report.Iterations);
    }

    [Fact]
    public async Task Awaiting_each_other_is_still_a_deadlock_and_a_code_completed_task_too()
    {
        BocTestFailureException mutual = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(1000, Zoo.MutualAwait.Case.Buggy));
        BocTestFailureException never = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(1, async rt =>
        {
            var c = new Cown<Box>(new Box());
            var woken = new TaskCompletionSource();   // nothing in the run completes it
            await rt.WhenAsync(c, async _ => await woken.Task);
        }));

        Assert.Equal(BocTestFailureKind.Deadlock, mutual.Kind);
        Assert.Equal(BocTestFailureKind.Deadlock, never.Kind);
    }

    [Fact]
    public async Task With_an_uncontrolled_work_timeout_the_run_waits_for_such_work_instead()
    {
        BocTestReport report = await BocTest.ExploreAsync(
            async rt =>
            {
                var c = new Cown<Box>(new Box());
                int answer = await Task.Run(() => 41);
                Assert.Equal(42, await rt.WhenAsync(c, b => b.Value + answer + 1));
            },
            new BocTestOptions { Iterations = 5, UncontrolledWorkTimeout = TimeSpan.FromMinutes(1) });

        Assert.Equal(5, report.Iterations);
    }

    private static class Pricing
    {
        public static async Task<int> QuoteAsync(int units, CancellationToken token) => units + await RateAsync(token);

        private static async Task<int> RateAsync(CancellationToken token)
        {
            await Task.Delay(TimeSpan.FromHours(1), token);
            return 1;
        }
    }
}
