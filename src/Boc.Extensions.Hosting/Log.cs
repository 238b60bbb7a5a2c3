using Microsoft.Extensions.Logging;

namespace Boc.Extensions.Hosting;

/// <summary>The package's log messages; event ids are stable, for filters and alerts.</summary>
internal static partial class Log
{
    [LoggerMessage(EventId = 1, EventName = "BehaviourFailed", Level = LogLevel.Error,
        Message = "A fire-and-forget Boc behaviour on {Cowns} threw {ExceptionType}; its cowns were released and the behaviours queued after it still run.")]
    public static partial void BehaviourFailed(ILogger logger, string? cowns, string? exceptionType, Exception exception);

    [LoggerMessage(EventId = 2, EventName = "HandlerFailed", Level = LogLevel.Error,
        Message = "The UnhandledExceptionHandler given to AddBoc threw.")]
    public static partial void HandlerFailed(ILogger logger, Exception exception);

    [LoggerMessage(EventId = 3, EventName = "Draining", Level = LogLevel.Information,
        Message = "Draining the Boc runtime: new behaviours are refused, accepted ones run to the end.")]
    public static partial void Draining(ILogger logger);

    [LoggerMessage(EventId = 4, EventName = "Drained", Level = LogLevel.Information,
        Message = "The Boc runtime drained: every accepted behaviour finished.")]
    public static partial void Drained(ILogger logger);

    [LoggerMessage(EventId = 5, EventName = "DrainTimedOut", Level = LogLevel.Warning,
        Message = "The Boc runtime did not drain within the host's shutdown timeout: {PendingBehaviours} behaviours were still queued or running. They keep running; new ones are refused.")]
    public static partial void DrainTimedOut(ILogger logger, long pendingBehaviours);

    [LoggerMessage(EventId = 7, EventName = "ScopesCanceledAtShutdown", Level = LogLevel.Warning,
        Message = "The Boc runtime did not drain within the host's shutdown timeout: {Scopes} open scopes were canceled, so their behaviours that had not started are withdrawn instead of running after the host stopped.")]
    public static partial void ScopesCanceledAtShutdown(ILogger logger, int scopes);

    [LoggerMessage(EventId = 6, EventName = "UnobservedAtShutdown", Level = LogLevel.Error,
        Message = "The Boc runtime reported exceptions at shutdown that no handler observed.")]
    public static partial void UnobservedAtShutdown(ILogger logger, Exception exception);
}
