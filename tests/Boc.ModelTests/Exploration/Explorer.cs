using System.Diagnostics;
using System.Globalization;

namespace Boc.ModelTests.Exploration;

/// <summary>One schedule's model: its threads, and the oracle that judges the run.</summary>
internal sealed class Scenario
{
    private readonly List<(string Name, Action Body)> _threads = [];
    private readonly List<Action<RunOutcome>> _checks = [];

    public IReadOnlyList<(string Name, Action Body)> Threads => _threads;

    public IReadOnlyList<Action<RunOutcome>> Checks => _checks;

    /// <summary>Adds a controlled thread.</summary>
    public void Thread(string name, Action body) => _threads.Add((name, body));

    /// <summary>Adds an oracle check, run on the test thread after the schedule; it throws <see cref="ModelViolation"/>.</summary>
    public void Check(Action<RunOutcome> check) => _checks.Add(check);

    /// <summary>A scheduling point inside a model's own code (a body's middle, so that bodies can overlap if the runtime lets them).</summary>
    public static void Point() => ModelPoints.Reach(writes: false);

    /// <summary>
    /// Waits, inside a controlled thread, until <paramref name="condition"/> holds: a wait loop like the runtime's own
    /// (the thread runs again only after another has changed memory).
    /// </summary>
    public static void WaitUntil(Func<bool> condition)
    {
        while (!condition())
        {
            var spin = default(SpinWait);
            Atomic.SpinOnce(ref spin);
        }
    }
}

/// <summary>How a schedule ended, for the oracle.</summary>
internal sealed record RunOutcome(
    Exception? Failure,
    string? FailedThread,
    bool Livelock,
    bool StepBoundExceeded,
    IReadOnlyList<string> Unfinished,
    int Steps)
{
    /// <summary>Throws unless every thread finished without failing, livelock or an exceeded bound.</summary>
    public void RequireCleanEnd()
    {
        RequireNoFailure();
        if (Unfinished.Count > 0)
        {
            throw new ModelViolation($"progress: threads still waiting at the end: {string.Join(", ", Unfinished)}");
        }
    }

    /// <summary>Throws if a thread failed, the run livelocked, or it exceeded the step bound.</summary>
    public void RequireNoFailure()
    {
        if (Failure is not null)
        {
            throw new ModelViolation($"{FailedThread} threw {Failure.GetType().Name}: {Failure.Message}", Failure);
        }

        if (Livelock)
        {
            throw new ModelViolation($"progress: livelock (every thread that could run was waiting for another): {string.Join(", ", Unfinished)}");
        }

        if (StepBoundExceeded)
        {
            throw new ModelViolation("progress: the run exceeded its step bound");
        }
    }
}

/// <summary>A model's oracle found a violation of a guarantee.</summary>
internal sealed class ModelViolation : Exception
{
    public ModelViolation(string message)
        : base(message)
    {
    }

    public ModelViolation(string message, Exception inner)
        : base(message, inner)
    {
    }
}

/// <summary>What an exploration found.</summary>
internal sealed record ExplorationResult(
    string Model,
    int Schedules,
    long TotalSteps,
    long TotalSwitches,
    TimeSpan Elapsed,
    string? Violation,
    int? FailingSchedule,
    string? FailingChooser,
    string? Trace)
{
    public double SchedulesPerSecond => Schedules / Math.Max(Elapsed.TotalSeconds, 1e-9);

    public string Summary() => FormattableString.Invariant(
        $"{Model}: {Schedules} schedules in {Elapsed.TotalSeconds:F2} s ({SchedulesPerSecond:F0}/s), {TotalSteps / Math.Max(Schedules, 1)} points and {TotalSwitches / Math.Max(Schedules, 1)} switches per schedule")
        + (Violation is null ? ", no violation" : FormattableString.Invariant($"; schedule {FailingSchedule} ({FailingChooser}) violated: {Violation}"));
}

