namespace Boc.Orleans;

/// <summary>
/// The steps of an attempt at which tests make the spawner die (BocCluster.FaultHook): the "buggify" points of the
/// failure tests, one per row of docs/distributed.md's failure table.
/// </summary>
internal enum SpawnerStep
{
    Enqueued,
    Acquired,
    BodyRan,
    Prepared,
    CommitSent,
    Committed,
    Finished,
}

/// <summary>Thrown by a test's fault hook: the spawner dies here, sending nothing more for the attempt.</summary>
internal sealed class SpawnerCrashException(SpawnerStep step) : Exception($"Spawner crashed (test fault) at {step}.")
{
    public SpawnerStep Step { get; } = step;
}
