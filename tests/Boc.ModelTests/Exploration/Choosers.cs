namespace Boc.ModelTests.Exploration;

/// <summary>Decides, at each scheduling point, which of the threads that can run goes next.</summary>
internal interface IChooser
{
    /// <summary>
    /// Picks an index into <paramref name="eligible"/> (never empty); <paramref name="current"/> is the thread at the
    /// point (null when a thread ended or the run starts), <paramref name="step"/> the points so far.
    /// </summary>
    int Choose(IReadOnlyList<ControlledThread> eligible, ControlledThread? current, int step);
}

/// <summary>A uniformly random choice at every point: many switches, shallow and deep alike.</summary>
internal sealed class RandomChooser(int seed) : IChooser
{
#pragma warning disable CA5394 // Schedule exploration, not security.
    private readonly Random _random = new(seed);

    public int Choose(IReadOnlyList<ControlledThread> eligible, ControlledThread? current, int step) => _random.Next(eligible.Count);
#pragma warning restore CA5394
}

/// <summary>
/// PCT (Burckhardt et al., ASPLOS 2010): threads get random distinct priorities; the highest-priority thread that can
/// run runs; at <c>depth - 1</c> random steps the running thread drops below every other. A bug that needs d ordering
/// constraints is found with probability at least 1/(n·k^(d-1)) per schedule (n threads, k steps), and a schedule
/// switches only at those points and where the running thread waits, so a run costs few hand-overs.
/// </summary>
internal sealed class PctChooser : IChooser
{
#pragma warning disable CA5394 // Schedule exploration, not security.
    private readonly Random _random;
    private readonly HashSet<int> _changePoints = [];

    // Thread index -> priority (higher runs first); lowered threads get ever lower values.
    private readonly Dictionary<int, int> _priority = [];
    private int _lowest;

    public PctChooser(int seed, int depth, int expectedSteps)
    {
        _random = new Random(seed);
        int changes = Math.Min(depth - 1, expectedSteps);
        while (_changePoints.Count < changes)
        {
            _changePoints.Add(_random.Next(1, expectedSteps + 1));
        }
    }

    public int Choose(IReadOnlyList<ControlledThread> eligible, ControlledThread? current, int step)
    {
        foreach (ControlledThread thread in eligible)
        {
            if (!_priority.ContainsKey(thread.Index))
            {
                _priority[thread.Index] = _random.Next(1_000, 1_000_000);
            }
        }

        if (current is not null && _changePoints.Remove(step))
        {
            _priority[current.Index] = --_lowest;
        }

        int best = 0;
        for (int i = 1; i < eligible.Count; i++)
        {
            if (_priority[eligible[i].Index] > _priority[eligible[best].Index])
            {
                best = i;
            }
        }

        return best;
    }
#pragma warning restore CA5394
}
