namespace Boc.Extensions.Hosting;

/// <summary>
/// When <see cref="BocHealthCheck"/> reports <c>Degraded</c>: a runtime near its bound on pending behaviours, or a run
/// of failed fire-and-forget behaviours. Set with <c>services.Configure&lt;BocHealthCheckOptions&gt;(…)</c>, or from the
/// <c>HealthCheck</c> section under the one given to <c>AddBoc(configuration)</c>. Read once, when the monitor is created.
/// </summary>
public sealed class BocHealthCheckOptions
{
    /// <summary>
    /// Gets or sets how full the runtime may get before it is reported degraded: a fraction of
    /// <see cref="BocRuntimeOptions.MaxPendingBehaviours"/> (greater than 0, at most 1; default 0.9). The runtime is full
    /// when at least this fraction of the bound is pending (<see cref="BocRuntime.PendingCount"/>); without a bound it is
    /// never full. At the bound, spawns from outside wait or are refused (<see cref="BocRuntimeOptions.FullMode"/>).
    /// </summary>
    public double FullRatio { get; set; } = 0.9;

    /// <summary>
    /// Gets or sets how many fire-and-forget behaviours must have failed within <see cref="FailureWindow"/> for the
    /// runtime to be reported degraded (default 5; 0 turns the check off; at most <see cref="MaxFailureThreshold"/>).
    /// </summary>
    public int FailureThreshold { get; set; } = 5;

    /// <summary>
    /// Gets or sets the window of <see cref="FailureThreshold"/>, ending at the time of the check (default one minute;
    /// positive). Time is the runtime's <see cref="BocRuntime.TimeProvider"/> (in a host, the registered
    /// <see cref="TimeProvider"/> unless the options chose another).
    /// </summary>
    public TimeSpan FailureWindow { get; set; } = TimeSpan.FromMinutes(1);

    /// <summary>The largest <see cref="FailureThreshold"/>: the monitor keeps that many failure times.</summary>
    public const int MaxFailureThreshold = 10_000;
}
