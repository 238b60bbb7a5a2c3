using Boc.ModelTests.Exploration;
using Boc.ModelTests.Support;
using Xunit.Abstractions;

namespace Boc.ModelTests.Models;

/// <summary>
/// Readers and a writer on one cown (Protocol/Behaviour.Turn.cs, "Readers"): behind a writer that holds the cown, one
/// spawner queues a reader, a writer and a reader, another queues a reader; two workers run what becomes ready, so
/// readers can run together and, if the protocol let them, beside the writer. The turn reaches the first reader by a
/// grant (the release of the writer ahead), which counts it in before passing the turn on. Oracle: the core suite's
/// (exclusivity: the writer runs alone; order), every body exactly once, quiescence, no livelock.
/// </summary>
public sealed class ReaderWriterModelTests(ITestOutputHelper output)
{
    internal const int Schedules = 1_500;

    [Fact]
    public void AReaderChainAgainstAWriter_StaysExclusiveOrderedAndLive()
    {
        ModelChecks.Holds(output, "readers: a reader chain against a writer", Schedules, seed: 63_004, Build);
    }

    [Fact]
    public void SeededBug_ReaderCountsInLate_IsFound()
    {
        ModelChecks.FindsSeededBug(output, ModelMutations.ReaderCountsInLate, "readers: a reader chain against a writer", Schedules, seed: 63_004, Build);
    }

    private static void Build(Scenario scenario)
    {
        var model = new ModelRuntime { LiveProducers = 2 };
        BocRuntime runtime = model.Runtime;
        var c = new Cown<object>(new object());
        const int C = 0;

        // The holder is spawned before the run: the readers queue behind a writer and get the turn from its release.
        model.Spawn(body => runtime.When(c, _ => body()), (C, true));
        scenario.Thread("spawner 1", () =>
        {
            model.Spawn(body => runtime.When(Cown.Read(c), _ => body()), (C, false));
            model.Spawn(body => runtime.When(c, static (_, body) => body(), body), (C, true));
            model.Spawn(body => runtime.When(Cown.Read(c), _ => body()), (C, false));
            model.LiveProducers--;
        });
        scenario.Thread("spawner 2", () =>
        {
            model.Spawn(body => runtime.When(Cown.Read(c), _ => body()), (C, false));
            model.LiveProducers--;
        });
        scenario.Thread("worker 1", model.RunWorker);
        scenario.Thread("worker 2", model.RunWorker);
        scenario.Check(outcome =>
        {
            outcome.RequireCleanEnd();
            model.Check();
        });
    }
}
