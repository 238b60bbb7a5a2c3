using Boc.ModelTests.Exploration;
using Boc.ModelTests.Support;
using Xunit.Abstractions;

namespace Boc.ModelTests.Models;

/// <summary>
/// A scope's finish against a late member (Scopes/BocScope.Members.cs, "The finish count", "Finish"): a block begins a
/// scope, spawns a member and ends (FinishAsync), while a late thread in the block's flow (as a task the block started
/// and did not wait for) spawns through the ambient scope; a worker runs what becomes ready. The late spawn either joins
/// (and is a member) or finds the block ended (and is not). Oracle: the scope finishes exactly once, after the block
/// ended, and never before a member it counted has ended (no member's body ends after the finish); every body exactly
/// once, quiescence, no livelock.
/// </summary>
public sealed class ScopeFinishModelTests(ITestOutputHelper output)
{
    internal const int Schedules = 2_000;

    [Fact]
    public void ScopeFinishAgainstALateMember_IsNeverEarlyNorMissed()
    {
        var seen = new HashSet<string>();
        ModelChecks.Holds(output, "scope finish against a late member", Schedules, seed: 63_006, s => Build(s, seen));
        output.WriteLine($"outcomes seen: {string.Join(", ", seen.Order())}");

        // Both sides of the race were reached: the late spawn joined, and it found the block ended.
        Assert.Superset(new HashSet<string> { "late joined", "late outside" }, seen);
    }

    [Fact]
    public void SeededBug_JoinWithoutRecheck_IsFound()
    {
        ModelChecks.FindsSeededBug(output, ModelMutations.JoinWithoutRecheck, "scope finish against a late member", Schedules, seed: 63_006, s => Build(s, []));
    }

    private static void Build(Scenario scenario, HashSet<string> seen)
    {
        var model = new ModelRuntime { LiveProducers = 2 };
        BocRuntime runtime = model.Runtime;
        var first = new Cown<object>(new object());
        var second = new Cown<object>(new object());
        BocScope? scope = null;
        ExecutionContext? blockFlow = null;
        Task? finish = null;
        bool lateJoined = false;
        var endedAfterFinish = new List<int>();

        scenario.Thread("block", () =>
        {
            scope = runtime.BeginScope();
            blockFlow = ExecutionContext.Capture();
            BocScope mine = scope;
            int id = model.Spawned;
            model.Spawn(body => runtime.When(first, _ => Member(body, mine, id, endedAfterFinish)), (0, true));
            finish = scope.FinishAsync();
            model.LiveProducers--;
        });
        scenario.Thread("late", () =>
        {
            Scenario.WaitUntil(() => blockFlow is not null);
            ExecutionContext.Run(
                blockFlow!,
                _ =>
                {
                    BocScope mine = scope!;
                    int id = model.Spawned;
                    model.Spawn(
                        body => runtime.When(second, _ =>
                        {
                            lateJoined = ReferenceEquals(Behaviours.CurrentScope, mine);
                            Member(body, mine, id, endedAfterFinish);
                        }),
                        (1, true));
                },
                null);
            model.LiveProducers--;
        });
        scenario.Thread("worker", model.RunWorker);
        scenario.Check(outcome =>
        {
            outcome.RequireCleanEnd();
            model.Check();
            if (finish is not { IsCompleted: true } || !scope!.IsFinished)
            {
                throw new ModelViolation("progress: the scope did not finish after its block ended and its members ended");
            }

            if (endedAfterFinish.Count > 0)
            {
                throw new ModelViolation($"finish: the scope finished before its member {endedAfterFinish[0]} ended");
            }

            seen.Add(lateJoined ? "late joined" : "late outside");
        });
    }

    private static void Member(Action body, BocScope scope, int id, List<int> endedAfterFinish)
    {
        body();

        // A member counts out only after its body: the scope cannot have finished yet.
        if (ReferenceEquals(Behaviours.CurrentScope, scope) && scope.IsFinished)
        {
            endedAfterFinish.Add(id);
        }
    }
}
