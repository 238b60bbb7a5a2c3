namespace Boc.Testing.Tests.Zoo;

/// <summary>
/// A small Boc program with a schedule-dependent bug, and its fix. Both are scenarios: they take the runtime they are
/// given, so the same code runs under Boc.Testing and on a real runtime (the contrast measurement in
/// benchmarks/Boc.Testing.Bench). A run that hits the bug throws <see cref="ZooBugException"/> or never finishes.
/// </summary>
internal sealed record ZooCase(string Name, Func<BocRuntime, Task> Buggy, Func<BocRuntime, Task> Fixed, BocTestFailureKind Symptom)
{
    public static IReadOnlyList<ZooCase> All { get; } =
    [
        DisjointOrder.Case,
        CheckThenAct.Case,
        LostUpdate.Case,
        MutualAwait.Case,
        MissedWakeUp.Case,
        NestedSpawnOrder.Case,
        CanceledHalfTransfer.Case,
    ];

    public override string ToString() => Name;
}

/// <summary>The bug showed: an invariant the program relies on does not hold.</summary>
internal sealed class ZooBugException(string message) : Exception(message);

/// <summary>Mutable state for cowns (and, in the buggy programs, for sharing that should not happen).</summary>
internal sealed class Box
{
    public int Value { get; set; }
}
