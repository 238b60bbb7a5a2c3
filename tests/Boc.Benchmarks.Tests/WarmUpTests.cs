using System.Diagnostics;
using Boc.Benchmarks.Savina;

namespace Boc.Benchmarks.Tests;

/// <summary>
/// The Savina benchmarks' warm-up (<see cref="SavinaBenchmarkBase.WarmUp"/>): before the first measured iteration of a
/// process, untimed runs of the same type, so that the iterations measure tier-1 code.
/// </summary>
public sealed class WarmUpTests
{
    [Fact]
    public async Task WarmUp_RunsFreshRunsOfTheType_ToCompletion_UntilItsTimeHasPassed()
    {
        await using var runtime = new BocRuntime();
        CountingRun.Reset();

        // No time at all still runs once: the first iteration must not be the first run of the process.
        Assert.Equal(1, SavinaBenchmarkBase.WarmUp(typeof(CountingRun), SavinaSize.Test, runtime, TimeSpan.Zero));
        Assert.Equal(1, CountingRun.Created);
        Assert.Equal(1, CountingRun.ValidatedCount);

        // Each run is a new object, run to its validation, and the loop does not stop before its time. (A lower bound
        // that the loop's condition guarantees, not a speed.)
        CountingRun.Reset();
        var clock = Stopwatch.StartNew();
        int runs = SavinaBenchmarkBase.WarmUp(typeof(CountingRun), SavinaSize.Test, runtime, TimeSpan.FromMilliseconds(30));
        Assert.True(clock.Elapsed >= TimeSpan.FromMilliseconds(30), $"the warm-up ended after {clock.Elapsed}");
        Assert.True(runs >= 1);
        Assert.Equal(runs, CountingRun.Created);
        Assert.Equal(runs, CountingRun.ValidatedCount);
    }

    [Fact]
    public void Prepare_WarmsUpOncePerBenchmarkObject_BeforeTheFirstIteration()
    {
        var benchmark = new CountingBenchmark();
        benchmark.CreateRuntime();
        try
        {
            CountingRun.Reset();

            // The first iteration's set-up: the run it builds, and one warm-up run before it (run and validated).
            CountingRun first = benchmark.SetUpIteration();
            Assert.Equal(2, CountingRun.Created);
            Assert.Equal(1, CountingRun.ValidatedCount);
            Assert.False(first.WasValidated);

            // Later iterations: only the run they build.
            benchmark.SetUpIteration();
            benchmark.SetUpIteration();
            Assert.Equal(4, CountingRun.Created);
            Assert.Equal(1, CountingRun.ValidatedCount);
        }
        finally
        {
            benchmark.DisposeRuntime();
        }
    }

    /// <summary>A run that counts its constructions and validations; one behaviour per run.</summary>
    public sealed class CountingRun : SavinaRun
    {
        private static int s_created;
        private static int s_validated;
        private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private Cown<object> _cown = null!;

        public CountingRun(SavinaSize size)
            : base(size) => Interlocked.Increment(ref s_created);

        public static int Created => Volatile.Read(ref s_created);

        public static int ValidatedCount => Volatile.Read(ref s_validated);

        public bool WasValidated { get; private set; }

        public static void Reset()
        {
            Volatile.Write(ref s_created, 0);
            Volatile.Write(ref s_validated, 0);
        }

        protected override void Build() => _cown = new Cown<object>(new object());

        protected override Task ExecuteAsync()
        {
            Runtime.When(_cown, static (_, done) => done.SetResult(), _done);
            return _done.Task;
        }

        protected override void Validate()
        {
            WasValidated = true;
            Interlocked.Increment(ref s_validated);
        }
    }

    private sealed class CountingBenchmark : SavinaBenchmarkBase
    {
        protected override TimeSpan WarmUpTime => TimeSpan.Zero;

        public CountingRun SetUpIteration() => Prepare(new CountingRun(Size));
    }
}
