namespace Boc.Testing;

/// <summary>Settings for <see cref="BocTest.ExploreAsync(Func{BocRuntime, Task}, BocTestOptions)"/> and replays.</summary>
public sealed class BocTestOptions
{
    private int _iterations = 1000;
    private int _maxSteps = 100_000;
    private IReadOnlyList<BocTestStrategy> _strategies = [BocTestStrategy.Random, BocTestStrategy.Pct()];
    private TimeSpan _uncontrolledWorkTimeout = TimeSpan.Zero;

    /// <summary>Gets or sets how many schedules to run (each a fresh run of the scenario). Default 1000.</summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1.</exception>
    public int Iterations
    {
        get => _iterations;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            _iterations = value;
        }
    }

    /// <summary>
    /// Gets or sets the seed of the first iteration; iteration <c>i</c> uses <c>Seed + i</c>. Default 0, so a test explores
    /// the same schedules on every machine and every run; change it (or the iteration count) to explore others.
    /// </summary>
    public int Seed { get; set; }

    /// <summary>
    /// Gets or sets the strategies, used in turn (iteration <c>i</c> uses <c>Strategies[i % Count]</c>). Default: seeded
    /// random, then PCT with depth 3.
    /// </summary>
    /// <exception cref="ArgumentNullException">The value is null.</exception>
    /// <exception cref="ArgumentException">The list is empty or holds a null.</exception>
    public IReadOnlyList<BocTestStrategy> Strategies
    {
        get => _strategies;
        set
        {
            ArgumentNullException.ThrowIfNull(value);
            if (value.Count == 0 || value.Any(s => s is null))
            {
                throw new ArgumentException("Give at least one strategy, and no nulls.", nameof(value));
            }

            _strategies = value.ToArray();
        }
    }

    /// <summary>
    /// Gets or sets the most steps one run may take before it fails with <see cref="BocTestFailureKind.StepLimitExceeded"/>
    /// (a step is one behaviour body, continuation, queued task, timer, or a spawn inside one of them). Default 100,000.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is less than 1.</exception>
    public int MaxSteps
    {
        get => _maxSteps;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, 1);
            _maxSteps = value;
        }
    }

    /// <summary>
    /// Gets or sets how long a run waits, when nothing is ready, for work from outside the runtime's control (a
    /// <c>Task.Run</c>, real I/O or a real timer completing) before it reports a deadlock. Default zero: code under test
    /// is expected to use only the runtime (and <see cref="BocRuntime.TimeProvider"/> for time). Such work makes runs
    /// depend on real timing, so replays of those runs may differ.
    /// </summary>
    /// <exception cref="ArgumentOutOfRangeException">The value is negative.</exception>
    public TimeSpan UncontrolledWorkTimeout
    {
        get => _uncontrolledWorkTimeout;
        set
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(value, TimeSpan.Zero);
            _uncontrolledWorkTimeout = value;
        }
    }
}
