namespace Boc.Testing;

/// <summary>What a <see cref="Fiber"/> is told to do when it is woken.</summary>
internal enum FiberCommand
{
    /// <summary>Run the scheduling loop of <see cref="Fiber.Execution"/>, starting with <see cref="Fiber.First"/>.</summary>
    Loop,

    /// <summary>Continue the step paused at a spawn.</summary>
    Resume,

    /// <summary>The run is over: unwind the step paused at a spawn (it throws <see cref="ControlledRunAbandonedException"/>).</summary>
    Abandon,

    /// <summary>A fiber told to abandon its step has unwound it (sent to the fiber that ended the run).</summary>
    Done,

    /// <summary>The run is over (sent to the run's own thread).</summary>
    Ended,

    /// <summary>The pool is disposed: the thread exits.</summary>
    Exit,
}

/// <summary>
/// A thread of a controlled run. Steps run on fibers so that a step can be paused at a spawn (its thread blocks) while
/// other steps run; exactly one fiber of a run runs at any time, handing the baton over through these semaphores, so a
/// run stays sequential and deterministic. The run's own thread is a fiber too; more come from a <see cref="FiberPool"/>
/// only when a step is paused.
/// </summary>
internal sealed class Fiber : IDisposable
{
    [ThreadStatic]
    private static Fiber? t_current;

    private readonly SemaphoreSlim _wake = new(0);
    private readonly FiberPool? _pool;
    private FiberCommand _command;

    private Fiber(FiberPool? pool) => _pool = pool;

    /// <summary>Gets the fiber of the calling thread, or null for a thread that is not one.</summary>
    public static Fiber? Current => t_current;

    /// <summary>Gets or sets the run this fiber works for (set before it is woken).</summary>
    public ControlledExecution? Execution { get; set; }

    /// <summary>Gets or sets the step to run first on <see cref="FiberCommand.Loop"/>.</summary>
    public Work? First { get; set; }

    /// <summary>Gets or sets the step this fiber is running (its chain is the chain of a pause in it).</summary>
    public Work? Running { get; set; }

    /// <summary>Gets whether the fiber is a pool thread (otherwise it is a run's own thread).</summary>
    public bool IsPooled => _pool is not null;

    /// <summary>Makes the calling thread a fiber (a run's own thread); returns the fiber it was before.</summary>
    public static Fiber? Enter(out Fiber fiber)
    {
        Fiber? outer = t_current;
        fiber = new Fiber(null);
        t_current = fiber;
        return outer;
    }

    /// <summary>Restores what <see cref="Enter"/> returned.</summary>
    public static void Leave(Fiber? outer) => t_current = outer;

    /// <summary>Starts a pool fiber: a background thread that waits for commands.</summary>
    public static Fiber StartPooled(FiberPool pool)
    {
        var fiber = new Fiber(pool);

        // The thread must not inherit the creator's AsyncLocals: each step restores the run's own context.
        using (ExecutionContext.SuppressFlow())
        {
            new Thread(fiber.Main) { IsBackground = true, Name = "Boc.Testing fiber" }.Start();
        }

        return fiber;
    }

    /// <summary>Wakes the fiber with <paramref name="command"/>. The release publishes the fields set before it.</summary>
    public void Signal(FiberCommand command)
    {
        _command = command;
        _wake.Release();
    }

    /// <summary>Blocks until the fiber is signalled; returns the command.</summary>
    public FiberCommand Wait()
    {
        _wake.Wait();
        return _command;
    }

    /// <summary>Puts a pool fiber back in its pool (before it signals another fiber: the pool is then free to hand it out).</summary>
    public void ReturnToPool() => _pool?.Return(this);

    public void Dispose() => _wake.Dispose();

    private void Main()
    {
        t_current = this;
        while (Wait() == FiberCommand.Loop)
        {
            Work? first = First;
            First = null;
            Execution!.Loop(this, first);
        }
    }
}
