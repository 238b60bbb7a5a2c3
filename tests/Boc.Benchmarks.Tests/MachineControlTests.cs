using Boc.Benchmarks.Savina;

namespace Boc.Benchmarks.Tests;

/// <summary>The machine controls compute what they claim, so their rows measure work that was done.</summary>
public sealed class MachineControlTests
{
    [Fact]
    public void CpuWork_MatchesAStraightforwardCount()
    {
        const int steps = 100_000;
        var counts = new Dictionary<uint, long>();
        uint x = 1;
        for (int i = 0; i < steps; i++)
        {
            x = unchecked((x * 1_664_525) + 1_013_904_223);
            counts[x >> 18] = counts.GetValueOrDefault(x >> 18) + 1;
        }

        long expected = counts.Sum(entry => entry.Value * entry.Key);
        Assert.Equal(expected, MachineControl.CpuWork(steps));
    }

    [Theory]
    [InlineData(0)]
    [InlineData(1)]
    [InlineData(4095)]
    [InlineData(100_000)]
    public void StoreWork_LeavesEachEntryWithTheLastIndexStoredThere(int count)
    {
        // Entry e holds the largest i < count with (17 i) mod 4096 == e; the sum over the entries is the checksum.
        var last = new long[MachineControl.StoreTableLength];
        for (int i = 0; i < count; i++)
        {
            last[(int)((17L * i) % MachineControl.StoreTableLength)] = i;
        }

        Assert.Equal(last.Sum(), MachineControl.StoreWork(count));
    }

    [Fact]
    public async Task CrossCore_EchoesEveryPing_AcrossRepeatedCalls()
    {
        using var partner = new CrossCorePartner();
        for (int round = 0; round < 3; round++)
        {
            // Each call starts again from 1: the sum is 1 + ... + n only if every ping was echoed once, in order.
            // A partner that stops answering is a failure too (not a timing assertion: the limit is far above a run).
            long sum = await Task.Run(() => partner.RoundTrips(1000)).WaitAsync(TimeSpan.FromSeconds(60));
            Assert.Equal(1000L * 1001 / 2, sum);
        }
    }

    [Fact]
    public void CrossCore_RefusesUseAfterDispose()
    {
        var partner = new CrossCorePartner();
        partner.Dispose();
        partner.Dispose();
        Assert.Throws<ObjectDisposedException>(() => partner.RoundTrips(1));
    }
}
