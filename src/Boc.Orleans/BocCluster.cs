using Boc.Orleans.Grains;
using Microsoft.Extensions.Options;

namespace Boc.Orleans;

// =====================================================================================================================
// The spawner's side of the protocol (docs/distributed.md, "The protocol" and "Commit"). One BocCluster is one
// spawner: spawns from it that share a cown run their enqueue phases in call order (the per-spawner sequencing below),
// which is what makes "WhenAsync called first" mean "ahead on every shared cown" without awaiting.
//
// An attempt: sequence, enqueue in the global order one acknowledgement at a time, schedule, acquire, run the body,
// commit. An attempt that loses a cown before its commit decision (a silo died, a lease expired) is abandoned: every
// cown is released unchanged (a prepared value dropped: the coordinator never committed, or answered Aborted) and the
// behaviour is spawned again with a new id. The body's own exception is never retried. Every await keeps the caller's
// context (ConfigureAwait(true)): a spawner inside a grain must run the body on its activation.
// =====================================================================================================================

/// <summary>
/// A connection's spawner of distributed behaviours: the <see cref="IBocCluster"/> that <c>AddBocCowns</c> registers on a
/// silo or a client. See docs/distributed.md for the protocol and its guarantees.
/// </summary>
public sealed partial class BocCluster : IBocCluster
{
    /// <summary>
    /// The name of the grain storage provider that keeps the cowns' states. Register a provider under this name on
    /// every silo, for example <c>siloBuilder.AddMemoryGrainStorage(BocCluster.StorageName)</c>.
    /// </summary>
    public const string StorageName = "BocCowns";

    private static long s_attempts;
    private static long s_abandoned;

    private readonly Dictionary<string, Task> _enqueueTails = new(StringComparer.Ordinal);
    private readonly object _gate = new();
    private readonly BocClusterOptions _options;

    /// <summary>Initializes a spawner over a cluster connection.</summary>
    /// <param name="grainFactory">The connection: a silo's or a client's <see cref="IGrainFactory"/>.</param>
    /// <param name="options">Leases, polling and retries; the defaults if null.</param>
    /// <exception cref="ArgumentNullException"><paramref name="grainFactory"/> is null.</exception>
    public BocCluster(IGrainFactory grainFactory, IOptions<BocClusterOptions>? options = null)
    {
        ArgumentNullException.ThrowIfNull(grainFactory);
        GrainFactory = grainFactory;
        _options = options?.Value ?? new BocClusterOptions();
    }

    internal IGrainFactory GrainFactory { get; }

    /// <summary>Attempts started by every spawner of the process (tests and benchmarks read it).</summary>
    internal static long Attempts => Interlocked.Read(ref s_attempts);

    /// <summary>Attempts abandoned because a cown was lost, by every spawner of the process.</summary>
    internal static long Abandoned => Interlocked.Read(ref s_abandoned);

    /// <summary>Requests read-only access to <paramref name="cown"/> for one behaviour.</summary>
    /// <typeparam name="T">The type of the cown's state.</typeparam>
    /// <param name="cown">The cown.</param>
    /// <returns>A request to pass to <c>WhenAsync</c> wherever a cown is accepted.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="cown"/> is null.</exception>
    public static ReadOnlyClusterCown<T> Read<T>(ClusterCown<T> cown)
        where T : class, new()
    {
        ArgumentNullException.ThrowIfNull(cown);
        return new ReadOnlyClusterCown<T>(cown);
    }

    /// <inheritdoc/>
    public ClusterCown<T> Cown<T>(string key)
        where T : class, new()
    {
        ArgumentException.ThrowIfNullOrEmpty(key);
        return new ClusterCown<T>(this, key);
    }

