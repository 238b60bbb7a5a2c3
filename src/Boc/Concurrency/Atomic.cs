using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;

namespace Boc;

/// <summary>
/// Every atomic and volatile operation of the runtime, in one place: each member is the <see cref="Volatile"/> or
/// <see cref="Interlocked"/> call of the same name (or a spin hint), inlined, so release builds compile exactly the
/// call they always did. Built with the <c>BOC_MODEL</c> symbol (the model tests, tests/Boc.ModelTests), each one first
/// reaches a scheduling point, where a controlled scheduler may run another thread: the interleavings of the real code
/// are explored there, one step of shared memory at a time (docs/internals/model-tests.md).
/// </summary>
/// <remarks>
/// <para>
/// The plain accesses that races are argued about (a field only its owner writes but others read as a hint, a store
/// another thread cannot race yet) stay plain; the facade holds only what needs a fence or an atomic step. A lock
/// section must not reach a scheduling point: the model runs one thread at a time, so a thread switched out while it
/// holds a lock would block the next one for real. The few sections that do are marked (<c>ModelPoints.Atomically</c>,
/// model builds only).
/// </para>
/// <para>
/// Spin hints (<see cref="SpinOnce(ref SpinWait, int)"/>) mark an iteration of a wait for another thread's step: under
/// the model the waiting thread lets every other thread run first, so a wait loop is a wait and not a livelock, and a
/// wait that nothing can end is reported as one. A bounded search or pause that waits for nothing in particular
/// (<see cref="PauseOnce"/>, <see cref="Pause"/>) is an ordinary scheduling point instead.
/// </para>
/// </remarks>
internal static class Atomic
{
    /// <summary><see cref="Volatile.Read(ref readonly int)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Read(ref readonly int location)
    {
        Point(writes: false);
        return Volatile.Read(in location);
    }

    /// <summary><see cref="Volatile.Read(ref readonly long)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long Read(ref readonly long location)
    {
        Point(writes: false);
        return Volatile.Read(in location);
    }

    /// <summary><see cref="Volatile.Read(ref readonly bool)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool Read(ref readonly bool location)
    {
        Point(writes: false);
        return Volatile.Read(in location);
    }

    /// <summary><see cref="Volatile.Read{T}(ref readonly T)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    [return: NotNullIfNotNull(nameof(location))]
    public static T Read<T>(ref readonly T location)
        where T : class?
    {
        Point(writes: false);
        return Volatile.Read(in location);
    }

    /// <summary><see cref="Volatile.Write(ref int, int)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Write(ref int location, int value)
    {
        Point(writes: true);
        Volatile.Write(ref location, value);
    }

    /// <summary><see cref="Volatile.Write(ref long, long)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Write(ref long location, long value)
    {
        Point(writes: true);
        Volatile.Write(ref location, value);
    }

    /// <summary><see cref="Volatile.Write(ref bool, bool)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Write(ref bool location, bool value)
    {
        Point(writes: true);
        Volatile.Write(ref location, value);
    }

    /// <summary><see cref="Volatile.Write{T}(ref T, T)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Write<T>([NotNullIfNotNull(nameof(value))] ref T location, T value)
        where T : class?
    {
        Point(writes: true);
        Volatile.Write(ref location, value);
    }

    /// <summary><see cref="Interlocked.Exchange(ref int, int)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Exchange(ref int location, int value)
    {
        Point(writes: true);
        return Interlocked.Exchange(ref location, value);
    }

    /// <summary><see cref="Interlocked.Exchange(ref long, long)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long Exchange(ref long location, long value)
    {
        Point(writes: true);
        return Interlocked.Exchange(ref location, value);
    }

    /// <summary><see cref="Interlocked.Exchange{T}(ref T, T)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static T Exchange<T>([NotNullIfNotNull(nameof(value))] ref T location, T value)
        where T : class?
    {
        Point(writes: true);
        return Interlocked.Exchange(ref location, value);
    }

    /// <summary><see cref="Interlocked.CompareExchange(ref int, int, int)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int CompareExchange(ref int location, int value, int comparand)
    {
        Point(writes: true);
        return Interlocked.CompareExchange(ref location, value, comparand);
    }

    /// <summary><see cref="Interlocked.CompareExchange(ref long, long, long)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long CompareExchange(ref long location, long value, long comparand)
    {
        Point(writes: true);
        return Interlocked.CompareExchange(ref location, value, comparand);
    }

    /// <summary><see cref="Interlocked.CompareExchange{T}(ref T, T, T)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    [return: NotNullIfNotNull(nameof(location))]
    public static T CompareExchange<T>([NotNullIfNotNull(nameof(value))] ref T location, T value, T comparand)
        where T : class?
    {
        Point(writes: true);
        return Interlocked.CompareExchange(ref location, value, comparand);
    }

