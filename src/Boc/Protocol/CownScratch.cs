namespace Boc;

/// <summary>
/// Each thread's buffer for staging a dynamic cown set (<see cref="CownSets.Stage{T}"/>), one per element type:
/// the spawn checks the caller's list into it before anything is admitted, then the behaviour copies it into its own
/// pooled array. Only the owning thread touches its buffer, and a spawn does not run user code between staging and
/// clearing (admission may block, but runs nothing), so one buffer per thread is enough. The spawn clears what it
/// staged once the behaviour has its copy (or TryWhen is refused); only a spawn whose admission throws (a full or
/// disposed runtime) leaves its cowns referenced here until the thread's next dynamic spawn of that element type.
/// </summary>
internal static class CownScratch<T>
    where T : class
{
    [ThreadStatic]
    private static IAcquirable<T>[]? t_buffer;

    /// <summary>Gets the calling thread's buffer as a span of <paramref name="count"/> elements, growing it if needed.</summary>
    internal static Span<IAcquirable<T>> For(int count)
    {
        IAcquirable<T>[]? buffer = t_buffer;
        if (buffer is null || buffer.Length < count)
        {
            // Powers of two, at least 8: a thread whose sets grow one by one does not reallocate each time.
            t_buffer = buffer = new IAcquirable<T>[Math.Max(8, (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)count))];
        }

        return buffer.AsSpan(0, count);
    }
}
