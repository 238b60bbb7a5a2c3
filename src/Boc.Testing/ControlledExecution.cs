using Boc.Dispatch;

namespace Boc.Testing;

/// <summary>
/// One controlled run. Every step (the scenario's start, a ready behaviour, a continuation, a queued task, a timer) is
/// queued here instead of running, and the run executes them one at a time, in the order the strategy picks. The real
/// protocol (Behaviour.Enqueue and Finish) decides which behaviours are ready: this class only sees behaviours through
/// <see cref="IDispatcher.Dispatch"/>, so it cannot run one the protocol holds back.
/// </summary>
/// <remarks>
/// <para>
/// A spawn is a scheduling point too (<see cref="ISpawnHook"/>): right after a step enqueues a behaviour, the strategy
/// chooses between letting that step continue and running another ready step, so a spawned behaviour may start while
/// its spawner is still running, and two running bodies may interleave their spawns onto shared cowns in any order, as
/// on a real machine. To pause a step in the middle, steps run on <see cref="Fiber"/>s: the run's own thread, plus pool
/// threads taken only when a step is paused. Exactly one fiber runs at any time; the one that runs the scheduling loop
/// (<see cref="Loop"/>) is whichever holds the baton, and a fiber hands it over (waking another, then blocking) only
/// when the strategy switches away from a paused step or back to one, so a run with no switch at a spawn never leaves
/// its thread. All state below is touched only by the fiber holding the baton, except where a lock says otherwise
/// (arrivals from threads outside the run's control); the semaphore hand-over orders one holder's writes before the
/// next one's reads.
/// </para>
/// <para>
/// When the run's outcome is decided, every step still paused at a spawn is unwound (its spawn throws
/// <see cref="ControlledRunAbandonedException"/>), one at a time, so no thread is left blocked inside user code.
/// </para>
/// </remarks>
internal sealed partial class ControlledExecution : IDispatcher, ISpawnHook, IDisposable
{
    private readonly Lock _gate = new();
    private readonly List<Work> _ready = [];
    private readonly List<Work> _candidates = [];
    private readonly IChooser _chooser;
    private readonly BocTestOptions _options;
    private readonly FiberPool _pool;
    private readonly VirtualTimeProvider _time;
    private readonly ControlledTaskScheduler _scheduler;
    private readonly Dictionary<Behaviour, int> _behaviourNumbers = new(ReferenceEqualityComparer.Instance);
    private readonly Dictionary<Cown, int> _cownNumbers = new(ReferenceEqualityComparer.Instance);
    private readonly List<TraceEntry> _trace = [];
    private readonly TraceNames _names;
    private readonly List<int> _traceCowns = [];
    private readonly ManualResetEventSlim _arrived = new();

    // Asynchronous bodies that were suspended when their step ended (behaviour number, body task): when the run is stuck,
    // what they await tells an uncontrolled wait from a deadlock (UncontrolledWaitFinder). Completed ones are dropped then.
    private readonly List<(int Number, Task Body)> _suspendedBodies = [];

    // Timers that fired since the last step that was not a timer. A timer may fire ahead of ready work (time passes while
    // that work is slow), but not again before some of that work runs: otherwise a strategy that favours a periodic timer
    // (PCT gives it a priority like any chain) would starve everything else, a schedule no real machine produces.
    private readonly HashSet<VirtualTimer> _firedSinceProgress = new(ReferenceEqualityComparer.Instance);
    private Exception? _behaviourFailure;
    private (BocTestFailureKind Kind, Exception? Error)? _stepFailure;
    private int _nextBehaviour;
    private int _nextChain;
    private Task? _scenarioTask;
    private ExecutionContext? _clean;
    private Fiber? _main;

    // The behaviour the spawn hook is enqueuing: a Dispatch of it during the enqueue means it was ready at once.
    private Behaviour? _spawning;
    private bool _spawningReady;

    // The end of the run: the outcome, and the fiber that decided it (paused steps hand the baton back to it as they
    // unwind). _ended is read by a paused step's thread after it is woken (ordered by the hand-over).
    private (BocTestFailureKind Kind, Exception? Error)? _result;
    private Fiber? _ender;
    private bool _ended;

