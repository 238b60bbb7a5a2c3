namespace Boc.ModelTests.Exploration;

/// <summary>
/// One schedule of a model: its threads run one at a time, and at every scheduling point the chooser decides which
/// runs next. The run is sequentially consistent (every step of shared memory happens at its point, in one order): it
/// explores interleavings of the protocol's steps, not the reorderings a weak memory model allows (the fences that
/// forbid those are argued in the code, and exercised by the stress tests on real hardware).
/// </summary>
/// <remarks>
/// A spinning thread (a wait loop's spin hint) is chosen again only after some other thread has taken a step that may
/// change memory, so a wait is a wait. If no thread can run but some are spinning, every one of them waits for
/// another: a livelock (the model's deadlock, since the runtime's waits spin). If no thread can run and some are in a
/// timed wait, time passes: one of them times out. If every thread has finished or is blocked, the run is over; the
/// model's oracle decides whether what is still blocked is allowed (a parked worker with nothing to do is).
/// </remarks>
internal sealed class ModelRun
{
    private const int TraceLength = 64;

    // Steps in which every thread that could run was spinning with nothing written since: more than this is a livelock.
    private const int FruitlessSpinLimit = 200;

    private static readonly bool DebugStacks = Environment.GetEnvironmentVariable("BOC_MODEL_STACKS") == "1";

    private readonly List<ControlledThread> _threads = [];
    private readonly IChooser _chooser;
    private readonly int _maxSteps;
    private readonly ManualResetEventSlim _over = new();
    private readonly Queue<string> _trace = new();
    private readonly List<ControlledThread> _eligible = [];
    private ControlledThread? _running;
    private int _fruitlessSpins;
    private long _spinSerial;

    public ModelRun(IChooser chooser, int maxSteps)
    {
        _chooser = chooser;
        _maxSteps = maxSteps;
    }

    /// <summary>Gets the scheduling points reached so far.</summary>
    public int Steps { get; private set; }

    /// <summary>Gets how many times the baton moved from one thread to another.</summary>
    public int Switches { get; private set; }

    /// <summary>Gets the steps that may have changed memory (a spinner waits for this to move).</summary>
    public long WriteEpoch { get; private set; }

    /// <summary>Gets the first failure: an exception a thread threw (a failed check of the runtime or the model), or null.</summary>
    public Exception? Failure { get; private set; }

    /// <summary>Gets the thread that failed, or null.</summary>
    public string? FailedThread { get; private set; }

    /// <summary>Gets whether the run ended in a livelock (every thread that could run was waiting for another).</summary>
    public bool Livelock { get; private set; }

    /// <summary>Gets whether the run exceeded its step bound.</summary>
    public bool StepBoundExceeded { get; private set; }

    public IReadOnlyList<ControlledThread> Threads => _threads;

    /// <summary>Adds a thread (before <see cref="Execute"/>).</summary>
    public ControlledThread Add(string name, Action body)
    {
        var thread = new ControlledThread(this, _threads.Count, name, body);
        _threads.Add(thread);
        return thread;
    }

    /// <summary>
    /// Runs the schedule to its end on the calling (test) thread's behalf and returns the threads still blocked or
    /// spinning at the end. Throws <see cref="TimeoutException"/> if the run stops making steps for
    /// <paramref name="watchdog"/>: a thread blocked outside the model (a lock held across a scheduling point).
    /// </summary>
    public IReadOnlyList<string> Execute(TimeSpan watchdog)
    {
        foreach (ControlledThread thread in _threads)
        {
            ModelThreadPool.Run(thread.Main);
        }

        lock (_trace)
        {
            ControlledThread first = Choose(current: null)!;
            _running = first;
            Note($"start {first}");
            first.State = ThreadState.Runnable;
            first.Resume();
        }

        if (!_over.Wait(watchdog))
        {
            throw new TimeoutException(
                $"The model run made no progress for {watchdog.TotalSeconds} s: a controlled thread is blocked outside the model (a lock held across a scheduling point?). Last steps:\n{TraceText()}"
                + (DebugStacks ? string.Concat(_threads.Select(t => $"\n--- {t.Name} at its last point:\n{t.LastStack}")) : ""));
        }

        var unfinished = new List<string>();
        foreach (ControlledThread thread in _threads)
        {
            if (thread.State != ThreadState.Finished)
            {
                unfinished.Add($"{thread.Name} ({thread.State})");
                if (!thread.Abandon(watchdog))
                {
                    throw new TimeoutException($"The model thread {thread.Name} did not unwind within {watchdog.TotalSeconds} s.");
                }
            }
        }

        return unfinished;
    }

    /// <summary>The last steps of the run, oldest first.</summary>
    public string TraceText()
    {
        lock (_trace)
        {
            return string.Join('\n', _trace);
        }
    }

    /// <summary>A scheduling point of <paramref name="current"/>.</summary>
    public void Step(ControlledThread current, bool writes, bool switchable)
    {
        Steps++;
        if (DebugStacks)
        {
            current.LastStack = Environment.StackTrace;
        }

        if (writes)
        {
            WriteEpoch++;
        }

        if (Steps > _maxSteps)
        {
            // A livelock the spin hints do not show: the run ends here (an exception could be caught by the runtime's
            // own handlers, a body's for one), and the oracle reports it.
            StepBoundExceeded = true;
            Note($"step bound {_maxSteps} exceeded");
            End();
            current.WaitTurn();
            return;
        }

        if (switchable)
        {
            SwitchFrom(current);
        }
    }

