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
    public async Task A_spawned_behaviour_may_spawn_before_its_spawner_spawns_again() =>
        // P (spawned first, on a) spawns c1 on b; the scenario then spawns c2 on b. The scenario may be slow between its
        // two spawns, so P can run and spawn c1 first ("p,c1,c2"); or the scenario spawns c2 first, and c1 queues behind
        // it on b. Nothing else: c1 is spawned by p, so it never runs before p.
        Assert.Equal(["c2,p,c1", "p,c1,c2", "p,c2,c1"], await Outcomes(rt =>
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
    public async Task An_awaited_spawn_may_run_its_body_before_its_spawner_goes_on_as_an_inline_run_does()
    {
        // On the real runtime an awaited spawn from outside that finds its cown free runs inline: the body before the
        // spawner's next statement; behind a busy cown, or on a thread with a synchronization context, the spawner goes
        // on first. The spawn point must allow both orders, so a program that relies on either is caught.
        var outcomes = new SortedSet<string>(StringComparer.Ordinal);
        foreach (BocTestStrategy strategy in EveryStrategy)
        {
            await BocTest.ExploreAsync(
                async rt =>
                {
                    var log = new List<string>();
                    var a = new Cown<Box>(new Box());
                    ValueTask done = rt.WhenAsync(a, _ => log.Add("body"));
                    log.Add("spawner");
                    await done;
                    outcomes.Add(string.Join(",", log));
                },
                new BocTestOptions { Iterations = 100, Strategies = [strategy] });
        }

        Assert.Equal(["body,spawner", "spawner,body"], outcomes);
    }

    [Fact]
    public async Task A_batch_is_one_spawn_point_and_nothing_comes_between_its_members() =>
        // S (on z) spawns the batch {B1 on x, B2 on x}, then logs "s". P (on p) spawns Q on x. A batch is one spawn: S
        // may be slow right after it, so B1 and B2 can run before "s"; and Q, spawned by a body running at the same time,
        // lands before the whole batch or after it on x, never between B1 and B2.
        Assert.Equal(
            ["B1,B2,Q,s", "B1,B2,s,Q", "B1,s,B2,Q", "Q,B1,B2,s", "Q,B1,s,B2", "Q,s,B1,B2", "s,B1,B2,Q", "s,Q,B1,B2"],
            await Outcomes(rt =>
            {
                var log = new List<string>();
                var x = new Cown<Box>(new Box());
                rt.When(new Cown<Box>(new Box()), _ =>
                {
                    rt.Batch(b =>
                    {
                        b.When(x, _ => log.Add("B1"));
                        b.When(x, _ => log.Add("B2"));
                    });
                    log.Add("s");
                });
                rt.When(new Cown<Box>(new Box()), _ => rt.When(x, _ => log.Add("Q")));
                return log;
            }));

    [Fact]
    public async Task A_nested_spawn_races_its_spawners_sibling_on_a_shared_cown() =>
        // The program: B1 (on x) spawns B3 on y; its spawner, a body on z, spawns B2 on y after B1. In a real run
        // B1 can start and spawn B3 before the spawner reaches its second spawn, so both orders on y are allowed. B1 and
        // B2 share no cown (either runs first); B3 always follows B1, which spawns it.
        Assert.Equal(["B1,B2,B3", "B1,B3,B2", "B2,B1,B3"], await Outcomes(rt =>
        {
            var log = new List<string>();
            var x = new Cown<Box>(new Box());
            var y = new Cown<Box>(new Box());
            var z = new Cown<Box>(new Box());
            rt.When(z, _ =>
            {
                rt.When(x, _ =>
                {
                    log.Add("B1");
                    rt.When(y, _ => log.Add("B3"));
                });
                rt.When(y, _ => log.Add("B2"));
            });
            return log;
        }));

    [Fact]
    public async Task Two_running_bodies_interleave_their_spawns_onto_shared_cowns_in_every_order()
    {
        // A (on a) spawns X on c, then Z on d; B (on b) spawns Y on d, then W on c. A and B run at the same time on a
        // real machine, so their four spawns interleave in any order that keeps each body's own order, and each shared
        // cown runs its two behaviours in spawn order. X<W on c together with Y<Z on d needs both first spawns before both
        // second spawns (both bodies running at once). W<X with Z<Y is forbidden: W<X means Y<W<X<Z.
        var outcomes = await Outcomes(rt =>
        {
            var log = new List<string>();
            var cowns = Enumerable.Range(0, 4).Select(_ => new Cown<Box>(new Box())).ToArray();
            (Cown<Box> a, Cown<Box> b, Cown<Box> c, Cown<Box> d) = (cowns[0], cowns[1], cowns[2], cowns[3]);
            rt.When(a, _ =>
            {
                rt.When(c, _ => log.Add("X"));
                rt.When(d, _ => log.Add("Z"));
            });
            rt.When(b, _ =>
            {
                rt.When(d, _ => log.Add("Y"));
                rt.When(c, _ => log.Add("W"));
            });
            return log;
        });

        // Reduce each log to the order on each shared cown: c holds X and W, d holds Y and Z.
        var orders = outcomes.Select(o =>
        {
            string[] log = o.Split(',');
            string onC = Array.IndexOf(log, "X") < Array.IndexOf(log, "W") ? "X<W" : "W<X";
            string onD = Array.IndexOf(log, "Y") < Array.IndexOf(log, "Z") ? "Y<Z" : "Z<Y";
            return onC + " " + onD;
        }).ToHashSet();

        Assert.Equal(["W<X Y<Z", "X<W Y<Z", "X<W Z<Y"], orders.Order(StringComparer.Ordinal));
        Assert.All(outcomes, o => Assert.Equal(4, o.Split(',').Length));
    }

    [Fact]
    public async Task A_timeout_races_a_behaviour_only_when_the_behaviour_can_finish_first()
    {
        // The caller arms a one-second (virtual) timeout on a behaviour that needs a cown held by a sleeping body. Timers
        // fire in due order, so a five-second sleep always loses; a half-second sleep may win or lose (the timeout may
        // fire before the sleeping body even starts, as on a slow machine).
        static Func<BocRuntime, Task> Race(TimeSpan sleep, SortedSet<string> outcomes) => async rt =>
        {
            // The timeout is armed before anything is spawned (a scenario may be paused at a spawn, as on a slow machine,
            // and must not let the sleep finish before the timeout even starts); the behaviour reports whether the
            // timeout fired before it could run.
            Task timeout = Task.Delay(TimeSpan.FromSeconds(1), rt.TimeProvider);
            var a = new Cown<Box>(new Box());
            rt.When(a, async _ => await Task.Delay(sleep, rt.TimeProvider));
            outcomes.Add(await rt.WhenAsync(a, _ => timeout.IsCompleted ? "timeout" : "done"));
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
        var accesses = new List<(Access Access, System.Runtime.CompilerServices.StrongBox<long> SpawnEnd)>();
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
                    // The spawn's end is read at the check: a body may run (and end) before its When call returns.
                    accesses.Add((new Access(id, picked[i], !reads[i], spawnStart, 0, start, end), spawnEnd));
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
        List<string> violations = Oracle.Check(accesses.Select(a => a.Access with { SpawnEnd = a.SpawnEnd.Value }));
        Assert.True(violations.Count == 0, $"program seed {seed}: " + string.Join("; ", violations));
    }
}
