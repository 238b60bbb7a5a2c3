using System.Diagnostics;
using System.Runtime.InteropServices;
using Boc.Diagnostics;
using Boc.Dispatch;

namespace Boc;

/// <summary>
/// A BoC runtime: it spawns behaviours on cowns, runs them when they hold their cowns, tracks quiescence, and reports
/// exceptions of fire-and-forget behaviours. Most programs use <see cref="Default"/> through
/// <see cref="Behaviours"/>; tests and hosts that need isolation create their own.
/// </summary>
/// <remarks>
/// <para>
/// Cowns do not belong to a runtime: the same cown may be used by behaviours of several runtimes, and ordering
/// between them still holds. Quiescence and exception reporting are per runtime.
/// </para>
/// <para>
/// Disposal <b>drains</b>: <see cref="Dispose"/> and <see cref="DisposeAsync"/> first stop accepting new behaviours
/// (every <c>When</c> after that point throws <see cref="ObjectDisposedException"/> before enqueuing anything, and this
/// includes behaviours spawned by bodies still running), then wait until every behaviour already accepted has finished,
/// then stop the runtime's <see cref="BocScheduler"/> workers, if it has them. Accepted work is never dropped.
/// <see cref="ShutdownAsync(CancellationToken)"/> does the same with a way out: if its token is canceled first, it
/// fails with a <see cref="BocShutdownCanceledException"/> that says how many behaviours were still pending.
/// </para>
/// </remarks>
[DebuggerDisplay("{DebuggerDisplay,nq}")]
public sealed partial class BocRuntime : IDisposable, IAsyncDisposable
{
    /// <summary>
    /// The most cowns one behaviour may acquire. Every entry counts, duplicates included: <c>When(c, c, …)</c> uses two.
    /// </summary>
    public const int MaxCownsPerBehaviour = 1024;

    /// <summary>
    /// The most fire-and-forget exceptions kept, without an <see cref="BocRuntimeOptions.UnhandledExceptionHandler"/>,
    /// until the next <see cref="WaitForQuiescenceAsync"/> or disposal reports them. Later ones are only counted (the
    /// report says how many), so a program that keeps failing without ever waiting does not grow without bound.
    /// </summary>
    public const int MaxKeptExceptions = 100;

    /// <summary>
    /// The <see cref="Exception.Data"/> key under which the runtime records, in an exception thrown by a
    /// fire-and-forget body, the cowns that behaviour held: a string such as <c>"Cown#3 (write), Cown#7 (read)"</c>,
    /// set before the exception reaches <see cref="BocRuntimeOptions.UnhandledExceptionHandler"/> or is kept for
    /// <see cref="WaitForQuiescenceAsync"/>. If one exception object is thrown by several behaviours, it names the last.
    /// </summary>
    public const string FailedCownsDataKey = "Boc.Cowns";

    // Fire-and-forget exceptions kept for the next wait (Engines/UnobservedErrors.cs).
    private readonly UnobservedErrors _unobserved = new();
    private readonly Action<Exception>? _exceptionHandler;
    private readonly bool _failFast;
    private readonly bool _isDefault;

    private readonly BocScheduler? _ownedScheduler;

    // The dispatcher when it is a BocScheduler (owned or not), for the spawn-time hand-over (BocScheduler.OnSpawn).
    private readonly BocScheduler? _bocScheduler;

    /// <summary>Gets the runtime's dispatcher if it is a <see cref="BocScheduler"/>, else null.</summary>
    internal BocScheduler? BocSchedulerOrNull => _bocScheduler;

    // Boc.Testing's controlled dispatcher, which makes each spawn a scheduling point (ISpawnHook); null otherwise.
    private readonly ISpawnHook? _spawnHook;

    // Behaviours accepted but not finished, and the waiters for quiescence (Engines/PendingCount.cs): counted in before
    // enqueuing, out after release and delivery, so "none pending" means nothing is queued, running, or about to release.
    private readonly PendingCount _pending;
    private int _disposed;

    // BocRuntimeOptions.TraceBehaviours: read by every spawn, so a plain field.
    private readonly bool _traceBehaviours;

    // Whether awaited spawns from outside may run inline (Protocol/Behaviour.Inline.cs): the public dispatchers only.
    private readonly bool _inlineRuns;

    /// <summary>Creates a runtime with default options.</summary>
    public BocRuntime()
        : this(new BocRuntimeOptions())
    {
    }

