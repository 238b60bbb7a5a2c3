namespace Boc.Testing;

/// <summary>One controlled run: the strategy and seed that determine it, and the schedule it took.</summary>
public sealed class BocTestRun
{
    internal BocTestRun(BocTestStrategy strategy, int seed, IReadOnlyList<string> trace)
    {
        Strategy = strategy;
        Seed = seed;
        Trace = trace;
    }

    /// <summary>Gets the strategy of the run.</summary>
    public BocTestStrategy Strategy { get; }

    /// <summary>Gets the seed of the run.</summary>
    public int Seed { get; }

    /// <summary>
    /// Gets the schedule, one line per step: which step ran, among how many ready ones, and for a behaviour which cowns
    /// it held; spawns appear as scheduling points (the spawner continues or pauses). Cowns are numbered c0, c1, … in
    /// order of first appearance, behaviours b1, b2, … in spawn order.
    /// </summary>
    public IReadOnlyList<string> Trace { get; }
}
