using Microsoft.Extensions.Diagnostics.HealthChecks;

namespace Boc.Extensions.Hosting;

/// <summary>
/// Reports the hosted <see cref="BocRuntime"/>: healthy while it runs, unhealthy once the host drains it. The data
/// carries the phase, how many behaviours are pending (and the bound, if the runtime has one), and how many
/// fire-and-forget behaviours have thrown. Register it with
/// <c>services.AddHealthChecks().AddCheck&lt;BocHealthCheck&gt;("boc")</c>.
/// </summary>
/// <remarks>
/// Failed behaviours do not make the runtime unhealthy (each failure released its cowns, and the behaviours after it
/// ran); they are counted so that a probe or dashboard can alert on the rate. Neither does a long queue
/// (<c>pendingBehaviours</c>): a bound (<see cref="BocRuntimeOptions.MaxPendingBehaviours"/>) is what keeps it in
/// check, and a dashboard can compare the two.
/// </remarks>
public sealed class BocHealthCheck : IHealthCheck
{
    private readonly BocRuntimeMonitor _monitor;

    /// <summary>Creates the check over the monitor that <c>AddBoc</c> registered.</summary>
    /// <param name="monitor">The monitor.</param>
    /// <exception cref="ArgumentNullException"><paramref name="monitor"/> is null.</exception>
    public BocHealthCheck(BocRuntimeMonitor monitor)
    {
        ArgumentNullException.ThrowIfNull(monitor);
        _monitor = monitor;
    }

    /// <inheritdoc/>
    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        BocRuntimePhase phase = _monitor.Phase;
        var data = new Dictionary<string, object>
        {
            ["phase"] = phase.ToString(),
            ["unhandledExceptions"] = _monitor.UnhandledExceptionCount,
            ["pendingBehaviours"] = _monitor.PendingCount,
        };
        if (_monitor.MaxPendingBehaviours is int bound)
        {
            data["maxPendingBehaviours"] = bound;
        }

        if (_monitor.LastUnhandledExceptionAt is { } last)
        {
            data["lastUnhandledExceptionAt"] = last;
        }

        if (_monitor.PendingAtShutdownTimeout is { } pending)
        {
            data["pendingAtShutdownTimeout"] = pending;
        }

        HealthCheckResult result = phase == BocRuntimePhase.Running
            ? HealthCheckResult.Healthy($"The Boc runtime is running with {data["pendingBehaviours"]} behaviours pending; {_monitor.UnhandledExceptionCount} fire-and-forget behaviours have thrown.", data)
            : new HealthCheckResult(context?.Registration.FailureStatus ?? HealthStatus.Unhealthy, $"The Boc runtime is {phase}: it refuses new behaviours.", data: data);
        return Task.FromResult(result);
    }
}
