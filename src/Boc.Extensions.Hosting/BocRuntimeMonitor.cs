using Microsoft.Extensions.Logging;

namespace Boc.Extensions.Hosting;

/// <summary>
/// What the host knows about its <see cref="BocRuntime"/>: the fire-and-forget failures it has seen and where the runtime
/// is in its life. Registered by <c>AddBoc</c>; <see cref="BocHealthCheck"/> reports from it.
/// </summary>
public sealed class BocRuntimeMonitor
{
    // Failures seen before the host created the logger (a behaviour spawned while services are being constructed) are
    // kept, up to this many, and logged when it arrives.
    private const int MaxEarlyFailures = 100;

    private readonly Action<Exception>? _userHandler;
    private readonly Lock _earlyLock = new();
    private List<Exception>? _early = [];
    private ILogger? _logger;
    private long _unhandledExceptions;
    private long _lastUnhandledTicks;
    private int _phase;
    private long _pendingAtTimeout = -1;
    private BocRuntime? _runtime;

    internal BocRuntimeMonitor(Action<Exception>? userHandler) => _userHandler = userHandler;

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

    internal void Attach(BocRuntime runtime, int? maxPendingBehaviours)
    {
        _runtime = runtime;
        MaxPendingBehaviours = maxPendingBehaviours;
    }

    internal void SetPhase(BocRuntimePhase phase) => Volatile.Write(ref _phase, (int)phase);

    internal void SetPendingAtShutdownTimeout(long pending) => Interlocked.Exchange(ref _pendingAtTimeout, pending);

    /// <summary>The runtime's handler: runs on the worker that ran the failed behaviour, after its cowns were released.</summary>
    internal void Report(Exception error)
    {
        Interlocked.Increment(ref _unhandledExceptions);
        Interlocked.Exchange(ref _lastUnhandledTicks, DateTimeOffset.UtcNow.UtcTicks);
        ILogger? logger = Volatile.Read(ref _logger);
        if (logger is null)
        {
            lock (_earlyLock)
            {
                logger = _logger;
                if (logger is null)
                {
                    if (_early is { Count: < MaxEarlyFailures } early)
                    {
                        early.Add(error);
                    }
                }
            }
        }

        if (logger is not null)
        {
            Log.BehaviourFailed(logger, error.Data[BocRuntime.FailedCownsDataKey] as string, error.GetType().FullName, error);
        }

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
                if (logger is not null)
                {
                    Log.HandlerFailed(logger, handlerError);
                }
            }
        }
    }

    internal void AttachLogger(ILogger logger)
    {
        List<Exception>? early;
        lock (_earlyLock)
        {
            if (_logger is not null)
            {
                return;
            }

            Volatile.Write(ref _logger, logger);
            early = _early;
            _early = null;
        }

        foreach (Exception error in early ?? [])
        {
            Log.BehaviourFailed(logger, error.Data[BocRuntime.FailedCownsDataKey] as string, error.GetType().FullName, error);
        }
    }
}
