namespace Boc;

/// <summary>
/// A pool of behaviour objects of one concrete type: a small per-thread cache in front of a bounded shared store.
/// Renting and returning on one thread touch only thread-local state (no lock, no interlocked operation); the shared
/// store, behind a lock, only moves batches between threads that spawn more than they run and threads that run more
/// than they spawn.
/// </summary>
/// <remarks>
/// A behaviour is returned only when nothing can reach it any more; <c>Behaviour.cs</c> ("Reuse") gives the argument.
/// The pool itself never hands one object to two renters: the thread cache is private, and the shared store moves
/// objects under its lock.
/// </remarks>
internal static class BehaviourPool<T>
    where T : Behaviour, new()
{
    private const int LocalCapacity = 32;
    private const int Batch = LocalCapacity / 2;
    private const int SharedCapacity = 1024;

    [ThreadStatic]
    private static T?[]? t_items;

    [ThreadStatic]
    private static int t_count;

    private static readonly Lock s_lock = new();
    private static readonly T?[] s_shared = new T?[SharedCapacity];
    private static int s_sharedCount;

    public static T Rent()
    {
        T?[]? items = t_items;
        int count = t_count;
        T item;
        if (items is not null && count > 0)
        {
            count--;
            item = items[count]!;
            items[count] = null;
            t_count = count;
        }
        else
        {
            item = RentSlow();
        }

        item.MarkRented();
        return item;
    }

    public static void Return(T item)
    {
        T?[] items = t_items ??= new T?[LocalCapacity];
        int count = t_count;
        if (count == LocalCapacity)
        {
            count = SpillToShared(items);
        }

        items[count] = item;
        t_count = count + 1;
    }

    private static T RentSlow()
    {
        T?[] items = t_items ??= new T?[LocalCapacity];
        int taken = 0;
        if (Volatile.Read(ref s_sharedCount) > 0)
        {
            lock (s_lock)
            {
                while (taken < Batch && s_sharedCount > 0)
                {
                    s_sharedCount--;
                    items[taken++] = s_shared[s_sharedCount];
                    s_shared[s_sharedCount] = null;
                }
            }
        }

        if (taken == 0)
        {
            return new T();
        }

        taken--;
        T item = items[taken]!;
        items[taken] = null;
        t_count = taken;
        return item;
    }

    /// <summary>Moves the older half of a full thread cache to the shared store (dropping what does not fit).</summary>
    private static int SpillToShared(T?[] items)
    {
        lock (s_lock)
        {
            for (int i = 0; i < Batch && s_sharedCount < SharedCapacity; i++)
            {
                s_shared[s_sharedCount++] = items[i];
            }
        }

        // Keep the newer half (most likely still in this core's cache) at the bottom of the thread cache.
        Array.Copy(items, Batch, items, 0, LocalCapacity - Batch);
        Array.Clear(items, LocalCapacity - Batch, Batch);
        return LocalCapacity - Batch;
    }
}
