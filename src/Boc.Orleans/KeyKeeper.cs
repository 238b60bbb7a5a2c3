using Boc.Orleans.Grains;
using Microsoft.Extensions.Logging;

namespace Boc.Orleans;

/// <summary>
/// Keeps a keyed call's idempotency key held at its coordinator for as long as the call runs, every third of a lease,
/// between attempts too: a lookup meanwhile answers Pending, not NotCommitted (docs/distributed.md, "Idempotency keys").
/// Its first call is a third of a lease after the call starts; until then an attempt queued at the coordinator holds the
/// key. A call that is never renewed (its spawner died or paused) loses the hold a lease later, and a lookup then fences
/// the key, which the call's later attempts find.
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "_stop has no timer or wait handle to free: a canceled token source holds nothing.")]
internal sealed class KeyKeeper
{
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _running;

    private KeyKeeper(CownEntry coordinator, string key, TimeSpan lease, ILogger logger) => _running = RunAsync(coordinator, key, lease / 3, logger);

    /// <summary>Starts keeping <paramref name="key"/> at <paramref name="coordinator"/>, or returns null if there is nothing to keep.</summary>
    public static KeyKeeper? Start(CownEntry? coordinator, string? key, TimeSpan lease, ILogger logger) =>
        coordinator is not null && key is not null ? new KeyKeeper(coordinator, key, lease, logger) : null;

    public async Task StopAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(true);
        await _running.ConfigureAwait(true);
    }

    private async Task RunAsync(CownEntry coordinator, string key, TimeSpan period, ILogger logger)
    {
        while (true)
        {
            try
            {
                await Task.Delay(period, _stop.Token).ConfigureAwait(true);

                // Bounded as a renewal is; a fenced key is found by the call's next enqueue at the coordinator as well.
                CownReply reply = await coordinator.KeepKey(key).WaitAsync(period, _stop.Token).ConfigureAwait(true);
                if (reply == CownReply.Fenced)
                {
                    return;
                }
            }
            catch (OperationCanceledException) when (_stop.IsCancellationRequested)
            {
                return;
            }
#pragma warning disable CA1031 // An unreachable coordinator is retried at the next period; its attempts find it lost anyway.
            catch (Exception failure)
#pragma warning restore CA1031
            {
                Log.RenewFailed(logger, failure, coordinator.Name, Guid.Empty, "key unreachable");
            }
        }
    }
}