    public ControlledExecution(IChooser chooser, BocTestOptions options, FiberPool pool, bool recordSpawnSites = false)
    {
        _names = new TraceNames(recordSpawnSites);
        _chooser = chooser;
        _options = options;
        _pool = pool;
        _time = new VirtualTimeProvider(this);
        _scheduler = new ControlledTaskScheduler(this);
        Runtime = new BocRuntime(
            new BocRuntimeOptions { UnhandledExceptionHandler = OnUnhandled },
            this,
            _scheduler,
            _time);
    }

    public BocRuntime Runtime { get; }

    public void Dispose() => _arrived.Dispose();

    public int Steps => _trace.Count;

    public IReadOnlyList<string> FormatTrace()
    {
        var cownNames = new string?[_cownNumbers.Count];
        foreach ((Cown cown, int number) in _cownNumbers)
        {
            cownNames[number] = cown.Name;
        }

        var lines = new string[_trace.Count];
        for (int i = 0; i < lines.Length; i++)
        {
            lines[i] = _trace[i].Format(i + 1, _traceCowns, cownNames, _names);
        }

        return lines;
    }

    /// <summary>
    /// Runs <paramref name="scenario"/> to the end; returns the failure, if any. The calling thread is the run's first
    /// fiber; <see cref="BocRuntime.Default"/> is the controlled runtime for the run's code.
    /// </summary>
    public (BocTestFailureKind Kind, Exception? Error)? Run(Func<BocRuntime, Task> scenario)
    {
        SynchronizationContext? outerContext = SynchronizationContext.Current;
        Fiber? outerFiber = Fiber.Enter(out Fiber main);
        main.Execution = this;
        _main = main;
        BocRuntime.BeginDefaultOverride(Runtime);
        try
        {
            _clean = ExecutionContext.Capture();
            Add(new Work { Kind = WorkKind.ScenarioStart, Chain = ChainForNewWork(), Callback = _ => _scenarioTask = scenario(Runtime) });
            bool ended = Loop(main, null);
            while (!ended)
            {
                // The baton went to a paused step on another fiber; this thread is idle until it is needed again.
                if (main.Wait() == FiberCommand.Ended)
                {
                    break;
                }

                Work? first = main.First;
                main.First = null;
                ended = Loop(main, first);
            }

            return _result;
        }
        finally
        {
            if (_clean is not null && !ReferenceEquals(ExecutionContext.Capture(), _clean))
            {
                ExecutionContext.Restore(_clean);
            }

            BocRuntime.EndDefaultOverride();
            Fiber.Leave(outerFiber);
            main.Dispose();
            SynchronizationContext.SetSynchronizationContext(outerContext);
        }
    }

    /// <summary>
    /// The scheduling loop, run by the fiber that holds the baton: runs <paramref name="first"/> (already chosen), then
    /// chooses and runs steps until the run ends (returns true: this fiber ended it) or the baton goes to another fiber
    /// (returns false: this fiber is idle now).
    /// </summary>
    public bool Loop(Fiber self, Work? first)
    {
        Work? work = first;
        while (true)
        {
            if (work is null)
            {
                work = Next(self);
                if (work is null)
                {
                    return true;
                }

                if (work.Kind == WorkKind.Resume)
                {
                    // Back to a step paused at a spawn: its fiber continues, this one goes idle.
                    self.ReturnToPool();
                    work.Fiber!.Signal(FiberCommand.Resume);
                    return false;
                }
            }

            Step(self, work);
            work = null;
            if (_ended)
            {
                // Only a step paused at a spawn can see the run end under it: it has unwound; give the baton back.
                self.ReturnToPool();
                _ender!.Signal(FiberCommand.Done);
                return false;
            }
        }
    }

    /// <summary>Chooses the next step, or ends the run (returns null).</summary>
    private Work? Next(Fiber self)
    {
        while (true)
        {
            if (_stepFailure is { } failed)
            {
                End(self, failed);
                return null;
            }

            if (_behaviourFailure is not null)
            {
                End(self, (BocTestFailureKind.UnhandledBehaviourException, _behaviourFailure));
                return null;
            }

            if (_scenarioTask is { IsFaulted: true } or { IsCanceled: true })
            {
                End(self, (BocTestFailureKind.ScenarioFailed, Unwrap(_scenarioTask)));
                return null;
            }

            bool finished = _scenarioTask is { IsCompletedSuccessfully: true } && Runtime.IsQuiescentNow;
            int chosen = Choose(finished);
            if (chosen < 0)
            {
                if (finished)
                {
                    End(self, null);
                    return null;
                }

                if (_options.UncontrolledWorkTimeout > TimeSpan.Zero && _arrived.Wait(_options.UncontrolledWorkTimeout))
                {
                    continue;
                }

                End(self, UncontrolledWaitMessage() is { } uncontrolled
                    ? (BocTestFailureKind.UncontrolledWait, new InvalidOperationException(uncontrolled))
                    : (BocTestFailureKind.Deadlock, new InvalidOperationException(DeadlockMessage(_scenarioTask))));
                return null;
            }

            if (_trace.Count >= _options.MaxSteps)
            {
                End(self, (BocTestFailureKind.StepLimitExceeded, new InvalidOperationException(
                    $"The run took more than {_options.MaxSteps} steps (BocTestOptions.MaxSteps): a livelock, or a scenario larger than the limit.")));
                return null;
            }

            Work work = _candidates[chosen];
            Take(work, chosen);
            return work;
        }
    }

