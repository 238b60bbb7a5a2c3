using Boc.Testing.Tests.Zoo;
using Boc.Tests;
using static Boc.Behaviours;

namespace Boc.Testing.Tests;

/// <summary>
/// Code under test that uses the static <see cref="Behaviours"/> (that is, <see cref="BocRuntime.Default"/>) runs on the
/// controlled runtime inside a run, and nowhere else: tests running in parallel keep the real default runtime.
/// </summary>
public sealed class DefaultRuntimeTests
{
    [Fact]
    public async Task Static_spawns_in_a_scenario_and_in_its_bodies_run_on_the_controlled_runtime()
    {
        await BocTest.ExploreAsync(20, async rt =>
        {
            Assert.Same(rt, BocRuntime.Default);
            var c = new Cown<Box>(new Box());
            BocRuntime? inBody = null;
            BocRuntime? afterAwait = null;
            When(c, async _ =>
            {
                inBody = BocRuntime.Default;
                await Task.Yield();
                afterAwait = BocRuntime.Default;
            });
            await WaitForQuiescenceAsync();
            Assert.Same(rt, inBody);
            Assert.Same(rt, afterAwait);
        });
    }

    [Fact]
    public async Task A_bug_in_code_that_uses_the_static_Behaviours_is_found_and_its_fix_passes()
    {
        BocTestFailureException found = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(1000, _ => Log(ordered: false)));
        Assert.Equal(BocTestFailureKind.ScenarioFailed, found.Kind);
        Assert.IsType<InvalidOperationException>(found.InnerException);
        Assert.Throws<BocTestFailureException>(() => BocTest.Replay(found.Strategy, found.Seed, _ => Log(ordered: false)));

        await BocTest.ExploreAsync(1000, _ => Log(ordered: true));
    }

    [Fact]
    public async Task A_test_running_alongside_an_exploration_keeps_the_real_default_runtime()
    {
        BocRuntime real = BocRuntime.Default;
        using var exploring = new CancellationTokenSource();
        int checks = 0;

        // Outside the run: the real default runtime, all the while the exploration (in which Default is redirected) runs.
        Task outside = Task.Run(async () =>
        {
            var c = new Cown<Box>(new Box());
            while (!exploring.IsCancellationRequested || checks == 0)
            {
                Assert.Same(real, BocRuntime.Default);
                int seen = await WhenAsync(c, v => ++v.Value);
                Assert.Equal(++checks, seen);
            }
        });

        await BocTest.ExploreAsync(300, async rt =>
        {
            var c = new Cown<Box>(new Box());
            When(c, v => v.Value++);
            await WaitForQuiescenceAsync();
            Assert.Same(rt, BocRuntime.Default);
        });
        await exploring.CancelAsync();
        await outside.WaitAsync(Progress.Limit);
        Assert.Same(real, BocRuntime.Default);
        Assert.True(checks > 0);
    }

    // Two updates on disjoint cowns, each logging in a behaviour it spawns: unordered, unless the log is taken with the
    // update (the zoo's DisjointOrder, written with the static Behaviours).
    private static async Task Log(bool ordered)
    {
        var a = new Cown<Box>(new Box());
        var b = new Cown<Box>(new Box());
        var log = new Cown<List<string>>([]);
        if (ordered)
        {
            When(a, log, (_, l) => l.Add("a"));
            When(b, log, (_, l) => l.Add("b"));
        }
        else
        {
            When(a, _ => When(log, l => l.Add("a")));
            When(b, _ => When(log, l => l.Add("b")));
        }

        await WaitForQuiescenceAsync();
        string order = await WhenAsync(log, l => string.Join(",", l));
        if (order != "a,b")
        {
            throw new InvalidOperationException($"The log reads {order}.");
        }
    }
}
