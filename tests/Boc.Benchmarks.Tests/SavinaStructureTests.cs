using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using Boc.Benchmarks.Savina;
using Boc.Benchmarks.Savina.Concurrency;

namespace Boc.Benchmarks.Tests;

/// <summary>
/// A port's split into behaviours, counted with the runtime's own <c>boc.behaviours.spawned</c> counter: the
/// side-by-side rows compare it with the reference runtime's port, so it must spawn what that port spawns
/// (savina-spec's scheduler statistics), not only compute the same result.
/// </summary>
public sealed class SavinaStructureTests
{
    [Theory]
    [InlineData(BocDispatcher.BocScheduler)]
    [InlineData(BocDispatcher.ThreadPool)]
    public async Task LogisticMapActor_SpawnsThreeBehavioursATerm_AsTheReferencePort(BocDispatcher dispatcher)
    {
        // Test size: T = 200 terms, S = 10 series. A term is NextTerm, Compute and Result (the reference's 750,022 at
        // Paper size is 3·T·S and 22 more); besides them, per series, GetTerm, its Result to the Master and the two
        // Stops, and the Master's start. Re-sending a stashed NextTerm to itself (Savina's Java) made a fourth a term.
        const int Terms = 200;
        const int Series = 10;
        long spawned = await CountSpawnedAsync(new LogisticMapActor(SavinaSize.Test), dispatcher);
        Assert.Equal((3L * Terms * Series) + (4 * Series) + 1, spawned);
    }

    private static async Task<long> CountSpawnedAsync(SavinaRun run, BocDispatcher dispatcher)
    {
        string name = $"structure-{Guid.NewGuid():N}";
        var counts = new ConcurrentQueue<long>();
        using var listener = new MeterListener();
        listener.InstrumentPublished = (instrument, l) =>
        {
            if (instrument.Meter.Name == "Boc" && instrument.Name == "boc.behaviours.spawned")
            {
                l.EnableMeasurementEvents(instrument);
            }
        };

        // On .NET 8 an instrument stays enabled after Dispose unless this is set (dotnet/runtime#102465).
        listener.MeasurementsCompleted = static (_, _) => { };
        listener.SetMeasurementEventCallback<long>((_, value, tags, _) =>
        {
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                if (tag.Key == "boc.runtime" && (string?)tag.Value == name)
                {
                    counts.Enqueue(value);
                    return;
                }
            }
        });
        listener.Start();

        await using (var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher, Name = name }))
        {
            run.Setup(runtime);
            await run.RunAsync().WaitAsync(TimeSpan.FromSeconds(120));
        }

        return counts.Sum();
    }
}
