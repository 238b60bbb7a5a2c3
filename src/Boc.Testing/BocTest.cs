namespace Boc.Testing;

/// <summary>
/// Systematic concurrency testing of Boc programs. A scenario receives a controlled <see cref="BocRuntime"/>: its
/// behaviours run one at a time, and at every scheduling point (a behaviour becoming ready, a spawn, an <c>await</c>
/// resuming, <c>Task.Yield</c>, a timer of <see cref="BocRuntime.TimeProvider"/>) a seeded strategy picks what runs next
/// among the steps that are ready. The same strategy and seed always give the same schedule.
/// </summary>
/// <remarks>
/// <para>
/// Code under test gets its runtime from the scenario or from <see cref="BocRuntime.Default"/> (inside a run, and only
/// in the run's own code, that is the controlled runtime), uses <see cref="BocRuntime.TimeProvider"/> for delays and
/// timeouts, and creates its cowns inside the scenario. Work outside the runtime's control (<c>Task.Run</c>, real I/O,
/// <c>ConfigureAwait(false)</c>) is not explored.
/// </para>
/// <para>
/// A spawn is a scheduling point: the spawning body (or scenario) may pause right after it, while other steps run, so
/// spawns of bodies running at once interleave in every order. Between scheduling points code runs whole. That is the
/// BoC model (a body has its cowns to itself); races on state shared outside cowns inside synchronous code are the
/// analyzer's business, and are found here only where an <c>await</c> or a spawn splits them.
/// </para>
/// </remarks>
public static class BocTest
{
    /// <summary>Runs <paramref name="scenario"/> under <paramref name="iterations"/> schedules with the default options.</summary>
    /// <param name="iterations">How many schedules to run.</param>
    /// <param name="scenario">The test: sets up cowns, spawns behaviours on the runtime it is given, waits, asserts.</param>
    /// <returns>What was explored, if no run failed.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="scenario"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="iterations"/> is less than 1.</exception>
    /// <exception cref="BocTestFailureException">A run failed; the exception names its strategy, seed and schedule.</exception>
    public static Task<BocTestReport> ExploreAsync(int iterations, Func<BocRuntime, Task> scenario)
    {
        ArgumentNullException.ThrowIfNull(scenario);
        return ExploreAsync(scenario, new BocTestOptions { Iterations = iterations });
    }

    /// <summary>Runs <paramref name="scenario"/> under <see cref="BocTestOptions.Iterations"/> schedules.</summary>
    /// <param name="scenario">The test: sets up cowns, spawns behaviours on the runtime it is given, waits, asserts.</param>
    /// <param name="options">Iterations, seed, strategies and limits.</param>
    /// <returns>What was explored, if no run failed.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="scenario"/> or <paramref name="options"/> is null.</exception>
    /// <exception cref="BocTestFailureException">
    /// The first failing run: the scenario threw (an assertion), a behaviour threw unhandled, a deadlock, or the step
    /// limit.
    /// </exception>
    public static Task<BocTestReport> ExploreAsync(Func<BocRuntime, Task> scenario, BocTestOptions options)
    {
        ArgumentNullException.ThrowIfNull(scenario);
        ArgumentNullException.ThrowIfNull(options);
        BocTestStrategy[] strategies = options.Strategies.ToArray();
        int iterations = options.Iterations;
        int baseSeed = options.Seed;
        return OnOwnThread(() =>
        {
            using var pool = new FiberPool();
            long totalSteps = 0;
            int longest = 0;
            for (int i = 0; i < iterations; i++)
            {
                BocTestStrategy strategy = strategies[i % strategies.Length].ForRun(longest);
                int seed = unchecked(baseSeed + i);
                using var execution = new ControlledExecution(strategy.Start(seed), options, pool);
                var failure = execution.Run(scenario);
                if (failure is { } f)
                {
                    throw new BocTestFailureException(f.Kind, new BocTestRun(strategy, seed, TraceWithSpawnSites(strategy, seed, scenario, options, pool, f.Kind) ?? execution.FormatTrace()), i, f.Error);
                }

                totalSteps += execution.Steps;
                longest = Math.Max(longest, execution.Steps);
            }

            return new BocTestReport(iterations, totalSteps, longest);
        });
    }

