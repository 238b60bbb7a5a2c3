using Boc.ModelTests.Exploration;
using Xunit.Abstractions;

namespace Boc.ModelTests.Models;

/// <summary>
/// The next slot's exactly-once take (Scheduling/BocScheduler.NextSlot.cs): a worker's body spawns a behaviour that is
/// ready at once, so it lands in the worker's next slot; the body ends and the owner takes its next item (the plain
/// take), while a parked peer looks for stuck work in the slot (the thief: Stealing, the barrier, InBody and Ticks, the
/// exchange). Oracle: the behaviour runs exactly once, whoever takes it, and the runtime is quiescent at the end.
/// </summary>
public sealed class NextSlotModelTests(ITestOutputHelper output)
{
    internal const int Schedules = 4_000;

    [Fact]
    public void ThiefAgainstOwner_TakesTheItemExactlyOnce()
    {
        ModelChecks.Holds(output, "next slot: thief against owner", Schedules, seed: 63_002, Build);
    }

    [Fact]
    public void SeededBug_ThiefIgnoresOwner_IsFound()
    {
        ModelChecks.FindsSeededBug(output, ModelMutations.ThiefIgnoresOwner, "next slot: thief against owner", Schedules, seed: 63_002, Build);
    }

    private static void Build(Scenario scenario)
    {
        var scheduler = new BocScheduler(2, stuckCheck: true, startWorkers: false);
        var runtime = new BocRuntime(new BocRuntimeOptions(), scheduler, TaskScheduler.Default, TimeProvider.System);
        BocScheduler.Worker owner = scheduler.ModelWorker(0);
        BocScheduler.Worker thief = scheduler.ModelWorker(1);
        var cown = new Cown<int[]>(new int[1]);
        var runs = new RunCount();

        // The thief parked while the owner was inside its current item: it remembers the owner's clock from then.
        scheduler.ModelRememberTicks(thief);

        scenario.Thread("owner", () =>
        {
            BocThread thread = BocThread.Current;
            thread.Worker = owner;
            try
            {
                // Inside an item (WorkerLoop): the body spawns onto an idle cown, so the behaviour is ready at once and
                // fills this worker's next slot.
                Atomic.Write(ref owner.InBody, 1);
                runtime.When(cown, _ => runs.Count++);
                Atomic.Write(ref owner.Ticks, owner.Ticks + 1);

                // Between items: the owner's take (clears InBody, then the plain take unless a thief is at work).
                if (scheduler.ModelNextItem(owner, out _) is Behaviour next)
                {
                    next.Run(thread);
                }
            }
            finally
            {
                thread.Worker = null;
            }
        });
        scenario.Thread("thief", () =>
        {
            BocThread thread = BocThread.Current;
            thread.Worker = thief;
            try
            {
                scheduler.ModelTakeStuckWork(thief);
                while (thief.Queue.TryTake() is Behaviour stolen)
                {
                    stolen.Run(thread);
                }
            }
            finally
            {
                thread.Worker = null;
            }
        });
        scenario.Check(outcome =>
        {
            outcome.RequireCleanEnd();
            if (runs.Count != 1)
            {
                throw new ModelViolation($"exactly once: the next slot's behaviour ran {runs.Count} times");
            }

            if (!runtime.IsQuiescentNow)
            {
                throw new ModelViolation("progress: the runtime is not quiescent at the end");
            }
        });
    }

    private sealed class RunCount
    {
        public int Count;
    }
}
