namespace Boc.Testing;

/// <summary>Uniform choice. <see cref="System.Random(int)"/> is seeded, so the sequence depends on the seed only.</summary>
internal sealed class RandomChooser(int seed) : IChooser
{
#pragma warning disable CA5394 // Schedule exploration, not security.
    private readonly Random _random = new(seed);

    public int Choose(IReadOnlyList<Work> ready, int step) => ready.Count == 1 ? 0 : _random.Next(ready.Count);
#pragma warning restore CA5394
}
