using Boc.ModelTests.Exploration;
using Boc.ModelTests.Support;
using Xunit.Abstractions;

namespace Boc.ModelTests.Models;

/// <summary>
/// The two-phase spawn (Protocol/Behaviour.Enqueue.cs): two spawners link behaviours on the same two cowns named in
/// opposite orders (a on b, b on a), each followed by a one-cown spawn on the cown it named first, while a worker runs
/// what becomes ready. Oracle: the core suite's (exclusivity, and spawn order on every shared cown for spawns ordered by
/// happens-before), every body exactly once, the runtime quiescent, and no livelock (a deadlock of the spawners' waits).
/// </summary>
public sealed class SpawnOrderModelTests(ITestOutputHelper output)
{
    internal const int Schedules = 2_000;

    [Fact]
    public void TwoSpawnersInOppositeCownOrder_StayOrderedExclusiveAndLive()
    {
        ModelChecks.Holds(output, "spawn: two spawners in opposite cown order", Schedules, seed: 63_003, Build);
    }

    [Fact]
    public void SeededBug_SpawnInArgumentOrder_IsFound()
    {
        ModelChecks.FindsSeededBug(output, ModelMutations.SpawnInArgumentOrder, "spawn: two spawners in opposite cown order", Schedules, seed: 63_003, Build);
    }

    private static void Build(Scenario scenario)
    {
        var model = new ModelRuntime { LiveProducers = 2 };
        BocRuntime runtime = model.Runtime;
        var a = new Cown<object>(new object());
        var b = new Cown<object>(new object());
        const int A = 0;
        const int B = 1;

        scenario.Thread("spawner ab", () =>
        {
            model.Spawn(body => runtime.When(a, b, (_, _) => body()), (A, true), (B, true));
            model.Spawn(body => runtime.When(a, _ => body()), (A, true));
            model.LiveProducers--;
        });
        scenario.Thread("spawner ba", () =>
        {
            model.Spawn(body => runtime.When(b, a, (_, _) => body()), (B, true), (A, true));
            model.Spawn(body => runtime.When(b, _ => body()), (B, true));
            model.LiveProducers--;
        });
        scenario.Thread("worker", model.RunWorker);
        scenario.Check(outcome =>
        {
            outcome.RequireCleanEnd();
            model.Check();
        });
    }
}
