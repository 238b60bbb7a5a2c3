using Boc.ModelTests.Exploration;
using Boc.Scheduling;
using Xunit.Abstractions;

namespace Boc.ModelTests.Models;

/// <summary>
/// The run queue (Scheduling/RunQueue.cs), shrunk to <see cref="RunQueue.Capacity"/> slots in model builds: its owner
/// pushes past the capacity (moving the older half out, as PushLocal does) and pops, while a thief steals half into its
/// own queue and drains it, and a third thread takes single items. Oracle: every item is taken exactly once (nothing
/// lost, nothing twice), and each taker sees the owner's items in push order.
/// </summary>
public sealed class RunQueueModelTests(ITestOutputHelper output)
{
    internal const int Schedules = 4_000;
    private const int Items = 7;

    [Fact]
    public void StealAgainstPop_TakesEveryItemExactlyOnce_InOrder()
    {
        Assert.Equal(4, RunQueue.Capacity);
        ModelChecks.Holds(output, "run queue: steal against pop", Schedules, seed: 63_001, Build);
    }

    [Fact]
    public void SeededBug_StealWithoutClaim_IsFound()
    {
        ModelChecks.FindsSeededBug(output, ModelMutations.StealWithoutClaim, "run queue: steal against pop", Schedules, seed: 63_001, Build);
    }

    private static void Build(Scenario scenario)
    {
        var queue = new RunQueue();
        var thiefQueue = new RunQueue();
        var taken = new List<(string Taker, int Item)>();
        var spill = new object?[RunQueue.Capacity / 2];

        scenario.Thread("owner", () =>
        {
            for (int item = 1; item <= Items; item++)
            {
                if (!queue.TryPush(item))
                {
                    // Full: the older half goes out, oldest first (PushLocal moves it to the inbox), then retry.
                    int moved = queue.TakeOlderHalf(spill);
                    for (int i = 0; i < moved; i++)
                    {
                        taken.Add(("overflow", (int)spill[i]!));
                    }

                    if (!queue.TryPush(item))
                    {
                        taken.Add(("overflow", item));
                    }
                }

                if (item % 3 == 0 && queue.TryTake() is int popped)
                {
                    taken.Add(("owner", popped));
                }
            }
        });
        scenario.Thread("thief", () =>
        {
            for (int attempt = 0; attempt < 2; attempt++)
            {
                if (queue.StealHalfInto(thiefQueue) is int stolen)
                {
                    taken.Add(("thief", stolen));
                }

                while (thiefQueue.TryTake() is int item)
                {
                    taken.Add(("thief", item));
                }
            }
        });
        scenario.Thread("taker", () =>
        {
            for (int attempt = 0; attempt < 2; attempt++)
            {
                if (queue.TryTake() is int item)
                {
                    taken.Add(("taker", item));
                }
            }
        });
        scenario.Check(outcome =>
        {
            outcome.RequireCleanEnd();
            while (queue.TryTake() is int rest)
            {
                taken.Add(("rest", rest));
            }

            int[] counts = new int[Items + 1];
            foreach ((_, int item) in taken)
            {
                counts[item]++;
            }

            for (int item = 1; item <= Items; item++)
            {
                if (counts[item] != 1)
                {
                    throw new ModelViolation($"exactly once: item {item} was taken {counts[item]} times ({Describe(taken)})");
                }
            }

            // A steal hands the newest stolen item over first and queues the rest: order is checked per taker that
            // takes one at a time from the owner's queue.
            foreach (string taker in new[] { "owner", "taker", "overflow" })
            {
                int last = 0;
                foreach ((string who, int item) in taken)
                {
                    if (who == taker)
                    {
                        if (item < last)
                        {
                            throw new ModelViolation($"order: {taker} took {item} after {last} ({Describe(taken)})");
                        }

                        last = item;
                    }
                }
            }
        });
    }

    private static string Describe(List<(string Taker, int Item)> taken) => string.Join(", ", taken.Select(t => $"{t.Taker}:{t.Item}"));
}