    /// <summary>Records the chosen step and takes it off the ready list.</summary>
    private void Take(Work work, int chosen)
    {
        Record(work, chosen);
        if (work.Kind == WorkKind.Timer)
        {
            _firedSinceProgress.Add(work.Timer!);
        }
        else
        {
            _firedSinceProgress.Clear();
            lock (_gate)
            {
                _ready.Remove(work);
            }
        }
    }

    private void Step(Fiber self, Work work)
    {
        // Every step starts from the run's execution context (a pool fiber's thread has its own), and with a fresh
        // synchronization context: a continuation captured now is posted back later, never inlined (see
        // ControlledSynchronizationContext).
        if (_clean is not null && !ReferenceEquals(ExecutionContext.Capture(), _clean))
        {
            ExecutionContext.Restore(_clean);
        }

        SynchronizationContext.SetSynchronizationContext(new ControlledSynchronizationContext(this));
        self.Running = work;
        try
        {
            Execute(work);
        }
        catch (Exception error) when (!_ended)
        {
            // The scenario's synchronous part threw; or a posted callback or timer callback threw, which would crash a
            // real process (async void, timer).
            _stepFailure ??= (work.Kind == WorkKind.ScenarioStart ? BocTestFailureKind.ScenarioFailed : BocTestFailureKind.UnhandledBehaviourException, error);
        }
        catch (Exception) when (_ended)
        {
            // A step unwound after the run ended (ControlledRunAbandonedException, or what user code made of it).
        }
        finally
        {
            self.Running = null;
        }
    }

    /// <summary>
    /// Decides the run's outcome, unwinds every step paused at a spawn (one at a time: each hands the baton back), and
    /// wakes the run's own thread if this is not it.
    /// </summary>
    private void End(Fiber self, (BocTestFailureKind Kind, Exception? Error)? result)
    {
        _result = result;
        _ender = self;
        _ended = true;
        Fiber[] paused;
        lock (_gate)
        {
            paused = _ready.Where(w => w.Kind == WorkKind.Resume).Select(w => w.Fiber!).ToArray();
        }

        foreach (Fiber fiber in paused)
        {
            fiber.Signal(FiberCommand.Abandon);
            self.Wait();
        }

        if (!ReferenceEquals(self, _main))
        {
            self.ReturnToPool();
            _main!.Signal(FiberCommand.Ended);
        }
    }

    // ---- Steps

    private void Add(Work work)
    {
        lock (_gate)
        {
            _ready.Add(work);
        }

        _arrived.Set();
    }

    private int Choose(bool finished)
    {
        _candidates.Clear();
        lock (_gate)
        {
            _candidates.AddRange(_ready);
            _arrived.Reset();
        }

        // Once the scenario is done and nothing is pending, leftover timers (an unused timeout, a periodic timer) do not
        // keep the run alive.
        if (!(finished && _candidates.Count == 0)
            && _time.Earliest() is { } timer
            && (_candidates.Count == 0 || !_firedSinceProgress.Contains(timer)))
        {
            _candidates.Add(new Work { Kind = WorkKind.Timer, Chain = timer.Chain, Id = timer.Number, Timer = timer });
        }

        return _candidates.Count == 0 ? -1 : _chooser.Choose(_candidates, _trace.Count + 1);
    }

