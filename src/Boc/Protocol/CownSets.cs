namespace Boc;

/// <summary>
/// A dynamic cown set (the <c>When</c> forms that take a list), checked and copied before anything is admitted, rented
/// or enqueued: a bad element, or a list changed by another thread meanwhile, cannot leave a behaviour half-enqueued.
/// </summary>
internal static class CownSets
{
    /// <summary>
    /// Copies and validates a dynamic cown set into the calling thread's scratch buffer, before anything is admitted,
    /// rented or enqueued: a bad element, or a list changed by another thread meanwhile, cannot leave a behaviour
    /// half-enqueued, and the behaviour copies the set from a snapshot that nobody else writes. The spawn clears the
    /// returned span once the behaviour has its copy. No allocation once the thread's buffer is large enough.
    /// </summary>
    internal static Span<IAcquirable<T>> Stage<T>(IReadOnlyList<IAcquirable<T>> cowns, int singles)
        where T : class
    {
        int count = CountOf(cowns, singles);

        Span<IAcquirable<T>> staged = CownScratch<T>.For(count);
        for (int i = 0; i < count; i++)
        {
            if (cowns[i] is not { } cown)
            {
                staged[..i].Clear();
                throw new ArgumentException($"The cown at index {i} is null.", nameof(cowns));
            }

            staged[i] = cown;
        }

        return staged;
    }

    /// <summary>
    /// Copies and validates a dynamic cown set into a new array (a batch member, which keeps it until the batch is
    /// enqueued), so that a bad element or a list changed by another thread cannot leave a behaviour half-enqueued.
    /// </summary>
    internal static IAcquirable<T>[] Snapshot<T>(IReadOnlyList<IAcquirable<T>> cowns, int singles)
        where T : class
    {
        int count = CountOf(cowns, singles);

        var copy = new IAcquirable<T>[count];
        for (int i = 0; i < count; i++)
        {
            copy[i] = cowns[i] ?? throw new ArgumentException($"The cown at index {i} is null.", nameof(cowns));
        }

        return copy;
    }

    /// <summary>The set's size, checked against the bound on a behaviour's cowns (with <paramref name="singles"/> more).</summary>
    private static int CountOf<T>(IReadOnlyList<IAcquirable<T>> cowns, int singles)
        where T : class
    {
        ArgumentNullException.ThrowIfNull(cowns);
        int count = cowns.Count;
        if (count > BocRuntime.MaxCownsPerBehaviour - singles)
        {
            throw new ArgumentException(
                $"A behaviour may acquire at most {BocRuntime.MaxCownsPerBehaviour} cowns; {count + singles} were requested.", nameof(cowns));
        }

        return count;
    }
}
