using Boc.Benchmarks.Savina.Concurrency;

namespace Boc.Benchmarks.Tests;

/// <summary>
/// Logistic Map's pooled stash, checked against <see cref="Queue{T}"/> as the oracle on seeded random mixes of enqueues and
/// dequeues, across growth and wrap-around (the seed is in the test's name).
/// </summary>
public sealed class PooledQueueTests
{
    [Theory]
    [InlineData(1, 0)]
    [InlineData(2, 15)]
    [InlineData(3, 17)]
    [InlineData(4, 5_000)]
    [InlineData(5, 40_000)]
    public void EnqueueAndDequeue_MatchAQueue_AcrossGrowthAndWrapAround(int seed, int operations)
    {
        var random = new Random(seed);
        var queue = new PooledQueue<int>();
        var oracle = new Queue<int>();
        for (int i = 0; i < operations; i++)
        {
            // Two enqueues to one dequeue on average, so the ring both grows and wraps.
            if (oracle.Count > 0 && random.Next(3) == 0)
            {
                Assert.Equal(oracle.Dequeue(), queue.Dequeue());
            }
            else
            {
                int value = random.Next();
                queue.Enqueue(value);
                oracle.Enqueue(value);
            }

            Assert.Equal(oracle.Count, queue.Count);
        }

        while (oracle.Count > 0)
        {
            Assert.Equal(oracle.Dequeue(), queue.Dequeue());
        }

        Assert.Equal(0, queue.Count);
    }

    [Fact]
    public void Dequeue_OnAnEmptyQueue_Throws()
    {
        var queue = new PooledQueue<int>();
        Assert.Throws<InvalidOperationException>(() => queue.Dequeue());
        queue.Enqueue(1);
        Assert.Equal(1, queue.Dequeue());
        Assert.Throws<InvalidOperationException>(() => queue.Dequeue());
    }

    [Fact]
    public void Release_EmptiesTheQueue_AndASecondReleaseIsHarmless()
    {
        var queue = new PooledQueue<int>();
        for (int i = 0; i < 100; i++)
        {
            queue.Enqueue(i);
        }

        queue.Release();
        Assert.Equal(0, queue.Count);

        // A second release must not hand the same array to the pool twice (two later renters would share it).
        queue.Release();
        queue.Enqueue(7);
        queue.Enqueue(8);
        Assert.Equal(7, queue.Dequeue());
        Assert.Equal(8, queue.Dequeue());
    }
}
