using System.Collections.Concurrent;
using Boc.Testing.Tests.Zoo;

namespace Boc.Testing.Tests;

/// <summary>The explorer's contract: what counts as a failure, what a report says, determinism, bad input.</summary>
public sealed class ExplorerTests
{
    [Fact]
    public async Task An_unhandled_body_exception_fails_the_run()
    {
        BocTestFailureException failure = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(10, async rt =>
        {
            var c = new Cown<Box>(new Box());
            rt.When(c, _ => throw new InvalidOperationException("boom"));
            await rt.WaitForQuiescenceAsync();
        }));

        Assert.Equal(BocTestFailureKind.UnhandledBehaviourException, failure.Kind);
        Assert.Equal("boom", failure.InnerException!.Message);
        Assert.Equal(0, failure.Iteration);
    }

    [Fact]
    public async Task A_behaviour_that_respawns_forever_hits_the_step_limit()
    {
        var options = new BocTestOptions { Iterations = 1, MaxSteps = 500 };
        BocTestFailureException failure = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(rt =>
        {
            var c = new Cown<Box>(new Box());
            void Again(Box b)
            {
                b.Value++;
                rt.When(c, Again);
            }

            rt.When(c, Again);
            return Task.CompletedTask;
        }, options));

        Assert.Equal(BocTestFailureKind.StepLimitExceeded, failure.Kind);
        Assert.Equal(500, failure.Trace.Count);
    }

    [Fact]
    public async Task The_failure_message_names_strategy_seed_replay_call_and_the_schedule()
    {
        BocTestFailureException failure = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(1000, DisjointOrder.Case.Buggy));

        Assert.Contains($"seed {failure.Seed}", failure.Message, StringComparison.Ordinal);
        Assert.Contains(failure.Strategy.ToString()!, failure.Message, StringComparison.Ordinal);
        Assert.Contains($"seed: {failure.Seed}, scenario)", failure.Message, StringComparison.Ordinal);
        Assert.Contains("step 1 (1 of 1 ready): scenario starts", failure.Message, StringComparison.Ordinal);
        Assert.Contains(failure.Trace, line => System.Text.RegularExpressions.Regex.IsMatch(line, @"^step \d+ \(\d+ of \d+ ready\): behaviour b\d+ \[[^\]]+\] runs on c\d+$"));
        Assert.All(failure.Trace, line => Assert.Contains(line, failure.Message, StringComparison.Ordinal));
    }

    [Fact]
    public void A_passing_replay_returns_its_schedule_and_is_deterministic()
    {
        static async Task Transfers(BocRuntime rt)
        {
            var accounts = Enumerable.Range(0, 8).Select(_ => new Cown<Box>(new Box { Value = 100 })).ToArray();
            foreach ((int from, int to) in new[] { (0, 1), (2, 3), (4, 5), (6, 7), (1, 2), (5, 6) })
            {
                rt.When(accounts[from], accounts[to], (f, t) =>
                {
                    f.Value -= 10;
                    t.Value += 10;
                });
            }

            await rt.WaitForQuiescenceAsync();
        }

        var traces = new HashSet<string>();
        for (int seed = 0; seed < 20; seed++)
        {
            BocTestRun a = BocTest.Replay(BocTestStrategy.Random, seed, Transfers);
            BocTestRun b = BocTest.Replay(BocTestStrategy.Random, seed, Transfers);
            Assert.Equal(a.Trace, b.Trace);
            Assert.Equal(seed, a.Seed);
            traces.Add(string.Join("\n", a.Trace));
        }

        // Different seeds explore different schedules (20 seeds, many possible orders: all equal would mean no choice).
        Assert.True(traces.Count > 5, $"only {traces.Count} distinct schedules from 20 seeds");
    }

    [Fact]
    public async Task The_report_counts_iterations_and_steps()
    {
        static async Task Scenario(BocRuntime rt)
        {
            var c = new Cown<Box>(new Box());
            rt.When(c, b => b.Value++);
            await rt.WaitForQuiescenceAsync();
        }

        BocTestReport report = await BocTest.ExploreAsync(Scenario, new BocTestOptions { Iterations = 50, Strategies = [BocTestStrategy.Random] });

        // Iteration i is seed i: its replay has the same schedule, so the steps add up to the same total.
        int[] steps = Enumerable.Range(0, 50).Select(seed => BocTest.Replay(BocTestStrategy.Random, seed, Scenario).Trace.Count).ToArray();
        Assert.Equal(50, report.Iterations);
        Assert.Equal(steps.Max(), report.LongestRun);
        Assert.Equal(steps.Sum(), report.TotalSteps);

        // Scenario start, the spawn (a scheduling point), the behaviour, WaitForQuiescenceAsync's own continuation, the
        // scenario's continuation; a schedule that pauses the scenario at the spawn differs.
        Assert.Contains(5, steps);
    }

    [Fact]
    public async Task Steps_run_one_at_a_time_even_when_a_body_is_paused_at_a_spawn()
    {
        // Bodies that spawn may be paused there while other steps run on other threads; still, only one piece of code
        // of the run executes at any moment. Each segment between two spawns counts itself in and out.
        int inside = 0;
        int overlaps = 0;
        var threads = new ConcurrentDictionary<int, bool>();
        void Segment()
        {
            if (Interlocked.Increment(ref inside) != 1)
            {
                Interlocked.Increment(ref overlaps);
            }

            threads[Environment.CurrentManagedThreadId] = true;
            Thread.Yield();
            Interlocked.Decrement(ref inside);
        }

        await BocTest.ExploreAsync(50, async rt =>
        {
            var cowns = Enumerable.Range(0, 4).Select(_ => new Cown<Box>(new Box())).ToArray();
            foreach (Cown<Box> c in cowns)
            {
                rt.When(c, _ =>
                {
                    Segment();
                    rt.When(cowns[0], _ => Segment());
                    Segment();
                    rt.When(cowns[1], _ => Segment());
                    Segment();
                });
                Segment();
            }

            await rt.WaitForQuiescenceAsync();
        });

        Assert.Equal(0, overlaps);
        Assert.True(threads.Count > 1, "no step was ever paused at a spawn (all ran on one thread)");
    }

    [Fact]
    public void A_run_that_ends_while_bodies_are_paused_at_spawns_unwinds_them_and_replays_exactly()
    {
        // A body that spawns twice may be paused at a spawn when another behaviour's exception ends the run: the paused
        // body is unwound (its spawn throws), its finally runs, and the next run starts clean. Replays stay exact.
        int unwound = 0;
        Task Scenario(BocRuntime rt)
        {
            var a = new Cown<Box>(new Box());
            var b = new Cown<Box>(new Box());
            rt.When(a, _ =>
            {
                bool done = false;
                try
                {
                    rt.When(b, _ => { });
                    rt.When(b, _ => { });
                    done = true;
                }
                finally
                {
                    if (!done)
                    {
                        Interlocked.Increment(ref unwound);
                    }
                }
            });
            rt.When(new Cown<Box>(new Box()), _ => throw new InvalidOperationException("boom"));
            return Task.CompletedTask;
        }

        for (int seed = 0; seed < 40; seed++)
        {
            BocTestFailureException first = Assert.Throws<BocTestFailureException>(() => BocTest.Replay(BocTestStrategy.Random, seed, Scenario));
            BocTestFailureException second = Assert.Throws<BocTestFailureException>(() => BocTest.Replay(BocTestStrategy.Random, seed, Scenario));
            Assert.Equal(BocTestFailureKind.UnhandledBehaviourException, first.Kind);
            Assert.Equal("boom", first.InnerException!.Message);
            Assert.Equal(first.Trace, second.Trace);
        }

        // Some of those runs ended with the body paused (otherwise this test would not test the unwinding).
        Assert.True(unwound > 0, "no run ended with a body paused at a spawn");
    }

    [Fact]
    public async Task Bad_input_is_rejected_before_anything_runs()
    {
        await Assert.ThrowsAsync<ArgumentNullException>(() => BocTest.ExploreAsync(1, null!));
        await Assert.ThrowsAsync<ArgumentNullException>(() => BocTest.ExploreAsync(_ => Task.CompletedTask, null!));
        await Assert.ThrowsAsync<ArgumentOutOfRangeException>(() => BocTest.ExploreAsync(0, _ => Task.CompletedTask));
        Assert.Throws<ArgumentNullException>(() => BocTest.Replay(null!, 1, _ => Task.CompletedTask));
        Assert.Throws<ArgumentOutOfRangeException>(() => BocTestStrategy.Pct(depth: 0));
        Assert.Throws<ArgumentOutOfRangeException>(() => BocTestStrategy.Pct(stepBound: -1));
        var options = new BocTestOptions();
        Assert.Throws<ArgumentException>(() => options.Strategies = []);
        Assert.Throws<ArgumentOutOfRangeException>(() => options.MaxSteps = 0);
        Assert.Throws<ArgumentOutOfRangeException>(() => options.UncontrolledWorkTimeout = TimeSpan.FromSeconds(-1));
    }
}
