using Boc.Dispatch;

namespace Boc.Testing;

/// <summary>
/// One controlled run. Every step (the scenario's start, a ready behaviour, a continuation, a queued task, a timer) is
/// queued here instead of running, and the run's single thread executes them one at a time, in the order the strategy
/// picks. The real protocol (Behaviour.Enqueue and Finish) decides which behaviours are ready: this class only sees
/// behaviours through <see cref="IDispatcher.Dispatch"/>, so it cannot run one the protocol holds back.
/// </summary>
internal sealed class ControlledExecution : IDispatcher, IDisposable
{
    private readonly Lock _gate = new();
    private readonly List<Work> _ready = [];
    private readonly List<Work> _candidates = [];
    private readonly IChooser _chooser;
    private readonly BocTestOptions _options;
    private readonly VirtualTimeProvider _time;
    private readonly ControlledTaskScheduler _scheduler;
    private readonly Dictionary<Behaviour, int> _behaviourNumbers = new(ReferenceEqualityComparer.Instance);
    private readonly Dictionary<Cown, int> _cownNumbers = new(ReferenceEqualityComparer.Instance);
    private readonly List<TraceEntry> _trace = [];
    private readonly List<int> _traceCowns = [];
    private readonly ManualResetEventSlim _arrived = new();

    // Timers that fired since the last step that was not a timer. A timer may fire ahead of ready work (time passes while
    // that work is slow), but not again before some of that work runs: otherwise a strategy that favours a periodic timer
    // (PCT gives it a priority like any chain) would starve everything else, a schedule no real machine produces.
    private readonly HashSet<VirtualTimer> _firedSinceProgress = new(ReferenceEqualityComparer.Instance);
    private Exception? _behaviourFailure;
    private int _nextBehaviour;
    private int _nextChain;

    public ControlledExecution(IChooser chooser, BocTestOptions options)
    {
        _chooser = chooser;
        _options = options;
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
        var lines = new string[_trace.Count];
        for (int i = 0; i < lines.Length; i++)
        {
            lines[i] = _trace[i].Format(i + 1, _traceCowns);
        }

        return lines;
    }

    /// <summary>Runs <paramref name="scenario"/> to the end on the calling thread; returns the failure, if any.</summary>
    public (BocTestFailureKind Kind, Exception? Error)? Run(Func<BocRuntime, Task> scenario)
    {
        SynchronizationContext? outerContext = SynchronizationContext.Current;
        ExecutionContext? clean = ExecutionContext.Capture();
        Task? scenarioTask = null;
        Add(new Work { Kind = WorkKind.ScenarioStart, Chain = ChainForNewWork(), Callback = _ => scenarioTask = scenario(Runtime) });
        try
        {
            while (true)
            {
                if (_behaviourFailure is not null)
                {
                    return (BocTestFailureKind.UnhandledBehaviourException, _behaviourFailure);
                }

                if (scenarioTask is { IsFaulted: true } or { IsCanceled: true })
                {
                    return (BocTestFailureKind.ScenarioFailed, Unwrap(scenarioTask));
                }

                bool finished = scenarioTask is { IsCompletedSuccessfully: true } && Runtime.IsQuiescentNow;
                int chosen = Choose(finished);
                if (chosen < 0)
                {
                    if (finished)
                    {
                        return null;
                    }

                    if (_options.UncontrolledWorkTimeout > TimeSpan.Zero && _arrived.Wait(_options.UncontrolledWorkTimeout))
                    {
                        continue;
                    }

                    return (BocTestFailureKind.Deadlock, new InvalidOperationException(DeadlockMessage(scenarioTask)));
                }

                if (_trace.Count >= _options.MaxSteps)
                {
                    return (BocTestFailureKind.StepLimitExceeded, new InvalidOperationException(
                        $"The run took more than {_options.MaxSteps} steps (BocTestOptions.MaxSteps): a livelock, or a scenario larger than the limit."));
                }

                Work work = _candidates[chosen];
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

                // A fresh context per step: a continuation captured now is posted back later, never inlined (see
                // ControlledSynchronizationContext).
                SynchronizationContext.SetSynchronizationContext(new ControlledSynchronizationContext(this));
                try
                {
                    Execute(work);
                }
                catch (Exception error) when (work.Kind != WorkKind.ScenarioStart)
                {
                    // A posted callback or timer callback that throws would crash a real process (async void, timer).
                    return (BocTestFailureKind.UnhandledBehaviourException, error);
                }
                catch (Exception error)
                {
                    return (BocTestFailureKind.ScenarioFailed, error);
                }
                finally
                {
                    if (clean is not null && !ReferenceEquals(ExecutionContext.Capture(), clean))
                    {
                        ExecutionContext.Restore(clean);
                    }
                }
            }
        }
        finally
        {
            SynchronizationContext.SetSynchronizationContext(outerContext);
        }
    }

