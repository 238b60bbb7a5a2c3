using Boc.Testing.Tests.Zoo;

namespace Boc.Testing.Tests;

/// <summary>
/// Scopes under the controlled runtime: a scope's finish is a scheduling point (the code after it can run before or
/// after other ready work), its deadline is a virtual timer the strategy fires at any step, and the exploration covers
/// a cancellation landing between any two grants and between a member's enqueue and its registration. Each test
/// enumerates the outcomes over many schedules and checks both that every allowed one appears and that no forbidden
/// one does.
/// </summary>
public sealed class ScopeExplorationTests
{
    private static readonly BocTestStrategy[] EveryStrategy =
        [BocTestStrategy.Random, BocTestStrategy.Pct(depth: 1), BocTestStrategy.Pct(depth: 2), BocTestStrategy.Pct(depth: 3)];

    [Fact]
    public async Task The_finish_is_a_scheduling_point_and_never_comes_before_a_member()
    {
        string[] outcomes = await Outcomes(async (rt, log) =>
        {
            var a = new Cown<Box>(new Box());
            var b = new Cown<Box>(new Box());

            // Not a member: spawned before the scope begins.
            rt.When(b, _ => log.Add("outsider"));
            await using (rt.BeginScope())
            {
                rt.When(a, _ => rt.When(a, _ => log.Add("nested member")));
            }

            log.Add("finished");
        });

        // The nested member always comes before the finish; the outsider anywhere.
        Assert.Equal(["nested member,finished,outsider", "nested member,outsider,finished", "outsider,nested member,finished"], outcomes);
    }

    [Fact]
    public async Task A_cancellation_racing_the_grants_of_a_chain_withdraws_exactly_a_suffix_of_it()
    {
        string[] outcomes = await Outcomes(async (rt, log) =>
        {
            var chain = new Cown<Box>(new Box());
            var other = new Cown<Box>(new Box());
            BocScope? scope = null;

            // Outside the scope: cancels it whenever the strategy runs it (if that is before the scope begins, nothing).
            rt.When(other, _ => scope?.Cancel());
            scope = rt.BeginScope();
            for (int i = 1; i <= 3; i++)
            {
                int n = i;
                TrySpawn(() => rt.When(chain, _ => log.Add($"m{n}")));
            }

            await scope.DisposeAsync();

            // No cown is left held: a behaviour on the chain's cown runs in every schedule.
            await rt.WhenAsync(chain, _ => log.Add("after"));
        });

        // Never a gap: a withdrawn member lets the turn through in order, and all behind it are withdrawn too.
        Assert.Equal(["after", "m1,after", "m1,m2,after", "m1,m2,m3,after"], outcomes);
    }

    [Fact]
    public async Task A_deadline_is_a_virtual_timer_that_can_fire_between_any_two_grants()
    {
        var outcomes = new SortedSet<string>(StringComparer.Ordinal);
        int timeouts = 0;
        foreach (BocTestStrategy strategy in EveryStrategy)
        {
            await BocTest.ExploreAsync(
                async rt =>
                {
                    var log = new List<string>();
                    var chain = new Cown<Box>(new Box());
                    try
                    {
                        await using (rt.BeginScope(TimeSpan.FromMilliseconds(5)))
                        {
                            for (int i = 1; i <= 3; i++)
                            {
                                int n = i;
                                TrySpawn(() => rt.When(chain, _ => log.Add($"m{n}")));
                            }
                        }
                    }
                    catch (TimeoutException)
                    {
                        log.Add("timeout");
                        Interlocked.Increment(ref timeouts);
                    }

                    outcomes.Add(string.Join(",", log));
                },
                new BocTestOptions { Iterations = 300, Strategies = [strategy] });
        }

        // A prefix of the chain ran, and the finish times out exactly when the deadline passed before the scope finished,
        // whatever it cost: after every member ran but before the finish is a timeout too, after the finish is none.
        // Every one of them is reached.
        Assert.Equal(["m1,m2,m3", "m1,m2,m3,timeout", "m1,m2,timeout", "m1,timeout", "timeout"], outcomes);
        Assert.True(timeouts > 0);
    }

