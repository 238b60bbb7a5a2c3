using System.Globalization;

namespace Boc.Testing;

/// <summary>
/// How a controlled run chooses the next step among those that are ready. A run is fully determined by its strategy
/// and its seed: the same pair replays the same schedule.
/// </summary>
public abstract class BocTestStrategy
{
    private protected BocTestStrategy()
    {
    }

    /// <summary>Gets a strategy that picks uniformly at random among the ready steps.</summary>
    public static BocTestStrategy Random { get; } = new RandomStrategy();

    /// <summary>
    /// Gets a PCT strategy (probabilistic concurrency testing, Burckhardt et al., ASPLOS 2010): every behaviour (with its
    /// asynchronous continuations) gets a random priority, the highest-priority ready step runs, and at
    /// <paramref name="depth"/> − 1 random steps below <paramref name="stepBound"/> the running behaviour's priority drops
    /// below all others. It finds a bug that needs <paramref name="depth"/> ordering constraints with probability at least
    /// 1/(n·k^(d−1)) per run, for n behaviours and k steps.
    /// </summary>
    /// <param name="depth">The bug depth d the strategy targets; at least 1 (1 means no change points).</param>
    /// <param name="stepBound">
    /// The range of steps in which change points fall; 0 lets the explorer use the longest run it has seen so far. A
    /// failure report always names the bound it used, so a replay uses exactly that.
    /// </param>
    /// <returns>The strategy.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="depth"/> is less than 1 or <paramref name="stepBound"/> is negative.</exception>
    public static BocTestStrategy Pct(int depth = 3, int stepBound = 0)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(depth, 1);
        ArgumentOutOfRangeException.ThrowIfNegative(stepBound);
        return new PctStrategy(depth, stepBound);
    }

    /// <summary>Starts one run with <paramref name="seed"/>.</summary>
    internal abstract IChooser Start(int seed);

    /// <summary>The strategy to use for a run, given the longest run seen so far (only PCT adapts).</summary>
    internal virtual BocTestStrategy ForRun(int longestRunSoFar) => this;

    /// <summary>Gets C# that recreates this strategy, for replay instructions.</summary>
    internal abstract string ToCode();

    private sealed class RandomStrategy : BocTestStrategy
    {
        internal override IChooser Start(int seed) => new RandomChooser(seed);

        internal override string ToCode() => "BocTestStrategy.Random";

        public override string ToString() => "random";
    }

    private sealed class PctStrategy(int depth, int stepBound) : BocTestStrategy
    {
        internal override IChooser Start(int seed) => new PctChooser(seed, depth, stepBound);

        internal override BocTestStrategy ForRun(int longestRunSoFar) =>
            stepBound != 0 ? this : new PctStrategy(depth, Math.Max(1, longestRunSoFar));

        internal override string ToCode() =>
            string.Create(CultureInfo.InvariantCulture, $"BocTestStrategy.Pct(depth: {depth}, stepBound: {stepBound})");

        public override string ToString() =>
            string.Create(CultureInfo.InvariantCulture, $"pct(depth {depth}, step bound {stepBound})");
    }
}
