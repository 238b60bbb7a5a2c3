using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics.X86;

namespace Boc.Scheduling;

/// <summary>
/// Asks the processor to start loading an object's first two cache lines now, because a thread is about to use an
/// object that another core wrote last.
/// </summary>
/// <remarks>
/// <para>
/// Why. Two places hand behaviour objects between cores: a producer thread that spawns onto idle cowns rents objects
/// that workers ran and returned, and a worker runs objects that the producer just wrote. Either way the first touch of
/// the object is a cache miss on a line held by the other core. In a profile of that flood (an outside thread spawning
/// onto a thousand idle cowns) those misses were most of the cost on both sides: the producer's first locked
/// instruction after initialising the object stalled on them, and the worker's first read of each behaviour was its
/// hottest instruction (docs/performance/decisions.md, "Prefetching the next behaviour"). Both sides know which object
/// comes next (the pool's next free object, the queue's next item), so they fetch it one or two items early and the
/// miss overlaps useful work instead of stalling it.
/// </para>
/// <para>
/// Safety. A prefetch is only a hint: it never faults and changes no value, whatever the address. The address is read
/// from a reference the caller holds, so it is the object's current address unless a garbage collection moves the
/// object in between, in which case the hint fetches stale lines and nothing else happens. Two lines, because a
/// one-cown behaviour is 96 bytes and may straddle them. On processors without SSE (ARM64) it does nothing.
/// </para>
/// </remarks>
internal static class Prefetch
{
    /// <summary>Starts loading the first two cache lines of <paramref name="item"/>, if it is not null.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static unsafe void Object(object? item)
    {
        if (Sse.IsSupported && item is not null)
        {
            // The reference's bits are the object's address (its method-table pointer, where its fields start).
            byte* address = (byte*)Unsafe.As<object, nint>(ref item);
            Sse.Prefetch0(address);
            Sse.Prefetch0(address + 64);
        }
    }
}
