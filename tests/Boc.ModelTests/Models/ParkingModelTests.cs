using System.Runtime.CompilerServices;
using Boc.ModelTests.Exploration;
using Xunit.Abstractions;

namespace Boc.ModelTests.Models;

/// <summary>
/// Parking without a lost wake-up (Scheduling/BocScheduler.Parking.cs): two workers run the real worker loop (spin,
/// register as a sleeper, look again, park on the scheduler's semaphore, here a model semaphore) while a thread outside
/// the workers posts an item, waits for it to run, posts another while the workers go idle, waits, and stops the
/// scheduler (the idle workers look for work only a few times before they park, in model builds). The periodic
/// stuck-work wake-up is off, so nothing but the protocol can wake a parked worker. Oracle: each item runs exactly once,
/// and every thread ends: a lost wake-up leaves the producer waiting for an item that a parked worker never takes (a
/// livelock in the model).
/// </summary>
public sealed class ParkingModelTests(ITestOutputHelper output)
{
    internal const int Schedules = 2_000;

    [Fact]
    public void ParkAgainstWake_LosesNoWakeUp()
    {
        ModelChecks.Holds(output, "parking: park against wake", Schedules, seed: 63_007, Build, maxSteps: 50_000);
    }

    [Fact]
    public void SeededBug_ParkWithoutRecheck_IsFound()
    {
        ModelChecks.FindsSeededBug(output, ModelMutations.ParkWithoutRecheck, "parking: park against wake", Schedules, seed: 63_007, Build, maxSteps: 50_000);
    }

    private static void Build(Scenario scenario)
    {
        const int Items = 2;
        var scheduler = new BocScheduler(2, stuckCheck: false, startWorkers: false);
        int[] runs = new int[Items];
        var ran = new StrongBox<int>();

        scenario.Thread("producer", () =>
        {
            // Burst, idle, burst: the second item comes while the workers go idle after the first.
            for (int i = 0; i < Items; i++)
            {
                scheduler.Post(
                    static s =>
                    {
                        var (counts, index, done) = ((int[], int, StrongBox<int>))s!;
                        counts[index]++;
                        done.Value++;
                    },
                    (runs, i, ran));
                int expected = i + 1;
                Scenario.WaitUntil(() => ran.Value == expected);
            }

            scheduler.ModelStop();
        });
        for (int w = 0; w < 2; w++)
        {
            BocScheduler.Worker worker = scheduler.ModelWorker(w);
            scenario.Thread($"worker {w}", () =>
            {
                try
                {
                    scheduler.ModelWorkerLoop(worker);
                }
                finally
                {
                    BocThread.Current.Worker = null;
                    SynchronizationContext.SetSynchronizationContext(null);
                }
            });
        }

        scenario.Check(outcome =>
        {
            outcome.RequireCleanEnd();
            for (int i = 0; i < Items; i++)
            {
                if (runs[i] != 1)
                {
                    throw new ModelViolation($"exactly once: item {i} ran {runs[i]} times");
                }
            }
        });
    }
}
