using Microsoft.Extensions.Logging;

namespace Boc.Extensions.Hosting;

/// <summary>
/// What the host knows about its <see cref="BocRuntime"/>: the fire-and-forget failures it has seen and where the runtime
/// is in its life. Registered by <c>AddBoc</c>; <see cref="BocHealthCheck"/> reports from it.
/// </summary>
public sealed class BocRuntimeMonitor
{
    private readonly ILogger _logger;
    private readonly Lock _failuresLock = new();

    // The times of the last failures, as many as BocHealthCheckOptions.FailureThreshold (a ring): "that many within the
    // window" holds exactly when the oldest of them is inside the window.
    private readonly long[] _failureTicks;
    private int _nextFailure;
    private int _failuresKept;

    private Action<Exception>? _userHandler;
    private long _unhandledExceptions;
    private long _lastUnhandledTicks;
    private int _phase;
    private long _pendingAtTimeout = -1;
    private BocRuntime? _runtime;

    internal BocRuntimeMonitor(ILogger logger, int failuresKept)
    {
        _logger = logger;
        _failureTicks = new long[failuresKept];
    }

    /// <summary>Gets how many fire-and-forget behaviours have thrown since the runtime was created.</summary>
    public long UnhandledExceptionCount => Interlocked.Read(ref _unhandledExceptions);

    /// <summary>Gets when the last fire-and-forget behaviour threw, or null if none has.</summary>
    public DateTimeOffset? LastUnhandledExceptionAt =>
        Interlocked.Read(ref _lastUnhandledTicks) is long ticks and not 0 ? new DateTimeOffset(ticks, TimeSpan.Zero) : null;

    /// <summary>
    /// Gets how many behaviours are pending on the runtime now: its <see cref="BocRuntime.PendingCount"/> (see there for
    /// how exact it is while behaviours are being spawned and finished).
    /// </summary>
    public long PendingCount => _runtime?.PendingCount ?? 0;

    /// <summary>Gets the runtime's bound on pending behaviours (<see cref="BocRuntimeOptions.MaxPendingBehaviours"/>), or null.</summary>
    public int? MaxPendingBehaviours { get; private set; }

    /// <summary>Gets where the runtime is in its life.</summary>
    public BocRuntimePhase Phase => (BocRuntimePhase)Volatile.Read(ref _phase);

    /// <summary>
    /// Gets how many behaviours were still pending when the host's shutdown timeout passed, or null if that has not
    /// happened.
    /// </summary>
    public long? PendingAtShutdownTimeout => Interlocked.Read(ref _pendingAtTimeout) is long n and >= 0 ? n : null;

    /// <summary>The options the runtime was created with (its handler is <see cref="Report"/>): for the tests.</summary>
    internal BocRuntimeOptions? RuntimeOptions { get; private set; }

    /// <summary>The runtime's clock (<see cref="BocRuntime.TimeProvider"/>): failure times, and the health check's window.</summary>
    internal TimeProvider Time => _runtime?.TimeProvider ?? TimeProvider.System;

    /// <summary>The handler given in the options, called after the failure was logged: for the tests.</summary>
    internal Action<Exception>? UserHandler => _userHandler;

    /// <summary>
    /// Takes the runtime's options before it is created: keeps the user's handler, to call after logging, and puts
    /// <see cref="Report"/> in its place.
    /// </summary>
    internal void TakeHandler(BocRuntimeOptions options)
    {
        _userHandler = options.UnhandledExceptionHandler;
        options.UnhandledExceptionHandler = Report;
    }

    internal void Attach(BocRuntime runtime, BocRuntimeOptions options)
    {
        _runtime = runtime;
        RuntimeOptions = options;
        MaxPendingBehaviours = options.MaxPendingBehaviours;
    }

    internal void SetPhase(BocRuntimePhase phase) => Volatile.Write(ref _phase, (int)phase);

    internal void SetPendingAtShutdownTimeout(long pending) => Interlocked.Exchange(ref _pendingAtTimeout, pending);

    /// <summary>
    /// How many of the last failures (counting at most as many as the monitor keeps, the health check's threshold)
    /// happened at or after <paramref name="since"/>.
    /// </summary>
    internal int FailuresSince(DateTimeOffset since)
    {
        long from = since.UtcTicks;
        lock (_failuresLock)
        {
            int count = 0;
            for (int i = 0; i < _failuresKept; i++)
            {
                if (_failureTicks[i] >= from)
                {
                    count++;
                }
            }

            return count;
        }
    }

    /// <summary>The runtime's handler: runs on the worker that ran the failed behaviour, after its cowns were released.</summary>
    internal void Report(Exception error)
    {
        long now = Time.GetUtcNow().UtcTicks;
        Interlocked.Increment(ref _unhandledExceptions);
        Interlocked.Exchange(ref _lastUnhandledTicks, now);
        if (_failureTicks.Length > 0)
        {
            lock (_failuresLock)
            {
                _failureTicks[_nextFailure] = now;
                _nextFailure = (_nextFailure + 1) % _failureTicks.Length;
                _failuresKept = Math.Min(_failuresKept + 1, _failureTicks.Length);
            }
        }

        Log.BehaviourFailed(_logger, error.Data[BocRuntime.FailedCownsDataKey] as string, error.GetType().FullName, error);
        if (_userHandler is { } handler)
        {
            try
            {
                handler(error);
            }
#pragma warning disable CA1031 // The user's handler must not turn one failure into a second, unlogged one.
            catch (Exception handlerError)
#pragma warning restore CA1031
            {
                Log.HandlerFailed(_logger, handlerError);
            }
        }
    }
}
