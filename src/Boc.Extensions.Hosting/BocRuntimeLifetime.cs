using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Boc.Extensions.Hosting;

/// <summary>
/// Ties the registered <see cref="BocRuntime"/> to the host: drains the runtime in <see cref="StoppedAsync"/>, after
/// every hosted service has stopped, within the host's shutdown timeout (the token the host passes to its stop phases).
/// </summary>
internal sealed class BocRuntimeLifetime : IHostedLifecycleService, IAsyncDisposable
{
    private readonly BocRuntime _runtime;
    private readonly BocRuntimeMonitor _monitor;
    private readonly ILogger _logger;

    public BocRuntimeLifetime(BocRuntime runtime, BocRuntimeMonitor monitor, ILogger<BocRuntime> logger)
    {
        _runtime = runtime;
        _monitor = monitor;
        _logger = logger;
    }

    public Task StartingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StartedAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StoppingAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public Task StopAsync(CancellationToken cancellationToken) => Task.CompletedTask;

    public async Task StoppedAsync(CancellationToken cancellationToken)
    {
        _monitor.SetPhase(BocRuntimePhase.Draining);
        Log.Draining(_logger);
        await DrainAsync(cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// A host that was never started (or whose drain timed out) still releases the runtime's workers if nothing is
    /// pending; it never waits for pending behaviours here. The container disposes the runtime after this (it was created
    /// before this service, which depends on it), and a runtime whose shutdown gave up does not wait then either.
    /// </summary>
    public async ValueTask DisposeAsync()
    {
        if (_monitor.Phase is BocRuntimePhase.Running)
        {
            await DrainAsync(new CancellationToken(canceled: true)).ConfigureAwait(false);
        }
    }

    private async Task DrainAsync(CancellationToken cancellationToken)
    {
        try
        {
            await _runtime.ShutdownAsync(cancellationToken).ConfigureAwait(false);
            _monitor.SetPhase(BocRuntimePhase.Drained);
            Log.Drained(_logger);
        }
        catch (BocShutdownCanceledException timedOut)
        {
            _monitor.SetPendingAtShutdownTimeout(timedOut.PendingBehaviours);
            _monitor.SetPhase(BocRuntimePhase.DrainTimedOut);
            Log.DrainTimedOut(_logger, timedOut.PendingBehaviours);

            // Out of time: work that requests and jobs bounded with scopes have queued but not started would only run
            // after the host has gone. Cancel the scopes: their members that have not started are withdrawn (running
            // ones see the cancellation); behaviours outside every scope keep running, as before.
            int scopes = _runtime.CancelScopes();
            if (scopes > 0)
            {
                Log.ScopesCanceledAtShutdown(_logger, scopes);
            }
        }
        catch (AggregateException unobserved)
        {
            // Only exceptions the monitor's handler could not take (it never throws) end up here; log, don't fail the stop.
            _monitor.SetPhase(BocRuntimePhase.Drained);
            Log.UnobservedAtShutdown(_logger, unobserved);
        }
    }
}