    [Fact]
    public async Task A_member_spawned_while_the_scope_is_canceled_never_starts_after_the_cancellation()
    {
        // A member's body spawns a follow-up behind a busy cown while another behaviour cancels the scope. The spawn
        // point after the enqueue lets the cancellation run between the follow-up's enqueue and its registration for
        // the scope's cancellation, so the walk does not see it. Whatever the schedule, the follow-up never starts
        // after the cancellation.
        int followUpsRan = 0;
        int followUpsWithdrawn = 0;
        foreach (BocTestStrategy strategy in EveryStrategy)
        {
            await BocTest.ExploreAsync(
                async rt =>
                {
                    var events = new List<string>();
                    var work = new Cown<Box>(new Box());
                    var busy = new Cown<Box>(new Box());
                    var other = new Cown<Box>(new Box());
                    BocScope? scope = null;
                    rt.When(busy, async _ => await Task.Yield());   // keeps the follow-up queued for a step or two
                    rt.When(other, _ =>
                    {
                        if (scope is not null)
                        {
                            scope.Cancel();
                            events.Add("canceled");
                        }
                    });
                    scope = rt.BeginScope();
                    TrySpawn(() => rt.When(work, _ =>
                    {
                        try
                        {
                            rt.When(busy, _ => events.Add("follow-up"));
                            events.Add("spawned");
                        }
                        catch (OperationCanceledException)
                        {
                            events.Add("refused");
                        }
                    }));
                    await scope.DisposeAsync();
                    await rt.WaitForQuiescenceAsync();

                    int ran = events.IndexOf("follow-up");
                    if (ran >= 0)
                    {
                        Interlocked.Increment(ref followUpsRan);
                        int canceled = events.IndexOf("canceled");
                        Assert.False(canceled >= 0 && canceled < ran, $"a member started after its scope was canceled: {string.Join(",", events)}");
                    }
                    else if (events.Contains("spawned"))
                    {
                        Interlocked.Increment(ref followUpsWithdrawn);
                    }
                },
                new BocTestOptions { Iterations = 300, Strategies = [strategy] });
        }

        Assert.True(followUpsRan > 0 && followUpsWithdrawn > 0, $"ran {followUpsRan}, withdrawn {followUpsWithdrawn}");
    }

    [Fact]
    public async Task A_member_awaiting_its_own_scope_is_reported_instead_of_a_deadlock()
    {
        BocTestFailureException failure = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(20, async rt =>
        {
            var a = new Cown<Box>(new Box());
            BocScope scope = rt.BeginScope();
            await rt.WhenAsync(a, async _ => await scope.FinishAsync());
            await scope.FinishAsync();
        }));
        Assert.Equal(BocTestFailureKind.ScenarioFailed, failure.Kind);
        Assert.IsType<InvalidOperationException>(failure.InnerException);
    }

    /// <summary>Spawns, unless the scope was canceled first (the spawn is then refused, which the outcome shows).</summary>
    private static void TrySpawn(Action spawn)
    {
        try
        {
            spawn();
        }
        catch (OperationCanceledException)
        {
        }
    }

    /// <summary>Every final log over 300 schedules of each strategy (far more than the allowed orders of these programs).</summary>
    private static async Task<string[]> Outcomes(Func<BocRuntime, List<string>, Task> program)
    {
        var outcomes = new SortedSet<string>(StringComparer.Ordinal);
        foreach (BocTestStrategy strategy in EveryStrategy)
        {
            await BocTest.ExploreAsync(
                async rt =>
                {
                    var log = new List<string>();
                    await program(rt, log);
                    await rt.WaitForQuiescenceAsync();
                    outcomes.Add(string.Join(",", log));
                },
                new BocTestOptions { Iterations = 300, Strategies = [strategy] });
        }

        return [.. outcomes];
    }
}
