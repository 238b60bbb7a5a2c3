namespace Boc;

/// <summary>Settings for a <see cref="BocRuntime"/>. They are read once, when the runtime is created.</summary>
public sealed class BocRuntimeOptions
{
    /// <summary>
    /// Gets or sets where ready behaviours run: <see cref="BocDispatcher.BocScheduler"/> (the default here; the hosting
    /// package's <c>AddBoc</c> defaults to the thread pool) or the .NET thread pool. See <see cref="BocDispatcher"/>.
    /// </summary>
    public BocDispatcher Dispatcher { get; set; } = BocDispatcher.BocScheduler;

    /// <summary>
    /// Gets or sets the most behaviours that may run at the same time, or null (the default) for the dispatcher's own
    /// default: <see cref="BocDispatcher.BocScheduler"/> starts one worker per processor, and the thread pool decides
    /// for <see cref="BocDispatcher.ThreadPool"/>. Set it to measure scaling, or to keep
    /// a runtime to a share of the machine.
    /// </summary>
    /// <remarks>
    /// A behaviour whose body is waiting on an <c>await</c> does not occupy a worker. A body that blocks the thread
    /// does, so with a small worker count blocking bodies can stall every other behaviour of the runtime. With a worker
    /// count set, awaited spawns from outside never run inline on their caller's thread (which would be one body more
    /// than the count): every body runs on the dispatcher.
    /// </remarks>
    public int? WorkerCount { get; set; }

    /// <summary>
    /// Gets or sets the handler for exceptions thrown by fire-and-forget behaviours (those spawned with
    /// <c>When</c>; the result forms, <c>WhenAsync</c>, deliver exceptions through their awaitable instead).
    /// </summary>
    /// <remarks>
    /// The handler runs on the worker that ran the behaviour, after the behaviour's cowns were released. When it is
    /// null (the default), exceptions are kept and reported by the next
    /// <see cref="BocRuntime.WaitForQuiescenceAsync(System.Threading.CancellationToken)"/> (or by
    /// <see cref="BocRuntime.Dispose"/>) as an <see cref="AggregateException"/>. An exception thrown by the handler
    /// itself is kept the same way, together with the original one. The failed behaviour still counts as pending while
    /// its handler runs, so a handler that shuts the runtime down must start <see cref="BocRuntime.DisposeAsync"/> or
    /// <see cref="BocRuntime.ShutdownAsync(System.Threading.CancellationToken)"/> (and not block on it):
    /// <see cref="BocRuntime.Dispose"/> from the handler throws <see cref="InvalidOperationException"/> on every dispatcher.
    /// </remarks>
    public Action<Exception>? UnhandledExceptionHandler { get; set; }

    /// <summary>
    /// Gets or sets whether an exception escaping a fire-and-forget behaviour terminates the process with
    /// <see cref="Environment.FailFast(string, Exception)"/>. Off by default; it overrides
    /// <see cref="UnhandledExceptionHandler"/>.
    /// </summary>
    public bool FailFastOnUnhandledException { get; set; }

    /// <summary>
    /// Gets or sets a name for the runtime, or null (the default) for none. A named runtime tags its metrics and
    /// behaviour spans with <c>boc.runtime</c> = the name, so several runtimes in one process can be told apart.
    /// </summary>
    /// <remarks>
    /// Every distinct name is a time series in every metrics backend: use a few fixed names ("orders", "billing"),
    /// never one per request or per tenant. Unnamed runtimes are reported together, without the tag.
    /// </remarks>
    public string? Name { get; set; }

    /// <summary>
    /// Gets or sets whether the runtime starts an <see cref="System.Diagnostics.Activity"/> (a span) for every
    /// behaviour on the <c>Boc</c> <see cref="System.Diagnostics.ActivitySource"/>. Off by default.
    /// </summary>
    /// <remarks>
    /// When on, and while some listener (for example OpenTelemetry's <c>AddSource("Boc")</c>) listens to the source, a
    /// spawn captures the spawner's <see cref="System.Diagnostics.Activity.Current"/>, and the behaviour's span
    /// (named <c>boc.behaviour</c>) starts as its child when the body starts. The span covers the body (an
    /// asynchronous body until its task completes), is current inside it, carries the number of cowns
    /// (<c>boc.cowns</c>) and is marked <see cref="System.Diagnostics.ActivityStatusCode.Error"/> with the exception
    /// when the body throws. A span costs an allocation and a few hundred nanoseconds per behaviour; when off (or
    /// nobody listens) a spawn pays one field check.
    /// </remarks>
    public bool TraceBehaviours { get; set; }

    /// <summary>
    /// Gets or sets the most behaviours that may be pending (queued or running) on the runtime before a spawn from
    /// outside the runtime must wait or is refused (see <see cref="FullMode"/>), or null (the default) for no bound.
    /// </summary>
    /// <remarks>
    /// <para>
    /// The bound applies to spawns from outside the runtime: a thread that is not running a body of a Boc behaviour
    /// (of any runtime) and is not one of this runtime's <see cref="Boc.BocScheduler"/> workers. Such a spawn is
    /// accepted only if fewer than this many behaviours are pending at that moment, so outside producers alone never
    /// take <see cref="BocRuntime.PendingCount"/> above the bound.
    /// </para>
    /// <para>
    /// Spawns from inside bodies (before or after an <c>await</c>) are exempt: they are counted, so they can use up the
    /// room that outside producers wait for and take the count above the bound, but they never wait and never throw.
    /// A body that waited for room could wait for itself: the room it waits for may only come when the body itself, or
    /// a behaviour queued behind the cowns it holds, finishes. So are spawns on the runtime's
    /// <see cref="Boc.BocScheduler"/> workers (tasks on <see cref="BocRuntime.Scheduler"/> included), which would
    /// otherwise block the threads that make room. A task a body started counts as inside only until the body ends,
    /// and tasks on the <see cref="BocRuntime.Scheduler"/> of a <see cref="BocDispatcher.ThreadPool"/> runtime (the
    /// default task scheduler) are outside.
    /// </para>
    /// <para>
    /// A bounded runtime counts every spawn and completion on one shared counter as well (an exact bound needs one
    /// place where producers agree); an unbounded runtime pays one branch per spawn and completion.
    /// </para>
    /// </remarks>
    public int? MaxPendingBehaviours { get; set; }

    /// <summary>
    /// Gets or sets what <c>When</c> and <c>WhenAsync</c> from outside the runtime do when
    /// <see cref="MaxPendingBehaviours"/> behaviours are pending: block until there is room (<see cref="BocFullMode.Wait"/>,
    /// the default) or throw <see cref="BocRuntimeFullException"/> (<see cref="BocFullMode.Throw"/>). Ignored without a
    /// bound. <c>TryWhen</c> returns false instead in either mode.
    /// </summary>
    public BocFullMode FullMode { get; set; } = BocFullMode.Wait;

    /// <summary>
    /// Gets or sets the clock of the runtime's timers (scope deadlines) and of <see cref="BocRuntime.TimeProvider"/>,
    /// or null (the default) for <see cref="System.TimeProvider.System"/>. A test can pass a fake clock to make a
    /// deadline pass at a chosen point; a host can pass the one it registered.
    /// </summary>
    public TimeProvider? TimeProvider { get; set; }
}