/// <summary>
/// Runs a model under many schedules: even-numbered ones chosen uniformly at random, odd ones by PCT (depth 3, its
/// change points spread over the longest run seen so far), each seeded from the exploration's seed and its index, so
/// a failing schedule is named by (seed, index) and replays when the exploration is run again. Stops at the first
/// violation.
/// </summary>
internal static class Explorer
{
    /// <summary>The environment variable that multiplies every model's schedule count (deeper runs off CI).</summary>
    public const string ScaleVariable = "BOC_MODEL_SCALE";

    private static readonly TimeSpan Watchdog = TimeSpan.FromSeconds(30);

    /// <summary>The schedules to run for a model whose CI count is <paramref name="schedules"/>, scaled by <see cref="ScaleVariable"/>.</summary>
    public static int Scaled(int schedules) =>
        int.TryParse(Environment.GetEnvironmentVariable(ScaleVariable), NumberStyles.Integer, CultureInfo.InvariantCulture, out int scale) && scale > 0
            ? schedules * scale
            : schedules;

    public static ExplorationResult Explore(string model, int schedules, int seed, Action<Scenario> build, int maxSteps = 20_000)
    {
        var watch = Stopwatch.StartNew();
        long steps = 0;
        long switches = 0;
        int expectedSteps = 1;
        for (int i = 0; i < schedules; i++)
        {
            int scheduleSeed = unchecked((seed * 1_000_003) + i);
            (IChooser chooser, string name) = i % 2 == 1
                ? ((IChooser)new PctChooser(scheduleSeed, depth: 3, expectedSteps), $"pct seed {scheduleSeed}")
                : (new RandomChooser(scheduleSeed), $"random seed {scheduleSeed}");
            var scenario = new Scenario();
            build(scenario);
            var run = new ModelRun(chooser, maxSteps);
            foreach ((string threadName, Action body) in scenario.Threads)
            {
                run.Add(threadName, body);
            }

            IReadOnlyList<string> unfinished = run.Execute(Watchdog);
            steps += run.Steps;
            switches += run.Switches;
            expectedSteps = Math.Max(expectedSteps, run.Steps);
            var outcome = new RunOutcome(run.Failure, run.FailedThread, run.Livelock, run.StepBoundExceeded, unfinished, run.Steps);
            try
            {
                foreach (Action<RunOutcome> check in scenario.Checks)
                {
                    check(outcome);
                }
            }
            catch (ModelViolation violation)
            {
                return new ExplorationResult(model, i + 1, steps, switches, watch.Elapsed, violation.Message, i, name, run.TraceText());
            }
        }

        return new ExplorationResult(model, schedules, steps, switches, watch.Elapsed, null, null, null, null);
    }
}

/// <summary>The two checks every model makes: its exploration finds no violation, and finds its seeded bug.</summary>
internal static class ModelChecks
{
    /// <summary>Explores <paramref name="build"/> and fails with the violation (and the run's last steps) if one is found.</summary>
    public static ExplorationResult Holds(Xunit.Abstractions.ITestOutputHelper output, string model, int schedules, int seed, Action<Scenario> build, int maxSteps = 20_000)
    {
        ExplorationResult result = Explorer.Explore(model, Explorer.Scaled(schedules), seed, build, maxSteps);
        output.WriteLine(result.Summary());
        Assert.True(result.Violation is null, $"{result.Summary()}\n{result.Trace}");
        return result;
    }

    /// <summary>Explores <paramref name="build"/> with <paramref name="mutation"/> switched on and fails unless a violation is found.</summary>
    public static void FindsSeededBug(Xunit.Abstractions.ITestOutputHelper output, string mutation, string model, int schedules, int seed, Action<Scenario> build, int maxSteps = 20_000)
    {
        ModelMutations.Active = mutation;
        try
        {
            ExplorationResult result = Explorer.Explore($"{model}, with {mutation}", Explorer.Scaled(schedules), seed, build, maxSteps);
            output.WriteLine(result.Summary());
            Assert.True(result.Violation is not null, $"The seeded bug {mutation} was not found: {result.Summary()}");
        }
        finally
        {
            ModelMutations.Active = null;
        }
    }
}
