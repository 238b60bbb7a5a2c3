using Boc.Orleans.Grains;
using Microsoft.Extensions.Logging;

namespace Boc.Orleans;

/// <summary>Distributed Boc's log events (docs/distributed.md, "Operating it"): every recovery path says what it did.</summary>
internal static partial class Log
{
    [LoggerMessage(1, LogLevel.Debug, "Cown {Cown} activated at epoch {Epoch}; prepared value of {Prepared}; {Records} commit records")]
    public static partial void Activated(ILogger logger, string cown, long epoch, Guid? prepared, int records);

    [LoggerMessage(2, LogLevel.Warning, "Cown {Cown}: a storage write failed, its outcome unknown; the activation answers nothing more and reloads ({Queued} queued requests are lost and will be retried by their spawners)")]
    public static partial void Poisoned(ILogger logger, Exception failure, string cown, int queued);

    [LoggerMessage(3, LogLevel.Information, "Cown {Cown} evicted {Count} requests whose lease expired")]
    public static partial void Evicted(ILogger logger, string cown, int count);

    [LoggerMessage(4, LogLevel.Information, "Cown {Cown} answered Aborted for behaviour {Behaviour} (no request, no record; fenced)")]
    public static partial void Aborted(ILogger logger, string cown, Guid behaviour);

    [LoggerMessage(5, LogLevel.Information, "Cown {Cown} asked the coordinator about its prepared value of {Behaviour}: {Decision}")]
    public static partial void Resolving(ILogger logger, string cown, Guid behaviour, Decision decision);

    [LoggerMessage(6, LogLevel.Warning, "Cown {Cown} could not finish recovery of behaviour {Behaviour} (retried at the next tick)")]
    public static partial void RecoveryFailed(ILogger logger, Exception failure, string cown, Guid behaviour);

    [LoggerMessage(7, LogLevel.Information, "Behaviour over {Cowns}: attempt {Attempt} ({Behaviour}) abandoned ({Reason}); nothing was written")]
    public static partial void AttemptAbandoned(ILogger logger, Exception? failure, string cowns, int attempt, Guid behaviour, string reason);

    [LoggerMessage(8, LogLevel.Error, "Behaviour over {Cowns} ({Behaviour}): the commit's outcome is unknown; its cowns will settle it")]
    public static partial void OutcomeUnknown(ILogger logger, Exception? failure, string cowns, Guid behaviour);

    [LoggerMessage(9, LogLevel.Warning, "Behaviour over {Cowns} ({Behaviour}): finishing the write-back failed at {Cown}; the coordinator settles it")]
    public static partial void FinishFailed(ILogger logger, Exception failure, string cowns, Guid behaviour, string cown);

    [LoggerMessage(10, LogLevel.Warning, "Renewing the lease of {Cown} for {Behaviour} failed ({Why})")]
    public static partial void RenewFailed(ILogger logger, Exception? failure, string cown, Guid behaviour, string why);

    [LoggerMessage(11, LogLevel.Trace, "Renewed the lease of {Cown} for {Behaviour}")]
    public static partial void Renewed(ILogger logger, string cown, Guid behaviour);
}
