using System.Runtime.CompilerServices;
using Boc.Scheduling;

namespace Boc;

/// <summary>
/// A pool of behaviour objects of one concrete type: a small per-thread cache in front of a bounded shared store.
/// Renting and returning on one thread touch only thread-local state (no lock, no interlocked operation); the shared
/// store, behind a lock, only moves batches between threads that spawn more than they run and threads that run more
/// than they spawn.
/// </summary>
/// <remarks>
/// <para>
/// A behaviour is returned only when nothing can reach it any more; <c>Behaviour.Reuse.cs</c> ("Reuse") gives the argument.
/// The pool itself never hands one object to two renters: the thread cache is private, and the shared store moves
/// objects under its lock.
/// </para>
/// <para>
/// In front of the thread caches, one object per thread, of any type: <see cref="BocThread.Spare"/>. A message chain's
/// hop (Savina's Ping Pong and Thread Ring: a body spawns the next message, then its behaviour returns to the pool)
/// returns one behaviour and rents one, in turn, on one thread, and the spawn of hop k + 1 can take the object that hop
/// k returned, of its type in a chain of one type and also in Ping Pong's alternation of two. The spare costs a field
/// read, a type compare and a store each way, where the thread cache costs its index (a static of this shared generic
/// class, reached through a runtime helper), its array, its count and a store with a write barrier
/// (docs/performance/decisions.md, "A spare behaviour per thread", has what the chains gained). A rent takes the spare
/// only if it is exactly of this type; a return parks its object there only if the spare is empty, else goes to the
/// thread cache as before, so a flood (many returns between rents) uses the caches. The order in which a thread gets
/// its objects back changes only between types; of one type, a rent still gets the object returned last while it is the
/// spare, or else the cache's newest. On a <see cref="BocScheduler"/> worker the spare of a plain one-cown <c>When</c>
/// is also warm: it keeps its references until it is rented again or the worker parks (<see cref="BocThread.Spare"/>'s
/// remarks).
/// </para>
/// <para>
/// Two costs of the obvious shape showed up in a flood's profile (one producer body spawning a million behaviours that
/// another worker runs, so every object crosses threads through the shared store): storing into a <c>T[]</c> of a
/// reference type goes through the covariant array-store check (docs/performance/decisions.md, "Smaller pending
/// behaviours"), and each thread-static of a
/// generic class is a helper call. Hence arrays of a one-field struct (a struct array has no covariance to check) and
/// one cache object per type and thread holding both the array and its count, found through a non-generic
/// thread-static (<see cref="BehaviourPoolCaches"/>).
/// </para>
/// </remarks>
internal static class BehaviourPool<T>
    where T : Behaviour, new()
{
    private const int LocalCapacity = 64;
    private const int Batch = LocalCapacity / 2;
    private const int SharedCapacity = 1024;
    private const int PrefetchDistance = 2;

    // This type's place among the thread caches (BehaviourPoolCaches says why they are not a thread-static here).
    private static readonly int s_index = BehaviourPoolCaches.NextTypeIndex();

    private static readonly Lock s_lock = new();
    private static readonly Entry[] s_shared = new Entry[SharedCapacity];
    private static int s_sharedCount;

    /// <summary>Rents an object on the calling thread.</summary>
    public static T Rent() => Rent(BocThread.Current);

    /// <summary>Rents an object on <paramref name="thread"/>, the calling thread's (looked up by the caller).</summary>
    public static T Rent(BocThread thread)
    {
        // The spare first: the object this thread returned last, if it is of this type (a chain's previous hop).
        if (thread.Spare is { } spare && spare.GetType() == typeof(T))
        {
            thread.Spare = null;
            T reused = Unsafe.As<T>(spare);
            reused.MarkRented();
            return reused;
        }

        Cache? cache = Unsafe.As<Cache?>(BehaviourPoolCaches.Get(thread, s_index));
        T item;
        if (cache is not null && cache.Count > 0)
        {
            int count = cache.Count - 1;
            ref Entry entry = ref cache.Items[count];
            item = entry.Value!;
            entry.Value = null;
            cache.Count = count;

            // The object rented two spawns from now was most likely last written by another core (a worker ran and
            // returned it): start fetching it now, so its miss overlaps two spawns (Scheduling/Prefetch.cs says why).
            if (count >= PrefetchDistance)
            {
                Prefetch.Object(cache.Items[count - PrefetchDistance].Value);
            }
        }
        else
        {
            item = RentSlow(thread);
        }

        item.MarkRented();
        return item;
    }

    /// <summary>Returns <paramref name="item"/> to <paramref name="thread"/>'s cache (the calling thread's).</summary>
    public static void Return(T item, BocThread thread)
    {
        if (thread.Spare is null)
        {
            thread.Spare = item;
            return;
        }

        Cache cache = Unsafe.As<Cache?>(BehaviourPoolCaches.Get(thread, s_index)) ?? CreateCache(thread);
        int count = cache.Count;
        if (count == LocalCapacity)
        {
            count = SpillToShared(cache.Items);
        }

        cache.Items[count].Value = item;
        cache.Count = count + 1;
    }

    private static Cache CreateCache(BocThread thread)
    {
        var cache = new Cache();
        BehaviourPoolCaches.Set(thread, s_index, cache);
        return cache;
    }

    private static T RentSlow(BocThread thread)
    {
        Cache cache = Unsafe.As<Cache?>(BehaviourPoolCaches.Get(thread, s_index)) ?? CreateCache(thread);
        Entry[] items = cache.Items;
        int taken = 0;
        if (Atomic.Read(ref s_sharedCount) > 0)
        {
            lock (s_lock)
            {
                while (taken < Batch && s_sharedCount > 0)
                {
                    s_sharedCount--;
                    items[taken++] = s_shared[s_sharedCount];
                    s_shared[s_sharedCount] = default;
                }
            }
        }

        if (taken == 0)
        {
            return new T();
        }

        taken--;
        T item = items[taken].Value!;
        items[taken] = default;
        cache.Count = taken;
        return item;
    }

    /// <summary>Moves the older half of a full thread cache to the shared store (dropping what does not fit).</summary>
    private static int SpillToShared(Entry[] items)
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

    /// <summary>One pooled object; a struct, so that storing it into an array needs no covariance check.</summary>
    private struct Entry
    {
        public T? Value;
    }

    /// <summary>A thread's cache of this type (one object, so the array and its count are found with one lookup).</summary>
    private sealed class Cache
    {
        public readonly Entry[] Items = new Entry[LocalCapacity];
        public int Count;
    }
}