    private async Task<TResult> RunAsync<TResult>(SpawnPlan plan, Func<Task<TResult>> body)
    {
        CownEntry[] entries = plan.Entries;
        Exception? lastFailure = null;
        for (int attempt = 0; attempt < _options.MaxAttempts; attempt++)
        {
            if (attempt > 0)
            {
                // A lost cown usually means a dead silo: give the membership time to declare it and the grain to move.
                await Task.Delay(Math.Min(50 << Math.Min(attempt, 6), 2000)).ConfigureAwait(true);
            }

            Interlocked.Increment(ref s_attempts);
            var id = Guid.NewGuid();
            int enqueued = 0;
            using var stopRenewing = new CancellationTokenSource();
            Task renewing = RenewAsync(entries, () => Volatile.Read(ref enqueued), id, stopRenewing.Token);
            try
            {
                var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
                Task[] predecessors = Sequence(entries, done.Task);
                try
                {
                    await Task.WhenAll(predecessors).ConfigureAwait(true);
                    foreach (CownEntry entry in entries)
                    {
                        Volatile.Write(ref enqueued, enqueued + 1);
                        bool first = true;
                        while (true)
                        {
                            CownReply reply = await entry.Enqueue(id, first, _options.PollInterval).ConfigureAwait(true);
                            first = false;
                            if (reply == CownReply.Ready)
                            {
                                break;
                            }

                            ThrowIfLost(reply, entry);
                        }
                    }
                }
                finally
                {
                    EndSequence(entries, done);
                }

                await Task.WhenAll(entries.Select(e => e.Schedule(id))).ConfigureAwait(true);
                await Task.WhenAll(entries.Select(e => AcquireAsync(e, id))).ConfigureAwait(true);
            }
#pragma warning disable CA1031 // Any failure to reach a cown abandons the attempt; the last one is reported.
            catch (Exception failure)
#pragma warning restore CA1031
            {
                lastFailure = failure;
                await AbandonAsync(entries, enqueued, id, stopRenewing, renewing).ConfigureAwait(true);
                continue;
            }

            TResult result;
            try
            {
                result = await body().ConfigureAwait(true);
            }
            catch
            {
                await AbandonAsync(entries, enqueued, id, stopRenewing, renewing, counted: false).ConfigureAwait(true);
                throw;
            }

            Decision decision;
            try
            {
                decision = await CommitAsync(entries, id).ConfigureAwait(true);
            }
            catch (CownLostException lost)
            {
                lastFailure = lost;
                await AbandonAsync(entries, enqueued, id, stopRenewing, renewing).ConfigureAwait(true);
                continue;
            }
            catch (BocClusterException)
            {
                // Outcome unknown: releasing now could drop a committed write, so the cowns resolve it themselves.
                await StopAsync(stopRenewing, renewing).ConfigureAwait(true);
                throw;
            }

            await StopAsync(stopRenewing, renewing).ConfigureAwait(true);
            if (decision == Decision.Aborted)
            {
                lastFailure = new CownLostException("The coordinator cown no longer held the behaviour when it committed.");
                await AbandonAsync(entries, enqueued, id, stopRenewing, renewing).ConfigureAwait(true);
                continue;
            }

            await FinishAsync(entries, id).ConfigureAwait(true);
            return result;
        }

        throw new BocClusterException(
            $"The behaviour over {string.Join(", ", entries.Select(e => e.SortKey.Replace('\n', '/')))} could not be run in {_options.MaxAttempts} attempts: a cown was unavailable.",
            lastFailure!);
    }

    private async Task AcquireAsync(CownEntry entry, Guid id)
    {
        while (true)
        {
            CownReply reply = await entry.Acquire(id, _options.PollInterval).ConfigureAwait(true);
            if (reply == CownReply.Ready)
            {
                return;
            }

            ThrowIfLost(reply, entry);
        }
    }

    /// <summary>
    /// The write-back: nothing to do without writes; else prepare every written cown after the first, then commit at
    /// the first written cown (the coordinator). Throws <see cref="CownLostException"/> if a prepare found its cown
    /// lost (nothing committed); retries the idempotent commit on transport failures for up to two leases.
    /// </summary>
    private async Task<Decision> CommitAsync(CownEntry[] entries, Guid id)
    {
        CownEntry? coordinator = Array.Find(entries, e => e.Write);
        if (coordinator is null)
        {
            return Decision.Committed;
        }

        GrainId coordinatorId = coordinator.GrainId;
        CownReply[] prepared;
        try
        {
            prepared = await Task.WhenAll(entries.Where(e => e.Write && e != coordinator).Select(e => e.Prepare(id, coordinatorId))).ConfigureAwait(true);
        }
        catch (Exception failure) when (failure is not CownLostException)
        {
            throw new CownLostException("A written cown could not be prepared.", failure);
        }

        if (prepared.Any(r => r != CownReply.Ready))
        {
            throw new CownLostException("A written cown no longer held the behaviour when it was prepared.");
        }

        long deadline = Environment.TickCount64 + 2 * (long)_options.LeaseDuration.TotalMilliseconds;
        int delay = 10;
        while (true)
        {
            try
            {
                return await coordinator.Commit(id).ConfigureAwait(true);
            }
            catch (Exception failure) when (Environment.TickCount64 < deadline)
            {
                _ = failure;
                await Task.Delay(delay).ConfigureAwait(true);
                delay = Math.Min(delay * 2, 1000);
            }
            catch (Exception failure)
            {
                throw new BocClusterException(
                    "The commit's outcome is unknown: the coordinator cown could not be reached. Its prepared cowns will apply or drop the writes when it answers.",
                    failure);
            }
        }
    }

