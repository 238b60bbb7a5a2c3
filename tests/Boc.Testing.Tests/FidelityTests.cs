using Boc.Testing.Tests.Zoo;
using Boc.Tests;

namespace Boc.Testing.Tests;

/// <summary>
/// The controlled runtime allows no schedule the real runtime forbids (the core suite's oracle over random programs,
/// under every strategy), and produces every schedule the real one allows (small programs enumerate exactly their
/// allowed outcomes).
/// </summary>
public sealed class FidelityTests
{
    private static readonly BocTestStrategy[] EveryStrategy =
        [BocTestStrategy.Random, BocTestStrategy.Pct(depth: 1), BocTestStrategy.Pct(depth: 2), BocTestStrategy.Pct(depth: 3)];

    [Fact]
    public async Task Random_programs_keep_cown_order_and_exclusivity_under_every_strategy()
    {
        foreach (BocTestStrategy strategy in EveryStrategy)
        {
            for (int program = 0; program < 15; program++)
            {
                var options = new BocTestOptions { Iterations = 25, Strategies = [strategy], Seed = program * 1000 };
                int programSeed = program;
                await BocTest.ExploreAsync(rt => RandomProgram(rt, programSeed), options);
            }
        }
    }

    [Fact]
    public async Task The_oracle_check_can_fail()
    {
        // The same harness with a body that breaks exclusivity on purpose (a second, unsynchronised access stamped inside
        // another behaviour's window) must be reported: otherwise the test above could not fail.
        BocTestFailureException failure = await Assert.ThrowsAsync<BocTestFailureException>(() => BocTest.ExploreAsync(50, async rt =>
        {
            var clock = new LogicalClock();
            var accesses = new List<Access>();
            var a = new Cown<Box>(new Box());
            var b = new Cown<Box>(new Box());
            rt.When(a, async _ =>
            {
                long start = clock.Tick();
                await Task.Yield();
                accesses.Add(new Access(1, 0, true, 0, 0, start, clock.Tick()));
            });

            // Claims cown 0 while holding only b.
            rt.When(b, async _ =>
            {
                long start = clock.Tick();
                await Task.Yield();
                accesses.Add(new Access(2, 0, true, 0, 0, start, clock.Tick()));
            });
            await rt.WaitForQuiescenceAsync();
            List<string> violations = Oracle.Check(accesses);
            Assert.Empty(violations);
        }));
        Assert.Equal(BocTestFailureKind.ScenarioFailed, failure.Kind);
    }

    [Fact]
    public async Task Disjoint_behaviours_run_in_either_order_and_a_joint_one_after_both() =>
        Assert.Equal(["A,B,C", "B,A,C"], await Outcomes(rt =>
        {
            var log = new List<string>();
            var a = new Cown<Box>(new Box());
            var b = new Cown<Box>(new Box());
            rt.When(a, _ => log.Add("A"));
            rt.When(b, _ => log.Add("B"));
            rt.When(a, b, (_, _) => log.Add("C"));
            return log;
        }));

    [Fact]
    public async Task Readers_between_two_writers_run_in_either_order_but_never_around_a_writer() =>
        Assert.Equal(["w1,r1,r2,w2", "w1,r2,r1,w2"], await Outcomes(rt =>
        {
            var log = new List<string>();
            var a = new Cown<Box>(new Box());
            rt.When(a, _ => log.Add("w1"));
            rt.When(Cown.Read(a), _ => log.Add("r1"));
            rt.When(Cown.Read(a), _ => log.Add("r2"));
            rt.When(a, _ => log.Add("w2"));
            return log;
        }));

    [Fact]
    public async Task Async_bodies_on_disjoint_cowns_interleave_in_every_way_at_their_awaits() =>
        Assert.Equal(
            ["a1,a2,b1,b2", "a1,b1,a2,b2", "a1,b1,b2,a2", "b1,a1,a2,b2", "b1,a1,b2,a2", "b1,b2,a1,a2"],
            await Outcomes(rt =>
            {
                var log = new List<string>();
                foreach (string name in new[] { "a", "b" })
                {
                    rt.When(new Cown<Box>(new Box()), async _ =>
                    {
                        log.Add(name + "1");
                        await Task.Yield();
                        log.Add(name + "2");
                    });
                }

                return log;
            }));

    [Fact]
    public async Task An_async_body_keeps_its_cown_across_awaits_while_others_run() =>
        Assert.Equal(["x1,x2,y,z", "x1,x2,z,y", "x1,z,x2,y", "z,x1,x2,y"], await Outcomes(rt =>
        {
            var log = new List<string>();
            var a = new Cown<Box>(new Box());
            rt.When(a, async _ =>
            {
                log.Add("x1");
                await Task.Yield();
                log.Add("x2");
            });
            rt.When(a, _ => log.Add("y"));
            rt.When(new Cown<Box>(new Box()), _ => log.Add("z"));
            return log;
        }));

    [Fact]
    public async Task A_nested_spawn_is_ordered_after_an_earlier_spawn_on_the_same_cown() =>
        Assert.Equal(["c2,p,c1", "p,c2,c1"], await Outcomes(rt =>
        {
            var log = new List<string>();
            var a = new Cown<Box>(new Box());
            var b = new Cown<Box>(new Box());
            rt.When(a, _ =>
            {
                log.Add("p");
                rt.When(b, _ => log.Add("c1"));
            });
            rt.When(b, _ => log.Add("c2"));
            return log;
        }));