    /// <summary>
    /// Runs <paramref name="scenario"/> once under the schedule that <paramref name="strategy"/> and
    /// <paramref name="seed"/> determine: the one a <see cref="BocTestFailureException"/> reported, exactly.
    /// </summary>
    /// <param name="strategy">The strategy the failure named (for PCT, with the step bound it printed).</param>
    /// <param name="seed">The seed the failure named.</param>
    /// <param name="scenario">The same scenario.</param>
    /// <param name="options">Limits (<see cref="BocTestOptions.MaxSteps"/>, <see cref="BocTestOptions.UncontrolledWorkTimeout"/>); iterations, seed and strategies are ignored.</param>
    /// <returns>The run and its schedule, if it passed.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="strategy"/> or <paramref name="scenario"/> is null.</exception>
    /// <exception cref="BocTestFailureException">The run failed (with the same schedule every time).</exception>
    public static BocTestRun Replay(BocTestStrategy strategy, int seed, Func<BocRuntime, Task> scenario, BocTestOptions? options = null) =>
        ReplayAsync(strategy, seed, scenario, options).GetAwaiter().GetResult();

    /// <summary>Asynchronous form of <see cref="Replay(BocTestStrategy, int, Func{BocRuntime, Task}, BocTestOptions?)"/>.</summary>
    /// <param name="strategy">The strategy the failure named (for PCT, with the step bound it printed).</param>
    /// <param name="seed">The seed the failure named.</param>
    /// <param name="scenario">The same scenario.</param>
    /// <param name="options">Limits; iterations, seed and strategies are ignored.</param>
    /// <returns>The run and its schedule, if it passed.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="strategy"/> or <paramref name="scenario"/> is null.</exception>
    /// <exception cref="BocTestFailureException">The run failed (with the same schedule every time).</exception>
    public static Task<BocTestRun> ReplayAsync(BocTestStrategy strategy, int seed, Func<BocRuntime, Task> scenario, BocTestOptions? options = null)
    {
        ArgumentNullException.ThrowIfNull(strategy);
        ArgumentNullException.ThrowIfNull(scenario);
        options ??= new BocTestOptions();
        return OnOwnThread(() =>
        {
            using var pool = new FiberPool();
            using var execution = new ControlledExecution(strategy.Start(seed), options, pool, recordSpawnSites: true);
            var failure = execution.Run(scenario);
            var run = new BocTestRun(strategy, seed, execution.FormatTrace());
            return failure is { } f ? throw new BocTestFailureException(f.Kind, run, 0, f.Error) : run;
        });
    }

    /// <summary>
    /// The trace of a failing schedule, run once more to record where each spawn was made (a stack trace per spawn, which
    /// exploring does not pay for); null if the second run did not fail the same way (a scenario that is not
    /// deterministic), and the first run's trace is reported instead.
    /// </summary>
    private static IReadOnlyList<string>? TraceWithSpawnSites(
        BocTestStrategy strategy, int seed, Func<BocRuntime, Task> scenario, BocTestOptions options, FiberPool pool, BocTestFailureKind kind)
    {
        using var execution = new ControlledExecution(strategy.Start(seed), options, pool, recordSpawnSites: true);
        return execution.Run(scenario) is { } again && again.Kind == kind ? execution.FormatTrace() : null;
    }

    // Runs go on a thread of their own: they block it, and must not inherit the caller's synchronization context or
    // task scheduler.
    private static Task<T> OnOwnThread<T>(Func<T> work) =>
        Task.Factory.StartNew(work, CancellationToken.None, TaskCreationOptions.LongRunning | TaskCreationOptions.DenyChildAttach, TaskScheduler.Default);
}