    private void Execute(Work work)
    {
        switch (work.Kind)
        {
            case WorkKind.ScenarioStart:
            case WorkKind.Continuation:
                work.Callback!(work.State);
                break;
            case WorkKind.Behaviour:
                work.Behaviour!.Run(BocThread.Current);
                if (work.Behaviour.SuspendedBodyTask is { IsCompleted: false } body)
                {
                    _suspendedBodies.Add((work.Id, body));
                }

                break;
            case WorkKind.Task:
                _scheduler.Execute(work.Task!);
                break;
            case WorkKind.Timer:
                _time.Fire(work.Timer!);
                break;
        }
    }

    private void Record(Work work, int chosen)
    {
        (int cownStart, int cownCount) = work.Behaviour is { } behaviour ? RecordCowns(behaviour) : (_traceCowns.Count, 0);
        long time = work.Timer is { } timer ? Math.Max(timer.DueTicks, _time.NowTicks) : 0;
        _trace.Add(new TraceEntry(work.Kind, _candidates.Count, chosen, work.Id, cownStart, cownCount, time, work.Spawned, work.SpawnerKind, Posted: work.Kind == WorkKind.Continuation ? work.State ?? work.Callback : null));
    }

    private (int Start, int Count) RecordCowns(Behaviour behaviour)
    {
        int start = _traceCowns.Count;
        int count = behaviour.RequestCount;
        for (int i = 0; i < count; i++)
        {
            Cown cown = behaviour.RequestedCown(i);
            if (!_cownNumbers.TryGetValue(cown, out int number))
            {
                number = _cownNumbers.Count;
                _cownNumbers.Add(cown, number);
            }

            _traceCowns.Add((number << 1) | (behaviour.RequestIsRead(i) ? 1 : 0));
        }

        return (start, count);
    }

    private int CurrentBehaviourNumber()
    {
        // The body whose code is posting (before or after an await): its continuations belong to its PCT chain.
        Behaviour? current = Behaviour.Current;
        if (current is null)
        {
            return 0;
        }

        lock (_gate)
        {
            return _behaviourNumbers.TryGetValue(current, out int number) ? number : 0;
        }
    }

    private void OnUnhandled(Exception error)
    {
        // After the end, steps that unwind may fail; the outcome is already decided.
        if (!_ended)
        {
            _behaviourFailure ??= error;
        }
    }

    private string DeadlockMessage(Task? scenarioTask)
    {
        long pending = Runtime.PendingEstimate;
        string scenario = scenarioTask is { IsCompleted: true } ? "the scenario has returned" : "the scenario is still awaiting";
        return $"Deadlock: nothing can run, {scenario}, and {pending} behaviour(s) are pending. Behaviours wait for cowns held by bodies that await (for example two bodies awaiting behaviours on each other's cowns), or something awaits a wake-up that no step will deliver. Work outside the runtime's control (Task.Run, real timers, I/O, ConfigureAwait(false)) is not waited for unless BocTestOptions.UncontrolledWorkTimeout is set.";
    }

    /// <summary>
    /// When nothing can run: if the scenario or a suspended body awaits something outside the run's control (a timer on
    /// the system clock, the thread pool, I/O), the message that names it and the chain of methods awaiting it; else null.
    /// </summary>
    private string? UncontrolledWaitMessage()
    {
        var waits = new List<string>();
        if (_scenarioTask is { IsCompleted: false } scenario && UncontrolledWaitFinder.Find(scenario, _scheduler) is { } inScenario)
        {
            waits.Add("the scenario: " + inScenario);
        }

        _suspendedBodies.RemoveAll(b => b.Body.IsCompleted);
        foreach ((int number, Task body) in _suspendedBodies)
        {
            if (UncontrolledWaitFinder.Find(body, _scheduler) is { } inBody)
            {
                waits.Add($"b{number}'s body: {inBody}");
            }
        }

        if (waits.Count == 0)
        {
            return null;
        }

        return $"Uncontrolled wait: nothing the run controls can run, and {string.Join("; ", waits)}. That completes in real time, outside the explored schedule, so the run cannot go on (nor be replayed exactly). In code under test use rt.TimeProvider for time (Task.Delay(delay, rt.TimeProvider)), behaviours or rt.Scheduler for work, and fakes for I/O; or set BocTestOptions.UncontrolledWorkTimeout to let runs wait for such work.";
    }

    private static Exception Unwrap(Task task)
    {
        if (task.IsCanceled)
        {
            return new TaskCanceledException(task);
        }

        AggregateException aggregate = task.Exception!;
        return aggregate.InnerExceptions.Count == 1 ? aggregate.InnerExceptions[0] : aggregate;
    }
}
