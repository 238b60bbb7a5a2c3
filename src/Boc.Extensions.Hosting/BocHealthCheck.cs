using System.Globalization;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Options;

namespace Boc.Extensions.Hosting;

/// <summary>
/// Reports the hosted <see cref="BocRuntime"/>: healthy while it runs; degraded while it is full or after a run of failed
/// behaviours (thresholds in <see cref="BocHealthCheckOptions"/>); unhealthy (the registration's failure status) once
/// the host drains it. The data carries the phase, how many behaviours are pending (and the bound, if the runtime has
/// one), and how many fire-and-forget behaviours have thrown, in all and within the window. Register it with
/// <c>services.AddHealthChecks().AddCheck&lt;BocHealthCheck&gt;("boc")</c>.
/// </summary>
/// <remarks>
/// A failed behaviour does not make the runtime unhealthy: it released its cowns, and the behaviours after it ran.
/// Degraded says the service still works but something needs a look: it is near the bound where spawns from outside
/// wait or are refused, or its behaviours keep failing. A long queue without a bound is not reported
/// (<c>pendingBehaviours</c> is in the data for a dashboard): a bound (<see cref="BocRuntimeOptions.MaxPendingBehaviours"/>)
/// is what keeps it in check.
/// </remarks>
public sealed class BocHealthCheck : IHealthCheck
{
    private readonly BocRuntimeMonitor _monitor;
    private readonly BocHealthCheckOptions _options;

    /// <summary>Creates the check over the monitor that <c>AddBoc</c> registered, with its thresholds.</summary>
    /// <param name="monitor">The monitor.</param>
    /// <param name="options">The thresholds of <c>Degraded</c>.</param>
    /// <exception cref="ArgumentNullException"><paramref name="monitor"/> or <paramref name="options"/> is null.</exception>
    public BocHealthCheck(BocRuntimeMonitor monitor, IOptions<BocHealthCheckOptions> options)
    {
        ArgumentNullException.ThrowIfNull(monitor);
        ArgumentNullException.ThrowIfNull(options);
        _monitor = monitor;
        _options = options.Value;
    }

    /// <inheritdoc/>
    public Task<HealthCheckResult> CheckHealthAsync(HealthCheckContext context, CancellationToken cancellationToken = default)
    {
        BocRuntimePhase phase = _monitor.Phase;
        long pending = _monitor.PendingCount;
        var data = new Dictionary<string, object>
        {
            ["phase"] = phase.ToString(),
            ["unhandledExceptions"] = _monitor.UnhandledExceptionCount,
            ["pendingBehaviours"] = pending,
        };
        if (_monitor.LastUnhandledExceptionAt is { } last)
        {
            data["lastUnhandledExceptionAt"] = last;
        }

        if (_monitor.PendingAtShutdownTimeout is { } atTimeout)
        {
            data["pendingAtShutdownTimeout"] = atTimeout;
        }

        if (phase != BocRuntimePhase.Running)
        {
            return Task.FromResult(new HealthCheckResult(
                context?.Registration.FailureStatus ?? HealthStatus.Unhealthy, $"The Boc runtime is {phase}: it refuses new behaviours.", data: data));
        }

        var reasons = new List<string>(2);
        if (_monitor.MaxPendingBehaviours is int bound)
        {
            data["maxPendingBehaviours"] = bound;
            if (pending >= bound * _options.FullRatio)
            {
                reasons.Add(string.Create(CultureInfo.InvariantCulture, $"it is full: {pending} behaviours pending, against a bound of {bound}"));
            }
        }

        if (_options.FailureThreshold > 0)
        {
            int recent = _monitor.FailuresSince(_monitor.Time.GetUtcNow() - _options.FailureWindow);
            data["recentUnhandledExceptions"] = recent;
            if (recent >= _options.FailureThreshold)
            {
                reasons.Add(string.Create(CultureInfo.InvariantCulture, $"{recent} fire-and-forget behaviours threw within {_options.FailureWindow:c}"));
            }
        }

        HealthCheckResult result = reasons.Count > 0
            ? HealthCheckResult.Degraded($"The Boc runtime is running, but {string.Join("; ", reasons)}.", data: data)
            : HealthCheckResult.Healthy(string.Create(CultureInfo.InvariantCulture, $"The Boc runtime is running with {pending} behaviours pending; {_monitor.UnhandledExceptionCount} fire-and-forget behaviours have thrown."), data);
        return Task.FromResult(result);
    }
}
