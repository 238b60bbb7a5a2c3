#if BOC_MODEL
namespace Boc;

/// <summary>
/// Model builds only (the <c>BOC_MODEL</c> symbol; tests/Boc.ModelTests): where <see cref="Atomic"/>'s scheduling points
/// go. A thread that a model's explorer controls has a <see cref="Current"/>; every other thread runs as in any build.
/// </summary>
internal static class ModelPoints
{
    /// <summary>Gets or sets the calling thread's controller, or null for a thread that no explorer controls.</summary>
    [ThreadStatic]
    internal static IModelThread? Current;

    /// <summary>
    /// A scheduling point: the explorer may run another thread before the caller's next shared-memory step, which may
    /// change memory if <paramref name="writes"/>.
    /// </summary>
    internal static void Reach(bool writes) => Current?.Point(writes);

    /// <summary>An iteration of a wait for another thread's step; returns false if the caller must spin for real.</summary>
    internal static bool Spin()
    {
        if (Current is not { } thread)
        {
            return false;
        }

        thread.Spin();
        return true;
    }

    /// <summary>
    /// Marks a section in which the calling thread must not be switched out (a lock section that reaches a scheduling
    /// point: the model runs one thread at a time, so another thread entering the lock would block for real).
    /// </summary>
    internal static AtomicSection Atomically()
    {
        Current?.EnterAtomic();
        return default;
    }

    /// <summary>Ends <see cref="Atomically"/>'s section when disposed.</summary>
    internal readonly struct AtomicSection : IDisposable
    {
        public void Dispose() => Current?.ExitAtomic();
    }
}

/// <summary>A controlled thread's side of the explorer (implemented by tests/Boc.ModelTests).</summary>
internal interface IModelThread
{
    /// <summary>Gets the processor this thread stands for (<see cref="Atomic.CurrentProcessorId"/>).</summary>
    int Processor { get; }

    /// <summary>A scheduling point before a shared-memory step (<paramref name="writes"/>: it may change memory).</summary>
    void Point(bool writes);

    /// <summary>A wait loop's iteration: let every other thread that can run go first.</summary>
    void Spin();

    /// <summary>Blocks on <paramref name="waitable"/> until <see cref="Wake"/>; a <paramref name="timed"/> wait may time out (false).</summary>
    bool Block(object waitable, bool timed);

    /// <summary>Makes up to <paramref name="count"/> threads blocked on <paramref name="waitable"/> runnable again.</summary>
    void Wake(object waitable, int count);

    /// <summary>Starts a section without switches (<see cref="ModelPoints.Atomically"/>).</summary>
    void EnterAtomic();

    /// <summary>Ends it.</summary>
    void ExitAtomic();
}
#endif
