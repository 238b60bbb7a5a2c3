using Boc.Benchmarks.Savina.Parallel;

namespace Boc.Benchmarks.Tests;

/// <summary>
/// Quicksort's pooled fragment and the kernel built on it, checked against <see cref="List{T}"/> and
/// <see cref="Array.Sort{T}(T[])"/> as oracles on seeded random inputs (the seed is in the test's name).
/// </summary>
public sealed class LongBufferTests
{
    [Theory]
    [InlineData(1, 0)]
    [InlineData(2, 1)]
    [InlineData(3, 17)]
    [InlineData(4, 5_000)]
    public void AddAndAddRange_MatchAList_AcrossGrowth(int seed, int count)
    {
        var random = new Random(seed);
        var buffer = new LongBuffer();
        var oracle = new List<long>();
        for (int i = 0; i < count; i++)
        {
            if (random.Next(8) == 0)
            {
                long[] run = Enumerable.Range(0, random.Next(40)).Select(_ => random.NextInt64()).ToArray();
                buffer.AddRange(run);
                oracle.AddRange(run);
            }
            else
            {
                long value = random.NextInt64();
                buffer.Add(value);
                oracle.Add(value);
            }
        }

        Assert.Equal(oracle.Count, buffer.Count);
        Assert.Equal(oracle, buffer.Span.ToArray());
        for (int i = 0; i < oracle.Count; i++)
        {
            Assert.Equal(oracle[i], buffer[i]);
        }
    }

    [Fact]
    public void Release_EmptiesTheBuffer_AndASecondReleaseIsHarmless()
    {
        LongBuffer buffer = LongBuffer.From([3, 1, 2]);
        buffer.Release();
        Assert.Equal(0, buffer.Count);
        Assert.True(buffer.Span.IsEmpty);

        // A second release must not hand the same array to the pool twice (two later renters would share it).
        buffer.Release();
        buffer.Add(9);
        Assert.Equal([9L], buffer.Span.ToArray());
    }

    [Fact]
    public void Indexer_OutsideTheValues_Throws()
    {
        LongBuffer buffer = LongBuffer.From([1, 2]);
        Assert.Throws<ArgumentOutOfRangeException>(() => buffer[2]);
        Assert.Throws<ArgumentOutOfRangeException>(() => buffer[-1]);
        Assert.Throws<ArgumentOutOfRangeException>(() => new LongBuffer(-1));
    }

    [Theory]
    [InlineData(11, 0, 100)]
    [InlineData(12, 1, 100)]
    [InlineData(13, 3_000, 50)]
    [InlineData(14, 20_000, 1L << 40)]
    public void SortSequentially_SortsLikeArraySort(int seed, int count, long range)
    {
        var random = new Random(seed);
        long[] values = Enumerable.Range(0, count).Select(_ => random.NextInt64(range)).ToArray();
        long[] expected = [.. values];
        Array.Sort(expected);

        LongBuffer sorted = QuicksortModel.SortSequentially(LongBuffer.From(values));

        Assert.Equal(expected, sorted.Span.ToArray());
    }

    [Fact]
    public void Pivotize_SplitsAroundThePivot_KeepingOrder()
    {
        (LongBuffer less, LongBuffer equal, LongBuffer greater) =
            QuicksortModel.Pivotize(LongBuffer.From([5, 9, 1, 5, 7, 3, 5]), 5);

        Assert.Equal([1L, 3], less.Span.ToArray());
        Assert.Equal([5L, 5, 5], equal.Span.ToArray());
        Assert.Equal([9L, 7], greater.Span.ToArray());
    }

    [Fact]
    public void Join_ConcatenatesInOrder_AndReleasesBothInputs()
    {
        LongBuffer first = LongBuffer.From([1, 2]);
        LongBuffer second = LongBuffer.From([3]);

        LongBuffer joined = QuicksortModel.Join(first, second);

        Assert.Equal([1L, 2, 3], joined.Span.ToArray());
        Assert.Equal(0, first.Count);
        Assert.Equal(0, second.Count);
    }
}
