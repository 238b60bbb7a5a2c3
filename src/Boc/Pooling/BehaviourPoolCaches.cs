using System.Runtime.CompilerServices;

namespace Boc;

/// <summary>
/// Every pooled behaviour type's thread cache, in the thread's <see cref="BocThread"/>: each
/// <see cref="BehaviourPool{T}"/> gets an index here once, and finds its cache for a thread at that index.
/// </summary>
/// <remarks>
/// Why not a thread-static in <see cref="BehaviourPool{T}"/> itself: the behaviour types are generic over reference
/// types, so the pool's code is shared between them, and a thread-static of a shared generic class is reached through
/// a runtime helper (a lookup of the exact type, then the thread's static block). In a chain of one-cown behaviours on
/// one worker (Savina's Thread Ring), the rent and the return of every hop went through it, plus its share of native
/// TLS lookups (docs/performance/decisions.md, "Prefetching the next behaviour"). A non-generic thread-static is one
/// inlined access, and the pool's index is an ordinary static of its own type. The caches array sits in <see
/// cref="BocThread"/>, with the runtime's other per-thread state, so that a spawn or a release looks the thread up once
/// for all of it.
/// </remarks>
internal static class BehaviourPoolCaches
{
    private static int s_typeCount;

    /// <summary>Gives a pooled type its index (once per type, from its static initializer).</summary>
    internal static int NextTypeIndex()
    {
#if BOC_MODEL
        // A type initializer holds the runtime's lock on the type: no switch inside it (Concurrency/Atomic.cs).
        using ModelPoints.AtomicSection section = ModelPoints.Atomically();
#endif
        return Atomic.Increment(ref s_typeCount) - 1;
    }

    /// <summary><paramref name="thread"/>'s cache at <paramref name="index"/>, or null if it has none yet.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static object? Get(BocThread thread, int index)
    {
        object?[]? caches = thread.PoolCaches;
        return caches is not null && (uint)index < (uint)caches.Length ? caches[index] : null;
    }

    /// <summary>Stores <paramref name="thread"/>'s cache at <paramref name="index"/> (first use of a type on that thread).</summary>
    internal static void Set(BocThread thread, int index, object cache)
    {
        object?[]? caches = thread.PoolCaches;
        if (caches is null || index >= caches.Length)
        {
            // Sized for every type known now (and at least 8), so a thread grows it rarely.
            int size = Math.Max(Math.Max(index + 1, Atomic.Read(ref s_typeCount)), 8);
            Array.Resize(ref caches, size);
            thread.PoolCaches = caches;
        }

        caches[index] = cache;
    }
}