    [Fact]
    public async Task A_timeout_races_a_behaviour_only_when_the_behaviour_can_finish_first()
    {
        // The caller arms a one-second (virtual) timeout on a behaviour that needs a cown held by a sleeping body. Timers
        // fire in due order, so a five-second sleep always loses; a half-second sleep may win or lose (the timeout may
        // fire before the sleeping body even starts, as on a slow machine).
        static Func<BocRuntime, Task> Race(TimeSpan sleep, SortedSet<string> outcomes) => async rt =>
        {
            var a = new Cown<Box>(new Box());
            rt.When(a, async _ => await Task.Delay(sleep, rt.TimeProvider));
            try
            {
                await rt.WhenAsync(a, _ => { }).AsTask().WaitAsync(TimeSpan.FromSeconds(1), rt.TimeProvider);
                outcomes.Add("done");
            }
            catch (TimeoutException)
            {
                outcomes.Add("timeout");
            }

            await rt.WaitForQuiescenceAsync();
        };

        var slow = new SortedSet<string>(StringComparer.Ordinal);
        var fast = new SortedSet<string>(StringComparer.Ordinal);
        foreach (BocTestStrategy strategy in EveryStrategy)
        {
            var options = new BocTestOptions { Iterations = 200, Strategies = [strategy] };
            await BocTest.ExploreAsync(Race(TimeSpan.FromSeconds(5), slow), options);
            await BocTest.ExploreAsync(Race(TimeSpan.FromMilliseconds(500), fast), options);
        }

        Assert.Equal(["timeout"], slow);
        Assert.Equal(["done", "timeout"], fast);
    }

    [Fact]
    public async Task Virtual_time_moves_only_when_timers_fire()
    {
        await BocTest.ExploreAsync(20, async rt =>
        {
            DateTimeOffset start = rt.TimeProvider.GetUtcNow();
            var a = new Cown<Box>(new Box());
            TimeSpan waited = await rt.WhenAsync(a, async _ =>
            {
                long before = rt.TimeProvider.GetTimestamp();
                await Task.Delay(TimeSpan.FromHours(1), rt.TimeProvider);
                return rt.TimeProvider.GetElapsedTime(before);
            });
            Assert.Equal(TimeSpan.FromHours(1), waited);
            Assert.Equal(start + TimeSpan.FromHours(1), rt.TimeProvider.GetUtcNow());
        });
    }

    /// <summary>
    /// Every final log <paramref name="program"/> can produce, over 300 schedules of each strategy: for these small
    /// programs that is far more than the number of allowed orders, so a missing outcome means the controlled runtime
    /// cannot produce it.
    /// </summary>
    private static async Task<string[]> Outcomes(Func<BocRuntime, List<string>> program)
    {
        var outcomes = new SortedSet<string>(StringComparer.Ordinal);
        foreach (BocTestStrategy strategy in EveryStrategy)
        {
            var options = new BocTestOptions { Iterations = 300, Strategies = [strategy] };
            await BocTest.ExploreAsync(async rt =>
            {
                List<string> log = program(rt);
                await rt.WaitForQuiescenceAsync();
                outcomes.Add(string.Join(",", log));
            }, options);
        }

        return [.. outcomes];
    }

    /// <summary>
    /// A random program over a few cowns: behaviours of 1–3 cowns (some read-only), some asynchronous (an await inside
    /// the access window), some spawning a nested behaviour. Every access is stamped and checked by the core oracle.
    /// </summary>
    private static async Task RandomProgram(BocRuntime rt, int seed)
    {
        var random = new Random(seed);
        var clock = new LogicalClock();
        var accesses = new List<Access>();
        int cownCount = random.Next(2, 6);
        var cowns = Enumerable.Range(0, cownCount).Select(_ => new Cown<Box>(new Box())).ToArray();
        int next = 0;

        void Spawn(int depth)
        {
            int id = next++;
            int arity = random.Next(1, Math.Min(3, cownCount) + 1);
            int[] picked = Enumerable.Range(0, cownCount).OrderBy(_ => random.Next()).Take(arity).ToArray();
            bool[] reads = picked.Select(_ => random.Next(3) == 0).ToArray();
            bool isAsync = random.Next(3) == 0;
            bool nests = depth == 0 && random.Next(4) == 0;
            IAcquirable<Box>[] requests = picked.Select((c, i) => reads[i] ? (IAcquirable<Box>)Cown.Read(cowns[c]) : cowns[c]).ToArray();

            long spawnStart = clock.Tick();
            var spawnEnd = new System.Runtime.CompilerServices.StrongBox<long>();
            rt.When(requests, async _ =>
            {
                long start = clock.Tick();
                if (nests)
                {
                    Spawn(depth + 1);
                }

                if (isAsync)
                {
                    await Task.Yield();
                }

                long end = clock.Tick();
                for (int i = 0; i < picked.Length; i++)
                {
                    accesses.Add(new Access(id, picked[i], !reads[i], spawnStart, spawnEnd.Value, start, end));
                }
            });
            spawnEnd.Value = clock.Tick();
        }

        int behaviours = random.Next(5, 16);
        for (int i = 0; i < behaviours; i++)
        {
            Spawn(0);
        }

        await rt.WaitForQuiescenceAsync();
        List<string> violations = Oracle.Check(accesses);
        Assert.True(violations.Count == 0, $"program seed {seed}: " + string.Join("; ", violations));
    }
}
