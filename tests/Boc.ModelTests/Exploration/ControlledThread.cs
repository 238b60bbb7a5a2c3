namespace Boc.ModelTests.Exploration;

/// <summary>Where a controlled thread is in its run.</summary>
internal enum ThreadState
{
    /// <summary>Not started yet: it may be chosen to run.</summary>
    NotStarted,

    /// <summary>Started, and may be chosen to run (it is at a scheduling point, or running).</summary>
    Runnable,

    /// <summary>In a wait loop (a spin hint): chosen again only once some other thread has changed memory.</summary>
    Spinning,

    /// <summary>Blocked on a model semaphore until a release wakes it (or, for a timed wait, until time passes).</summary>
    Blocked,

    /// <summary>Its body returned or threw.</summary>
    Finished,
}

/// <summary>
/// One thread of a model: a body run on an operating-system thread that runs only while it holds the run's baton. At
/// every scheduling point of the runtime's code (<see cref="Atomic"/>) it asks its run which thread goes next, and if
/// that is another, hands the baton over and waits for it to come back.
/// </summary>
internal sealed class ControlledThread : IModelThread
{
    private readonly ModelRun _run;
    private readonly Action _body;
    private readonly SemaphoreSlim _baton = new(0);
    private readonly ManualResetEventSlim _exited = new();
    private int _atomicDepth;

    public ControlledThread(ModelRun run, int index, string name, Action body)
    {
        _run = run;
        Index = index;
        Name = name;
        _body = body;
    }

    public int Index { get; }

    /// <summary>The stack at the thread's last scheduling point (only with BOC_MODEL_STACKS=1, for diagnosing a hang).</summary>
    public string? LastStack { get; set; }

    public string Name { get; }

    public ThreadState State { get; set; }

    /// <summary>The run's count of memory-changing steps when this thread started spinning.</summary>
    public long SpinEpoch { get; set; }

    /// <summary>When the thread last spun, in the run's order of spins (the longest-waiting spinner goes first).</summary>
    public long SpinSerial { get; set; }

    /// <summary>What the thread is blocked on, while <see cref="ThreadState.Blocked"/>.</summary>
    public object? BlockedOn { get; set; }

    /// <summary>Whether the blocked wait is timed (it may time out once nothing else can run).</summary>
    public bool TimedWait { get; set; }

    /// <summary>Set when a timed wait timed out (read by the thread when it resumes).</summary>
    public bool TimedOut { get; set; }

    /// <summary>Set when the run is over and this thread must unwind: every later scheduling point throws or is free.</summary>
    public bool Abandoned { get; private set; }

    /// <summary>The thread's body, run on a pooled operating-system thread: waits for the baton first.</summary>
    public void Main()
    {
        ModelPoints.Current = this;
        try
        {
            WaitTurn();
            _body();
        }
        catch (ModelAbandonedException)
        {
        }
#pragma warning disable CA1031 // Whatever a model thread throws is the run's failure, reported by the explorer.
        catch (Exception e)
#pragma warning restore CA1031
        {
            _run.Fail(this, e);
        }
        finally
        {
            ModelPoints.Current = null;
            if (!Abandoned)
            {
                _run.Exited(this);
            }

            _exited.Set();
        }
    }

    /// <summary>Records a failure that the runtime's code may catch (a failed debug check): the run fails all the same.</summary>
    public void ReportFailure(Exception error) => _run.Fail(this, error);

    /// <summary>Gives this thread the baton.</summary>
    public void Resume() => _baton.Release();

    /// <summary>Waits for the baton; throws if the run was abandoned meanwhile.</summary>
    public void WaitTurn()
    {
        _baton.Wait();
        if (Abandoned)
        {
            throw new ModelAbandonedException();
        }
    }

    /// <summary>The run is over: unwinds the thread (it is blocked, spinning, at a point, or never started) and waits for it.</summary>
    public bool Abandon(TimeSpan limit)
    {
        Abandoned = true;
        _baton.Release();
        return _exited.Wait(limit);
    }

    int IModelThread.Processor => Index;

    void IModelThread.Point(bool writes)
    {
        if (Abandoned)
        {
            return;
        }

        _run.Step(this, writes, switchable: _atomicDepth == 0);
    }

    void IModelThread.Spin()
    {
        if (Abandoned)
        {
            throw new ModelAbandonedException();
        }

        _run.Spin(this);
    }

    bool IModelThread.Block(object waitable, bool timed)
    {
        if (Abandoned)
        {
            throw new ModelAbandonedException();
        }

        return _run.Block(this, waitable, timed);
    }

    void IModelThread.Wake(object waitable, int count)
    {
        if (!Abandoned)
        {
            _run.Wake(waitable, count);
        }
    }

    void IModelThread.EnterAtomic() => _atomicDepth++;

    void IModelThread.ExitAtomic() => _atomicDepth--;

    public override string ToString() => Name;
}

/// <summary>Unwinds a controlled thread whose run is over (never a failure).</summary>
internal sealed class ModelAbandonedException : Exception
{
    public ModelAbandonedException()
        : base("The model run is over; this thread unwinds.")
    {
    }
}