    /// <summary>Creates a runtime with the given options.</summary>
    /// <param name="options">The options; they are read now and not observed afterwards.</param>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">
    /// <see cref="BocRuntimeOptions.WorkerCount"/> or <see cref="BocRuntimeOptions.MaxPendingBehaviours"/> is less than 1,
    /// or <see cref="BocRuntimeOptions.FullMode"/> is not a defined value.
    /// </exception>
    public BocRuntime(BocRuntimeOptions options)
        : this(options, isDefault: false)
    {
    }

    private BocRuntime(BocRuntimeOptions options, bool isDefault)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.WorkerCount is int workers)
        {
            ArgumentOutOfRangeException.ThrowIfLessThan(workers, 1, nameof(options.WorkerCount));
        }

        _admission = AdmissionOf(this, options);

        switch (options.Dispatcher)
        {
            case BocDispatcher.BocScheduler:
                _ownedScheduler = new BocScheduler(options.WorkerCount ?? Environment.ProcessorCount);
                Dispatcher = _ownedScheduler;
                Scheduler = _ownedScheduler;
                _bocScheduler = _ownedScheduler;
                break;
            case BocDispatcher.ThreadPool:
                Dispatcher = options.WorkerCount is int bound ? new BoundedThreadPoolDispatcher(bound) : ThreadPoolDispatcher.Instance;
                Scheduler = TaskScheduler.Default;
                break;
            default:
                throw new ArgumentOutOfRangeException(nameof(options), options.Dispatcher, "Unknown dispatcher.");
        }

        _pending = new PendingCount(_bocScheduler?.WorkerCount ?? 0);
        _exceptionHandler = options.UnhandledExceptionHandler;
        _failFast = options.FailFastOnUnhandledException;
        _isDefault = isDefault;
        TimeProvider = options.TimeProvider ?? TimeProvider.System;
        Name = options.Name;
        _traceBehaviours = options.TraceBehaviours;
        // A fixed WorkerCount promises at most that many bodies at once; an inline body would be one more.
        _inlineRuns = options.WorkerCount is null;
        if (_ownedScheduler is not null)
        {
            _ownedScheduler.RuntimeName = Name;
        }

        BocMetrics.Runtimes.Add(this);
    }

    /// <summary>
    /// Creates a runtime that runs ready behaviours through <paramref name="dispatcher"/> (Boc.Testing's controlled
    /// runtime): <paramref name="scheduler"/> becomes <see cref="Scheduler"/>, <paramref name="timeProvider"/> becomes
    /// <see cref="TimeProvider"/>, and the runtime's own awaits continue on the captured context (see
    /// <see cref="ContinuesOnCapturedContext"/>). If <paramref name="dispatcher"/> is an <see cref="ISpawnHook"/>, every
    /// spawn's enqueue goes through it.
    /// </summary>
    internal BocRuntime(BocRuntimeOptions options, IDispatcher dispatcher, TaskScheduler scheduler, TimeProvider timeProvider)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(dispatcher);
        ArgumentNullException.ThrowIfNull(scheduler);
        ArgumentNullException.ThrowIfNull(timeProvider);
        _admission = AdmissionOf(this, options);
        Dispatcher = dispatcher;
        _bocScheduler = dispatcher as BocScheduler;
        _spawnHook = dispatcher as ISpawnHook;
        _pending = new PendingCount(_bocScheduler?.WorkerCount ?? 0);
        Scheduler = scheduler;
        TimeProvider = timeProvider;
        _exceptionHandler = options.UnhandledExceptionHandler;
        _failFast = options.FailFastOnUnhandledException;
        ContinuesOnCapturedContext = true;
        Name = options.Name;
        _traceBehaviours = options.TraceBehaviours;
        BocMetrics.Runtimes.Add(this);
    }

    /// <summary>
    /// Gets the runtime's name (<see cref="BocRuntimeOptions.Name"/>), or null. It tags the runtime's metrics and
    /// behaviour spans as <c>boc.runtime</c>.
    /// </summary>
    public string? Name { get; }

    /// <summary>
    /// Gets the <see cref="TaskScheduler"/> whose threads run this runtime's behaviours: the runtime's
    /// <see cref="BocScheduler"/>, or <see cref="TaskScheduler.Default"/> for the thread-pool dispatcher. Tasks
    /// started on it share the behaviours' workers.
    /// </summary>
    public TaskScheduler Scheduler { get; }

    /// <summary>
    /// Gets the clock and timers that bodies should use for delays and timeouts (<c>Task.Delay(delay, runtime.TimeProvider)</c>,
    /// <c>task.WaitAsync(timeout, runtime.TimeProvider)</c>), and the clock of scope deadlines:
    /// <see cref="BocRuntimeOptions.TimeProvider"/> (<see cref="TimeProvider.System"/> unless set), and virtual time under
    /// Boc.Testing, where timers fire under the test's control.
    /// </summary>
    public TimeProvider TimeProvider { get; }

    internal IDispatcher Dispatcher { get; }

    /// <summary>
    /// Hands a ready behaviour to <see cref="Dispatcher"/>; <paramref name="thread"/> is the calling thread's
    /// <see cref="BocThread"/> if the caller holds it (null to look it up): a <see cref="BocScheduler"/> then needs no
    /// thread-static lookup to find the worker it runs on, nor an interface call.
    /// </summary>
    internal void Dispatch(Behaviour behaviour, BocThread? thread)
    {
        if (_bocScheduler is { } scheduler)
        {
            scheduler.Dispatch(behaviour, thread ?? BocThread.CurrentOrNull);
        }
        else
        {
            Dispatcher.Dispatch(behaviour);
        }
    }

    /// <summary>
    /// Gets whether the runtime's internal awaits (an asynchronous body's release, quiescence waits) continue on the
    /// captured synchronization context. False (ConfigureAwait(false)) except under Boc.Testing: there the captured
    /// context is the controlled run's, and .NET would otherwise move a ConfigureAwait(false) continuation that
    /// completes under a custom context to the thread pool, outside the run's control.
    /// </summary>
    internal bool ContinuesOnCapturedContext { get; }

    /// <summary>Gets whether no behaviour of this runtime is pending now (a snapshot, for the controlled runtime).</summary>
    internal bool IsQuiescentNow => _pending.IsQuiescent();

    /// <summary>Gets roughly how many behaviours are pending (exact when no other thread spawns or finishes).</summary>
    internal long PendingEstimate => _pending.Estimate();

    /// <summary>
    /// Waits until the runtime is quiescent: every behaviour spawned on it so far, including behaviours those spawned,
    /// has finished (asynchronous bodies included).
    /// </summary>
    /// <param name="cancellationToken">Stops waiting; the behaviours are not affected.</param>
    /// <returns>
    /// A task that completes at the first moment no behaviour of this runtime is pending. If fire-and-forget behaviours
    /// threw and no <see cref="BocRuntimeOptions.UnhandledExceptionHandler"/> is set, the task fails with an
    /// <see cref="AggregateException"/> holding those exceptions (each is reported once).
    /// </returns>
    /// <remarks>
    /// If other threads keep spawning behaviours, a quiescent moment may never come. Behaviours spawned after the
    /// call may be included in the wait.
    /// </remarks>
    /// <exception cref="InvalidOperationException">
    /// Called from a body of a behaviour of this runtime, before or after an <c>await</c>: the runtime is not quiescent
    /// while that body runs, so the wait would never end. The returned task fails with it.
    /// </exception>
    public async Task WaitForQuiescenceAsync(CancellationToken cancellationToken = default)
    {
        ThrowIfInOwnBody("wait for the quiescence of");
        await _pending.WhenQuiescent().WaitAsync(cancellationToken).ConfigureAwait(ContinuesOnCapturedContext);
        _unobserved.ThrowIfAny();
    }

    /// <summary>
    /// Accepts <paramref name="behaviour"/>, already admitted (<see cref="Admit()"/>, <c>TryAdmit</c>; a bounded runtime
    /// counted it in), and enqueues it on its cowns before returning. On a disposed runtime it undoes the admission,
    /// returns the behaviour to its pool and throws. <paramref name="thread"/> is the calling thread's
    /// <see cref="BocThread"/>, looked up once by the caller for its pool, the scheduler and the count.
    /// </summary>
    private void SpawnAdmitted(Behaviour behaviour, BocThread thread) => _ = SpawnAdmitted(behaviour, thread, mayRunInline: true);

    /// <summary>
    /// <see cref="SpawnAdmitted(Behaviour, BocThread)"/>; <paramref name="mayRunInline"/> false keeps the spawn from
    /// running inline even where it could (a cancellable spawn: Protocol/Behaviour.Inline.cs). Returns false if the
    /// spawn was refused without a throw (an awaited spawn into a canceled scope, completed as withdrawn).
    /// </summary>
    private bool SpawnAdmitted(Behaviour behaviour, BocThread thread, bool mayRunInline)
    {
        // A body that spawns again has outlived the behaviour it may have put in its worker's next slot; let the
        // scheduler move that one where an idle worker can take it, unless this spawn cannot queue behind it
        // (BocScheduler.OnSpawn). It also says which of the scheduler's workers this is (-1 if none), for the count below.
        int worker = _bocScheduler?.OnSpawn(thread, behaviour) ?? -1;

        // Scopes (Scopes/BocRuntime.Scopes.cs): the spawn joins the calling flow's scope, if any, or is refused if that
        // scope is canceled, before anything is counted or enqueued. Until the process begins its first scope this is
        // one read of a static flag and a predictable branch.
        ScopeJoin join = default;
        if (BocScope.AnyBegun && !TryJoinScope(behaviour, thread, out join))
        {
            return false;
        }

        // Count first, then check for disposal: either this spawn sees the flag, or the disposer's wait sees the count
        // (a Dekker pair, fenced on both sides, or by the disposer alone for a plain count on a line of one writer:
        // PendingCount), so a drain can never miss an accepted behaviour.
        _pending.Spawned(worker, thread);
        if (Atomic.Read(ref _disposed) != 0)
        {
            OnBehaviourFinished();
            join.Scope?.CountOut();

            // Never enqueued, and its awaitable (if any) not handed out: nothing else can reach it.
            behaviour.Discard();
            throw ShutDown();
        }

        // Observability (Diagnostics/BocMetrics.cs, BocTracing.cs): one cheap check each while nobody listens.
        if (BocMetrics.Spawned.Enabled)
        {
            BocMetrics.Add(BocMetrics.Spawned, Name);
        }

        if (BocMetrics.StartDelay.Enabled)
        {
            behaviour.StampSpawn();
        }

        if (_traceBehaviours && BocTracing.Source.HasListeners())
        {
            behaviour.CaptureTraceParent();
        }

        if (_spawnHook is null)
        {
            // Inline runs (Protocol/Behaviour.Inline.cs): an awaited spawn from outside the workers and outside any body.
            behaviour.Enqueue(
                thread,
                runInline: mayRunInline && worker < 0 && _inlineRuns && behaviour.IsAwaited && Behaviour.MayRunInlineHere(thread));
        }
        else
        {
            _spawnHook.Enqueue(behaviour);
        }

        // A member is registered for its scope's cancellation only now: a canceller never meets a spawner mid-enqueue
        // (Scopes/BocScope.Members.cs, "Registration"). The behaviour may have run and gone back to its pool since; the
        // registration names the life it joined, so it is then a stale entry that withdraws nothing.
        join.Register();
        return true;
    }

    /// <summary>Counts <paramref name="count"/> behaviours (one by default, or a behaviour's appended bodies) out.</summary>
    internal void OnBehaviourFinished(int count = 1)
    {
        GiveRoomBack(count);
        CountOut(count);
    }

    /// <summary>
    /// Gives back the room of <paramref name="count"/> finished behaviours, under a bound. A behaviour that delivers a
    /// result calls this before it delivers it, and <see cref="CountOut(BocThread?, int)"/> after: whoever holds the
    /// result then finds the room free (its continuation may run at once, on the delivering thread, and spawn again).
    /// </summary>
    internal void GiveRoomBack(int count = 1) => _admission?.Release(count);

    /// <summary>Counts <paramref name="count"/> finished behaviours out of quiescence, after <see cref="GiveRoomBack"/>.</summary>
    internal void CountOut(int count = 1) => CountOut(null, count);

    /// <summary>
    /// <see cref="CountOut(int)"/> for a caller that may hold the calling thread's <see cref="BocThread"/>
    /// (<paramref name="thread"/>; null to look it up).
    /// </summary>
    internal void CountOut(BocThread? thread, int count = 1)
    {
        thread ??= BocThread.Current;

        // After the room: whoever sees the runtime quiescent then sees the exact count at zero too. Only while someone
        // waits does a completion look at the other stripes (PendingCount explains why no quiescent moment is missed
        // this way).
        if (_pending.Finished(_bocScheduler?.WorkerIndexOf(thread) ?? -1, thread, count) && _pending.IsQuiescent())
        {
            _pending.SignalWaiters();
        }
    }

    internal void ReportUnhandled(Exception error)
    {
        if (_failFast)
        {
            Environment.FailFast("A Boc behaviour threw an unhandled exception.", error);
        }

        Action<Exception>? handler = _exceptionHandler;
        if (handler is null)
        {
            _unobserved.Keep(error);
            return;
        }

        // The failed behaviour is still pending while its handler runs: mark the thread, so that a blocking wait for this
        // runtime from the handler is refused (Dispose) instead of waiting for itself, on every dispatcher alike.
        BocThread thread = BocThread.Current;
        BocRuntime? outer = thread.Handling;
        thread.Handling = this;
        try
        {
            handler(error);
        }
#pragma warning disable CA1031 // A throwing handler must not lose the behaviour's exception, nor kill the worker.
        catch (Exception handlerError)
#pragma warning restore CA1031
        {
            _unobserved.Keep(new AggregateException("The unhandled-exception handler threw.", error, handlerError));
        }
        finally
        {
            thread.Handling = outer;
        }
    }
}
