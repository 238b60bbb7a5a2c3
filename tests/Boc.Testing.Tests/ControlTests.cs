using Boc.Testing.Tests.Zoo;

namespace Boc.Testing.Tests;

/// <summary>What runs under the run's control: the runtime's scheduler, Boc awaitables however awaited, timers.</summary>
public sealed class ControlTests
{
    [Fact]
    public async Task Tasks_on_the_runtimes_scheduler_are_steps_of_the_run()
    {
        BocTestRun run = await BocTest.ReplayAsync(BocTestStrategy.Random, 7, async rt =>
        {
            int scenarioThread = Environment.CurrentManagedThreadId;
            int taskThread = await Task.Factory.StartNew(
                () => Environment.CurrentManagedThreadId, CancellationToken.None, TaskCreationOptions.None, rt.Scheduler);
            Assert.Equal(scenarioThread, taskThread);
        });

        Assert.Contains(run.Trace, line => line.EndsWith("task on the runtime's scheduler", StringComparison.Ordinal));
    }

    [Fact]
    public async Task Awaiting_a_WhenAsync_result_with_ConfigureAwait_false_stays_on_the_controlled_thread()
    {
        await BocTest.ExploreAsync(50, async rt =>
        {
            int thread = Environment.CurrentManagedThreadId;
            var a = new Cown<Box>(new Box());
            rt.When(new Cown<Box>(new Box()), _ => { });
            int value = await rt.WhenAsync(a, x => ++x.Value).ConfigureAwait(false);
            Assert.Equal(1, value);
            Assert.Equal(thread, Environment.CurrentManagedThreadId);
        });
    }

    [Fact]
    public async Task A_leftover_periodic_timer_does_not_keep_a_finished_run_alive()
    {
        int ticks = 0;
        var options = new BocTestOptions { Iterations = 50, MaxSteps = 1000 };
        BocTestReport report = await BocTest.ExploreAsync(async rt =>
        {
            // Never disposed: once the scenario is done and nothing is pending, the run ends anyway.
            ITimer timer = rt.TimeProvider.CreateTimer(_ => ticks++, null, TimeSpan.FromSeconds(1), TimeSpan.FromSeconds(1));
            var a = new Cown<Box>(new Box());
            await rt.WhenAsync(a, x => x.Value++);
            GC.KeepAlive(timer);
        }, options);

        Assert.Equal(50, report.Iterations);
        Assert.True(report.LongestRun < 1000);
    }

    [Fact]
    public async Task A_timer_callback_that_throws_fails_the_run()
    {
        BocTestFailureException failure = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(5, async rt =>
        {
            using ITimer timer = rt.TimeProvider.CreateTimer(_ => throw new InvalidOperationException("tick"), null, TimeSpan.FromSeconds(1), Timeout.InfiniteTimeSpan);
            await Task.Delay(TimeSpan.FromSeconds(2), rt.TimeProvider);
        }));

        Assert.Equal(BocTestFailureKind.UnhandledBehaviourException, failure.Kind);
        Assert.Equal("tick", failure.InnerException!.Message);
        Assert.Contains(failure.Trace, line => line.Contains("timer t1 fires at virtual time 00:00:01", StringComparison.Ordinal));
    }
}
