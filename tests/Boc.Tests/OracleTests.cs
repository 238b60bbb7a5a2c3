namespace Boc.Tests;

/// <summary>The stress tests' oracle must itself be able to fail: fabricated traces it has to reject or accept.</summary>
public sealed class OracleTests
{
    [Fact]
    public void OverlappingWriters_AreReported()
    {
        Assert.NotEmpty(Oracle.Check([new(1, 0, true, 1, 2, 10, 20), new(2, 0, true, 3, 4, 15, 25)]));
    }

    [Fact]
    public void AReaderOverlappingAWriter_IsReported()
    {
        Assert.NotEmpty(Oracle.Check([new(1, 0, false, 1, 2, 10, 20), new(2, 0, true, 3, 4, 19, 25)]));
    }

    [Fact]
    public void OverlappingReaders_AreFine()
    {
        Assert.Empty(Oracle.Check([new(1, 0, false, 1, 2, 10, 20), new(2, 0, false, 3, 4, 11, 25)]));
    }

    [Fact]
    public void ConflictingBehavioursRunningAgainstSpawnOrder_AreReported()
    {
        // Behaviour 1 was spawned (1..2) before behaviour 2 (3..4) but ran after it.
        Assert.NotEmpty(Oracle.Check([new(1, 0, true, 1, 2, 30, 40), new(2, 0, false, 3, 4, 10, 20)]));
    }

    [Fact]
    public void ConcurrentSpawns_MayRunInEitherOrder()
    {
        // The When calls overlapped (1..4 and 2..3), so either order is allowed.
        Assert.Empty(Oracle.Check([new(1, 0, true, 1, 4, 30, 40), new(2, 0, true, 2, 3, 10, 20)]));
    }

    [Fact]
    public void DifferentCowns_AreIndependent()
    {
        Assert.Empty(Oracle.Check([new(1, 0, true, 1, 2, 30, 40), new(2, 1, true, 3, 4, 10, 35)]));
    }
}
