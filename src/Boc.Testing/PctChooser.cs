namespace Boc.Testing;

/// <summary>
/// PCT: chains (a behaviour and its continuations; otherwise a single step) get random distinct priorities as they
/// appear; the highest-priority ready chain runs; at each change point the chain about to run drops below every other.
/// </summary>
internal sealed class PctChooser : IChooser
{
#pragma warning disable CA5394 // Schedule exploration, not security.
    private readonly Random _random;

    // Chains from highest to lowest priority. Runs have tens to thousands of chains, so a list is fine.
    private readonly List<int> _byPriority = [];
    private readonly HashSet<int> _known = [];
    private readonly HashSet<int> _changePoints = [];

    public PctChooser(int seed, int depth, int stepBound)
    {
        _random = new Random(seed);
        int changes = Math.Min(depth - 1, stepBound);
        while (_changePoints.Count < changes)
        {
            _changePoints.Add(_random.Next(1, stepBound + 1));
        }
    }

    public int Choose(IReadOnlyList<Work> ready, int step)
    {
        foreach (Work work in ready)
        {
            if (_known.Add(work.Chain))
            {
                _byPriority.Insert(_random.Next(_byPriority.Count + 1), work.Chain);
            }
        }

        int best = Highest(ready);
        if (_changePoints.Contains(step))
        {
            int chain = ready[best].Chain;
            _byPriority.Remove(chain);
            _byPriority.Add(chain);
            best = Highest(ready);
        }

        return best;
    }

    private int Highest(IReadOnlyList<Work> ready)
    {
        int best = 0;
        int bestRank = int.MaxValue;
        for (int i = 0; i < ready.Count; i++)
        {
            int rank = _byPriority.IndexOf(ready[i].Chain);
            if (rank < bestRank)
            {
                bestRank = rank;
                best = i;
            }
        }

        return best;
    }
#pragma warning restore CA5394
}
