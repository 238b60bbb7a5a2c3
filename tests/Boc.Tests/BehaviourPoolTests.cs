namespace Boc.Tests;

/// <summary>
/// The pool's thread side: the spare in front of the thread caches (<see cref="BocThread.Spare"/>) is taken only by a rent
/// of its exact type, parks only one object, and the pool never hands one object to two renters (a seeded random mix of
/// rents and returns of two types on one thread, against a set of the objects outstanding).
/// </summary>
public sealed class BehaviourPoolTests
{
    [Fact]
    public void TheSpare_IsTakenOnlyByARentOfItsExactType()
    {
        RunOnFreshThread(() =>
        {
            var a = BehaviourPool<ActionBehaviour<Action>>.Rent();
            BehaviourPool<ActionBehaviour<Action>>.Return(a, BocThread.Current);
            Assert.Same(a, BocThread.Current.Spare);

            // Another type does not take it; its own rent does.
            var b = BehaviourPool<ActionBehaviour<Func<int>>>.Rent();
            Assert.NotSame(a, b);
            Assert.Same(a, BocThread.Current.Spare);
            Assert.Same(a, BehaviourPool<ActionBehaviour<Action>>.Rent());
            Assert.Null(BocThread.Current.Spare);

            // With the spare taken by b, a goes to its type's cache and still comes back.
            BehaviourPool<ActionBehaviour<Func<int>>>.Return(b, BocThread.Current);
            BehaviourPool<ActionBehaviour<Action>>.Return(a, BocThread.Current);
            Assert.Same(b, BocThread.Current.Spare);
            Assert.Same(a, BehaviourPool<ActionBehaviour<Action>>.Rent());
            Assert.Same(b, BehaviourPool<ActionBehaviour<Func<int>>>.Rent());
        });
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(3)]
    public void RentsAndReturns_NeverHandOneObjectToTwoRenters(int seed)
    {
        RunOnFreshThread(() =>
        {
            var random = new Random(seed);
            var outstanding = new HashSet<Behaviour>(ReferenceEqualityComparer.Instance);
            var held = new List<Behaviour>();
            for (int step = 0; step < 20_000; step++)
            {
                if (held.Count > 0 && random.Next(2) == 0)
                {
                    int i = random.Next(held.Count);
                    Behaviour item = held[i];
                    held.RemoveAt(i);
                    outstanding.Remove(item);
                    if (item is ActionBehaviour<Action> first)
                    {
                        BehaviourPool<ActionBehaviour<Action>>.Return(first, BocThread.Current);
                    }
                    else
                    {
                        BehaviourPool<ActionBehaviour<Func<int>>>.Return((ActionBehaviour<Func<int>>)item, BocThread.Current);
                    }
                }
                else
                {
                    Behaviour item = random.Next(2) == 0
                        ? BehaviourPool<ActionBehaviour<Action>>.Rent()
                        : BehaviourPool<ActionBehaviour<Func<int>>>.Rent();
                    Assert.True(outstanding.Add(item), $"seed {seed}, step {step}: an object was handed out while still rented");
                    held.Add(item);
                }
            }
        });
    }

    /// <summary>Runs <paramref name="test"/> on a thread of its own, whose spare and caches no other test has touched.</summary>
    private static void RunOnFreshThread(Action test)
    {
        Exception? failure = null;
        var thread = new Thread(() =>
        {
            try
            {
                test();
            }
            catch (Exception e)
            {
                failure = e;
            }
        });
        thread.Start();
        thread.Join();
        if (failure is not null)
        {
            throw new Xunit.Sdk.XunitException($"on the test's thread: {failure}");
        }
    }
}
