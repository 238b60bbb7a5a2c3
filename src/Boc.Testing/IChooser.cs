namespace Boc.Testing;

/// <summary>One run's decision maker: given the ready steps, picks the index of the one to run.</summary>
internal interface IChooser
{
    /// <summary>Picks one of <paramref name="ready"/> (never empty) at step <paramref name="step"/> (1-based).</summary>
    int Choose(IReadOnlyList<Work> ready, int step);
}