    // ---- Arrivals (on the run's thread, or, for uncontrolled work, any thread)

    void IDispatcher.Dispatch(Behaviour behaviour)
    {
        int number;
        lock (_gate)
        {
            number = ++_nextBehaviour;
            _behaviourNumbers[behaviour] = number;
        }

        Add(new Work { Kind = WorkKind.Behaviour, Chain = -number, Id = number, Behaviour = behaviour });
    }

    public void Post(SendOrPostCallback callback, object? state)
    {
        int poster = CurrentBehaviourNumber();
        Add(new Work { Kind = WorkKind.Continuation, Chain = poster != 0 ? -poster : ChainForNewWork(), Id = poster, Callback = callback, State = state });
    }

    public void Queue(Task task)
    {
        int poster = CurrentBehaviourNumber();
        Add(new Work { Kind = WorkKind.Task, Chain = poster != 0 ? -poster : ChainForNewWork(), Id = poster, Task = task });
    }

    public IEnumerable<Task> QueuedTasks()
    {
        lock (_gate)
        {
            return _ready.Where(w => w.Task is not null).Select(w => w.Task!).ToArray();
        }
    }

    /// <summary>A new PCT chain (positive; behaviours use their negated number).</summary>
    public int ChainForNewWork()
    {
        lock (_gate)
        {
            return ++_nextChain;
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
                work.Behaviour!.Run();
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
        int cownStart = _traceCowns.Count;
        int cownCount = 0;
        if (work.Behaviour is { } behaviour)
        {
            cownCount = behaviour.RequestCount;
            for (int i = 0; i < cownCount; i++)
            {
                Cown cown = behaviour.RequestedCown(i);
                if (!_cownNumbers.TryGetValue(cown, out int number))
                {
                    number = _cownNumbers.Count;
                    _cownNumbers.Add(cown, number);
                }

                _traceCowns.Add((number << 1) | (behaviour.RequestIsRead(i) ? 1 : 0));
            }
        }

        long time = work.Timer is { } timer ? Math.Max(timer.DueTicks, _time.NowTicks) : 0;
        _trace.Add(new TraceEntry(work.Kind, _candidates.Count, chosen, work.Id, cownStart, cownCount, time));
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

    private void OnUnhandled(Exception error) => _behaviourFailure ??= error;

    private string DeadlockMessage(Task? scenarioTask)
    {
        long pending = Runtime.PendingEstimate;
        string scenario = scenarioTask is { IsCompleted: true } ? "the scenario has returned" : "the scenario is still awaiting";
        return $"Deadlock: nothing can run, {scenario}, and {pending} behaviour(s) are pending. Behaviours wait for cowns held by bodies that await (for example two bodies awaiting behaviours on each other's cowns), or something awaits a wake-up that no step will deliver. Work outside the runtime's control (Task.Run, real timers, I/O, ConfigureAwait(false)) is not waited for unless BocTestOptions.UncontrolledWorkTimeout is set.";
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
