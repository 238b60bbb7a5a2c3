using Microsoft.Extensions.Logging;

namespace Boc.Orleans;

/// <summary>
/// Renews an attempt's leases every third of a lease until stopped: all its enqueued cowns at once, each call bounded
/// by the period, so one unresponsive silo cannot make the other cowns' leases run out (they are renewed on time while
/// its call waits).
/// </summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage("Design", "CA1001", Justification = "_stop has no timer or wait handle to free: a canceled token source holds nothing.")]
internal sealed class LeaseRenewer
{
    private readonly CownEntry[] _entries;
    private readonly Guid _behaviour;
    private readonly TimeSpan _period;
    private readonly ILogger _logger;
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _running;
    private int _enqueued;

    public LeaseRenewer(CownEntry[] entries, Guid behaviour, TimeSpan lease, ILogger logger)
    {
        _entries = entries;
        _behaviour = behaviour;
        _period = lease / 3;
        _logger = logger;
        _running = RunAsync();
    }

    /// <summary>How many of the entries (in order) may hold a request of the attempt: those to renew and to release.</summary>
    public int Enqueued => Volatile.Read(ref _enqueued);

    /// <summary>Counts the next entry as enqueued, before its first Enqueue is sent.</summary>
    public void AddEnqueued() => Interlocked.Increment(ref _enqueued);

    /// <summary>Stops renewing and waits for the round in progress; idempotent.</summary>
    public async Task StopAsync()
    {
        if (!_stop.IsCancellationRequested)
        {
            await _stop.CancelAsync().ConfigureAwait(true);
        }

        await _running.ConfigureAwait(true);
    }

    private async Task RunAsync()
    {
        while (true)
        {
            try
            {
                await Task.Delay(_period, _stop.Token).ConfigureAwait(true);
            }
            catch (OperationCanceledException)
            {
                return;
            }

            await Task.WhenAll(_entries.Take(Enqueued).Select(RenewAsync)).ConfigureAwait(true);
        }
    }

    private async Task RenewAsync(CownEntry entry)
    {
        try
        {
            // Bounded: the next round starts on time whatever this call does; a late answer is dropped.
            Grains.CownReply reply = await entry.Renew(_behaviour).WaitAsync(_period, _stop.Token).ConfigureAwait(true);
            if (reply == Grains.CownReply.Lost)
            {
                Log.RenewFailed(_logger, null, entry.Name, _behaviour, "lost");
            }
            else
            {
                Log.Renewed(_logger, entry.Name, _behaviour);
            }
        }
        catch (OperationCanceledException) when (_stop.IsCancellationRequested)
        {
        }
#pragma warning disable CA1031 // A lost cown is found by the attempt's own next call; a renewal only keeps what it can.
        catch (Exception failure)
#pragma warning restore CA1031
        {
            Log.RenewFailed(_logger, failure, entry.Name, _behaviour, "unreachable");
        }
    }
}