    /// <summary>After the commit: apply every prepared value and release every other cown, then let the coordinator forget.</summary>
    private static async Task FinishAsync(CownEntry[] entries, Guid id)
    {
        CownEntry? coordinator = Array.Find(entries, e => e.Write);
        bool all = true;
        await Task.WhenAll(entries.Where(e => e != coordinator).Select(async e =>
        {
            try
            {
                await e.Release(id, apply: true).ConfigureAwait(true);
            }
#pragma warning disable CA1031 // A prepared cown that misses this asks the coordinator after its lease.
            catch (Exception)
#pragma warning restore CA1031
            {
                all = false;
            }
        })).ConfigureAwait(true);
        if (all && coordinator is not null)
        {
            try
            {
                await coordinator.Forget(id).ConfigureAwait(true);
            }
#pragma warning disable CA1031 // A commit record that is never forgotten only costs its bytes.
            catch (Exception)
#pragma warning restore CA1031
            {
            }
        }
    }

    /// <summary>Releases every cown the attempt may have reached, unchanged; a cown that misses this evicts on lease expiry.</summary>
    private static async Task AbandonAsync(CownEntry[] entries, int enqueued, Guid id, CancellationTokenSource stopRenewing, Task renewing, bool counted = true)
    {
        if (counted)
        {
            Interlocked.Increment(ref s_abandoned);
        }

        await StopAsync(stopRenewing, renewing).ConfigureAwait(true);
        await Task.WhenAll(entries.Take(enqueued).Select(async e =>
        {
            try
            {
                await e.Release(id, apply: false).ConfigureAwait(true);
            }
#pragma warning disable CA1031 // Best effort: the cown's lease frees it otherwise.
            catch (Exception)
#pragma warning restore CA1031
            {
            }
        })).ConfigureAwait(true);
    }

    private static async Task StopAsync(CancellationTokenSource stopRenewing, Task renewing)
    {
        if (!stopRenewing.IsCancellationRequested)
        {
            await stopRenewing.CancelAsync().ConfigureAwait(true);
        }

        await renewing.ConfigureAwait(true);
    }

    /// <summary>Renews the leases of the cowns enqueued so far, every third of a lease, until stopped.</summary>
    private async Task RenewAsync(CownEntry[] entries, Func<int> enqueued, Guid id, CancellationToken stop)
    {
        TimeSpan period = _options.LeaseDuration / 3;
        while (true)
        {
            try
            {
                await Task.Delay(period, stop).ConfigureAwait(true);
            }
            catch (OperationCanceledException)
            {
                return;
            }

            int count = enqueued();
            for (int i = 0; i < count && !stop.IsCancellationRequested; i++)
            {
                try
                {
                    await entries[i].Renew(id).ConfigureAwait(true);
                }
#pragma warning disable CA1031 // A lost cown is found by the attempt's own next call.
                catch (Exception)
#pragma warning restore CA1031
                {
                }
            }
        }
    }

    /// <summary>
    /// Registers this spawn's enqueue phase as the last one on each of its cowns and returns the earlier spawns' phases
    /// it must wait for. Under the lock, so two spawns of this spawner see each other in call order.
    /// </summary>
    private Task[] Sequence(CownEntry[] entries, Task done)
    {
        var predecessors = new List<Task>();
        lock (_gate)
        {
            foreach (CownEntry entry in entries)
            {
                if (_enqueueTails.TryGetValue(entry.SortKey, out Task? tail))
                {
                    predecessors.Add(tail);
                }

                _enqueueTails[entry.SortKey] = done;
            }
        }

        return [.. predecessors];
    }

    private void EndSequence(CownEntry[] entries, TaskCompletionSource done)
    {
        lock (_gate)
        {
            foreach (CownEntry entry in entries)
            {
                if (_enqueueTails.TryGetValue(entry.SortKey, out Task? tail) && tail == done.Task)
                {
                    _enqueueTails.Remove(entry.SortKey);
                }
            }
        }

        done.TrySetResult();
    }

    private static void ThrowIfLost(CownReply reply, CownEntry entry)
    {
        if (reply == CownReply.Lost)
        {
            throw new CownLostException($"{entry.SortKey.Replace('\n', '/')} no longer holds the behaviour's request.");
        }
    }
}