    /// <summary><see cref="Interlocked.Increment(ref int)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Increment(ref int location)
    {
        Point(writes: true);
        return Interlocked.Increment(ref location);
    }

    /// <summary><see cref="Interlocked.Increment(ref long)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long Increment(ref long location)
    {
        Point(writes: true);
        return Interlocked.Increment(ref location);
    }

    /// <summary><see cref="Interlocked.Decrement(ref int)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Decrement(ref int location)
    {
        Point(writes: true);
        return Interlocked.Decrement(ref location);
    }

    /// <summary><see cref="Interlocked.Decrement(ref long)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long Decrement(ref long location)
    {
        Point(writes: true);
        return Interlocked.Decrement(ref location);
    }

    /// <summary><see cref="Interlocked.Add(ref int, int)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Add(ref int location, int value)
    {
        Point(writes: true);
        return Interlocked.Add(ref location, value);
    }

    /// <summary><see cref="Interlocked.Add(ref long, long)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static long Add(ref long location, long value)
    {
        Point(writes: true);
        return Interlocked.Add(ref location, value);
    }

    /// <summary><see cref="Interlocked.Or(ref int, int)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Or(ref int location, int value)
    {
        Point(writes: true);
        return Interlocked.Or(ref location, value);
    }

    /// <summary><see cref="Interlocked.MemoryBarrier"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void MemoryBarrier()
    {
        Point(writes: true);
        Interlocked.MemoryBarrier();
    }

    /// <summary><see cref="Interlocked.MemoryBarrierProcessWide"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void MemoryBarrierProcessWide()
    {
        Point(writes: true);
        Interlocked.MemoryBarrierProcessWide();
    }

    /// <summary>
    /// A plain store to a field that another thread races with by design (the argument beside the call says why no fence
    /// is needed there): the store itself, and a scheduling point in model builds, so the race is explored too.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void PlainWrite<T>(ref T location, T value)
        where T : class?
    {
        Point(writes: true);
        location = value;
    }

    /// <summary>One iteration of a wait for another thread's step: <see cref="System.Threading.SpinWait.SpinOnce(int)"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void SpinOnce(ref SpinWait spin, int sleep1Threshold)
    {
#if BOC_MODEL
        if (ModelPoints.Spin())
        {
            return;
        }
#endif
        spin.SpinOnce(sleep1Threshold);
    }

    /// <summary>One iteration of a wait for another thread's step: <see cref="System.Threading.SpinWait.SpinOnce()"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void SpinOnce(ref SpinWait spin)
    {
#if BOC_MODEL
        if (ModelPoints.Spin())
        {
            return;
        }
#endif
        spin.SpinOnce();
    }

    /// <summary>
    /// One iteration of a bounded search that is not a wait for any particular step (an idle worker looking for work a
    /// few times before it parks): <see cref="System.Threading.SpinWait.SpinOnce(int)"/>. Under the model an ordinary
    /// scheduling point, so the search can run to its end while other threads run or not.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void PauseOnce(ref SpinWait spin, int sleep1Threshold)
    {
#if BOC_MODEL
        if (ModelPoints.Current is not null)
        {
            Point(writes: false);
            return;
        }
#endif
        spin.SpinOnce(sleep1Threshold);
    }

    /// <summary>
    /// A bounded pause between two looks at a hint (a runner holding a filling tail): <see cref="Thread.SpinWait(int)"/>.
    /// Under the model an ordinary scheduling point.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Pause(int iterations)
    {
#if BOC_MODEL
        if (ModelPoints.Current is not null)
        {
            Point(writes: false);
            return;
        }
#endif
        Thread.SpinWait(iterations);
    }

    /// <summary>
    /// <see cref="Thread.GetCurrentProcessorId"/>: a hint (stripes, a spinner's processor). Under the model each
    /// controlled thread is a processor of its own, so the hint does not make a schedule depend on the machine.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int CurrentProcessorId()
    {
#if BOC_MODEL
        if (ModelPoints.Current is { } thread)
        {
            return thread.Processor;
        }
#endif
        return Thread.GetCurrentProcessorId();
    }

    /// <summary>
    /// The scheduling point before every operation (<paramref name="writes"/>: the operation may change memory, which
    /// is what a spinning thread waits for): nothing at all unless built for the model tests.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Point(bool writes)
    {
#if BOC_MODEL
        ModelPoints.Reach(writes);
#else
        _ = writes;
#endif
    }
}
