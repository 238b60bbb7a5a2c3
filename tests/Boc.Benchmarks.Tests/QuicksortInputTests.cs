using System.Reflection;
using Boc.Benchmarks.Savina;
using Boc.Benchmarks.Savina.Parallel;

namespace Boc.Benchmarks.Tests;

/// <summary>
/// Quicksort's two inputs: Savina's (the suite's rows) and the reference C++ runtime's (the *ReferenceInput rows), the
/// same generator read one step behind. Checks the relation between them, the sequential model's tree at Paper size
/// against the spec's figures, and runs the reference-input variants at <see cref="SavinaSize.Test"/>.
/// </summary>
public sealed class QuicksortInputTests
{
    public static TheoryData<string, BocDispatcher> ReferenceInputVariants()
    {
        var data = new TheoryData<string, BocDispatcher>();
        foreach (string variant in new[] { "Actor", "Full", "Channels" })
        {
            data.Add(variant, BocDispatcher.ThreadPool);
            data.Add(variant, BocDispatcher.BocScheduler);
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(ReferenceInputVariants))]
    public async Task Quicksort_ReferenceInputVariant_ValidatesAtTestSize(string variant, BocDispatcher dispatcher)
    {
        SavinaRun run = variant switch
        {
            "Actor" => new QuicksortActor(SavinaSize.Test, QuicksortInput.Reference),
            "Full" => new QuicksortFull(SavinaSize.Test, QuicksortInput.Reference),
            _ => new QuicksortChannels(SavinaSize.Test, QuicksortInput.Reference),
        };
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
        run.Setup(runtime);

        // Validate compares with the reference input's own model (sorted values, sorters, leaves).
        await run.RunAsync().WaitAsync(TimeSpan.FromSeconds(120));
    }

    [Fact]
    public void Quicksort_PaperModel_HasTheSpecsTreeForEachInput()
    {
        QuicksortModel.Expected savina = QuicksortModel.Reference(SavinaSize.Paper, QuicksortInput.Savina);
        QuicksortModel.Expected reference = QuicksortModel.Reference(SavinaSize.Paper, QuicksortInput.Reference);

        Assert.Equal((1939, 970), (savina.Sorters, savina.Leaves));
        Assert.Equal((1935, 968), (reference.Sorters, reference.Leaves));
        Assert.Equal((1939, 970), QuicksortModel.PaperShape(QuicksortInput.Savina));
        Assert.Equal((1935, 968), QuicksortModel.PaperShape(QuicksortInput.Reference));

        // The default is Savina's, and the model is per input: the default call is the Savina entry, not the other.
        Assert.Same(savina, QuicksortModel.Reference(SavinaSize.Paper));
        Assert.NotSame(savina, reference);
    }

    [Fact]
    public void Quicksort_ReferenceInput_IsSavinasShiftedByOne_StartingAtTheSeed()
    {
        List<long> savina = QuicksortModel.Input(SavinaSize.Paper);
        List<long> reference = QuicksortModel.Input(SavinaSize.Paper, QuicksortInput.Reference);
        long seed = QuicksortModel.Parameters(SavinaSize.Paper).Seed;

        Assert.Equal(1_000_000, savina.Count);
        Assert.Equal(1_000_000, reference.Count);
        Assert.Equal(1024, seed);

        // Savina's first value is one step of x <- (1309x + 13849) & 65535 from the seed; the reference's is the seed.
        Assert.Equal(((1309 * 1024) + 13849) & 65535, savina[0]);
        Assert.Equal(43545, savina[0]);
        Assert.Equal(1024, reference[0]);
        Assert.True(reference.Skip(1).SequenceEqual(savina.Take(savina.Count - 1)), "reference[i] != savina[i - 1]");

        // Every value is below 65536 < M, so |x % M| = x: the two multisets differ by one value, Savina's last replaced
        // by the seed, and the sums by exactly (seed - Savina's last).
        Assert.Equal(32_768_134_304, savina.Sum());
        Assert.Equal(seed - savina[^1], reference.Sum() - savina.Sum());
        Assert.NotEqual(seed, savina[^1]);
        Assert.NotEqual(savina.Order(), reference.Order());

        // Both inputs are the generator's 16-bit values, each of them about 15 times (N / 65536 = 15.26): duplicates in
        // both, not only in the reference's.
        Assert.Equal(65_536, savina.Distinct().Count());
        Assert.Equal(65_536, reference.Distinct().Count());
    }

    [Fact]
    public void Quicksort_EveryBenchmarkMethod_HasItsOwnIterationSetup()
    {
        // The suite's rows keep their names (the side-by-side script pairs Boc rows by type and method name), and each
        // reference-input row has its own set-up, so it never measures a run built for another method.
        string[] expected = ["Actor", "ActorReferenceInput", "Channels", "ChannelsReferenceInput", "Full", "FullReferenceInput"];
        MethodInfo[] methods = typeof(Quicksort).GetMethods();
        string[] benchmarks = methods
            .Where(m => m.GetCustomAttributes().Any(a => a.GetType().Name == "BenchmarkAttribute"))
            .Select(m => m.Name)
            .Order(StringComparer.Ordinal)
            .ToArray();
        Assert.Equal(expected, benchmarks);

        string[] setupTargets = methods
            .SelectMany(m => m.GetCustomAttributes<BenchmarkDotNet.Attributes.IterationSetupAttribute>())
            .SelectMany(a => a.Targets)
            .Order(StringComparer.Ordinal)
            .ToArray();
        Assert.Equal(expected, setupTargets);
    }
}