    /// <summary>A wait loop's iteration of <paramref name="current"/>.</summary>
    public void Spin(ControlledThread current)
    {
        Steps++;
        current.State = ThreadState.Spinning;
        current.SpinEpoch = WriteEpoch;
        current.SpinSerial = ++_spinSerial;
        SwitchFrom(current);
    }

    /// <summary>Blocks <paramref name="current"/> on <paramref name="waitable"/>; false if a timed wait timed out.</summary>
    public bool Block(ControlledThread current, object waitable, bool timed)
    {
        Steps++;
        current.State = ThreadState.Blocked;
        current.BlockedOn = waitable;
        current.TimedWait = timed;
        current.TimedOut = false;
        Note($"{current} blocks{(timed ? " (timed)" : "")}");
        SwitchFrom(current);
        return !current.TimedOut;
    }

    /// <summary>Makes up to <paramref name="count"/> threads blocked on <paramref name="waitable"/> runnable.</summary>
    public void Wake(object waitable, int count)
    {
        WriteEpoch++;
        _fruitlessSpins = 0;
        foreach (ControlledThread thread in _threads)
        {
            if (count > 0 && thread.State == ThreadState.Blocked && ReferenceEquals(thread.BlockedOn, waitable))
            {
                thread.State = ThreadState.Runnable;
                thread.BlockedOn = null;
                count--;
                Note($"{thread} woken");
            }
        }
    }

    /// <summary>A thread's body threw: the run fails, and ends at once.</summary>
    public void Fail(ControlledThread thread, Exception error)
    {
        if (Failure is null)
        {
            Failure = error;
            FailedThread = thread.Name;
            Note($"{thread} failed: {error.GetType().Name}: {error.Message}");
        }
    }

    /// <summary>A thread's body has ended (returned or failed): the baton goes on, or the run ends.</summary>
    public void Exited(ControlledThread thread)
    {
        thread.State = ThreadState.Finished;
        WriteEpoch++;
        _fruitlessSpins = 0;
        Note($"{thread} ends");
        if (Failure is not null)
        {
            End();
            return;
        }

        ControlledThread? next = Choose(current: null);
        if (next is null)
        {
            End();
            return;
        }

        Hand(next);
    }

    private void SwitchFrom(ControlledThread current)
    {
        ControlledThread? next = Choose(current);
        if (next is null)
        {
            // Nothing can run: the run ends here, and the explorer unwinds this thread with the others.
            End();
            current.WaitTurn();
            return;
        }

        if (ReferenceEquals(next, current))
        {
            current.State = ThreadState.Runnable;
            return;
        }

        Hand(next);
        current.WaitTurn();
    }

    private void Hand(ControlledThread next)
    {
        Switches++;
        if (next.State == ThreadState.Spinning)
        {
            next.State = ThreadState.Runnable;
        }
        else if (next.State == ThreadState.NotStarted)
        {
            next.State = ThreadState.Runnable;
            Note($"start {next}");
        }

        if (!ReferenceEquals(_running, next))
        {
            Note($"-> {next} (step {Steps})");
        }

        _running = next;
        next.Resume();
    }

    /// <summary>The thread to run next, or null if none can (the run is over).</summary>
    private ControlledThread? Choose(ControlledThread? current)
    {
        _eligible.Clear();
        bool spinning = false;
        foreach (ControlledThread thread in _threads)
        {
            switch (thread.State)
            {
                case ThreadState.NotStarted or ThreadState.Runnable:
                    _eligible.Add(thread);
                    break;
                case ThreadState.Spinning when thread.SpinEpoch != WriteEpoch:
                    _eligible.Add(thread);
                    break;
                case ThreadState.Spinning:
                    spinning = true;
                    break;
            }
        }

        if (_eligible.Count == 0)
        {
            // Time passes only when nothing else can happen: a timed wait times out.
            foreach (ControlledThread thread in _threads)
            {
                if (thread.State == ThreadState.Blocked && thread.TimedWait)
                {
                    thread.State = ThreadState.Runnable;
                    thread.BlockedOn = null;
                    thread.TimedOut = true;
                    Note($"{thread} times out");
                    return thread;
                }
            }

            if (spinning)
            {
                // Every thread that can run is in a wait loop and nothing has changed memory since. A bounded spin (a
                // worker's search for work) ends by itself, so one of them goes on; a wait that nothing can end keeps
                // spinning without a write, and after FruitlessSpinLimit such steps the run is a livelock.
                if (++_fruitlessSpins <= FruitlessSpinLimit)
                {
                    // The one that has waited longest, so that no spinner is starved by another.
                    ControlledThread? oldest = null;
                    foreach (ControlledThread thread in _threads)
                    {
                        if (thread.State == ThreadState.Spinning && (oldest is null || thread.SpinSerial < oldest.SpinSerial))
                        {
                            oldest = thread;
                        }
                    }

                    return oldest;
                }

                Livelock = true;
                Note("livelock: every thread that can run waits for another");
            }

            return null;
        }

        return _eligible[_chooser.Choose(_eligible, current, Steps)];
    }

    private void End()
    {
        Note("run over");
        _over.Set();
    }

    private void Note(string line)
    {
        lock (_trace)
        {
            if (_trace.Count == TraceLength)
            {
                _trace.Dequeue();
            }

            _trace.Enqueue(line);
        }
    }
}
