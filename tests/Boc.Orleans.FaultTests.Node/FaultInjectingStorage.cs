using Orleans.Storage;
using StackExchange.Redis;

namespace Boc.Orleans.FaultTests.Node;

/// <summary>
/// The cowns' storage in a fault-test silo: Orleans' Redis provider, behind a decorator that looks up the armed faults
/// (Faults.cs) before each write and applies the first one naming the written cown. A write that reaches storage late
/// carries the ETag it was sent with, as a real request would, so Redis's own ETag check decides whether it lands.
/// </summary>
internal sealed class FaultInjectingStorage(IGrainStorage inner, IDatabase control, string cluster) : IGrainStorage
{
    public Task ReadStateAsync<T>(string stateName, GrainId grainId, IGrainState<T> grainState) => inner.ReadStateAsync(stateName, grainId, grainState);

    public Task ClearStateAsync<T>(string stateName, GrainId grainId, IGrainState<T> grainState) => inner.ClearStateAsync(stateName, grainId, grainState);

    public async Task WriteStateAsync<T>(string stateName, GrainId grainId, IGrainState<T> grainState)
    {
        (string Rule, Faults.Kind Kind, TimeSpan Delay)? fault = await ClaimAsync(grainId, grainState.State);
        if (fault is not { } f)
        {
            await inner.WriteStateAsync(stateName, grainId, grainState);
            return;
        }

        await control.StringSetAsync(Faults.Hit(cluster, f.Rule), Environment.ProcessId);
        Console.WriteLine($"fault {f.Rule} {f.Kind} on {grainId}");
        switch (f.Kind)
        {
            case Faults.Kind.Observe:
                await inner.WriteStateAsync(stateName, grainId, grainState);
                return;
            case Faults.Kind.StallThenFail:
                await Task.Delay(f.Delay);
                await control.StringSetAsync(Faults.Outcome(cluster, f.Rule), "failed");
                throw new TimeoutException("fault test: the write stalled and failed");
            case Faults.Kind.TimeOutButLand:
                var copy = new GrainState<T>(grainState.State, grainState.ETag);
                _ = LandLaterAsync(stateName, grainId, copy, f);
                await Task.Delay(f.Delay / 2);
                throw new TimeoutException("fault test: the write timed out (it will still land)");
            default:
                while (!await control.KeyExistsAsync(Faults.Release(cluster, f.Rule)))
                {
                    await Task.Delay(50);
                }

                try
                {
                    await inner.WriteStateAsync(stateName, grainId, grainState);
                    await control.StringSetAsync(Faults.Outcome(cluster, f.Rule), "landed");
                }
                catch (InconsistentStateException)
                {
                    await control.StringSetAsync(Faults.Outcome(cluster, f.Rule), "rejected");
                    throw;
                }

                return;
        }
    }

    private async Task LandLaterAsync<T>(string stateName, GrainId grainId, GrainState<T> copy, (string Rule, Faults.Kind Kind, TimeSpan Delay) f)
    {
        await Task.Delay(f.Delay);
        try
        {
            await inner.WriteStateAsync(stateName, grainId, copy);
            await control.StringSetAsync(Faults.Outcome(cluster, f.Rule), "landed");
        }
        catch (InconsistentStateException)
        {
            await control.StringSetAsync(Faults.Outcome(cluster, f.Rule), "rejected");
        }
    }

    /// <summary>The first armed fault naming this cown, claimed atomically (HDEL answers 1 to one claimant only).</summary>
    private async Task<(string, Faults.Kind, TimeSpan)?> ClaimAsync(GrainId grainId, object? state)
    {
        string id = grainId.ToString();
        foreach (HashEntry rule in await control.HashGetAllAsync(Faults.Rules(cluster)))
        {
            string[] parts = rule.Value.ToString().Split('|');
            if (id.EndsWith("/" + parts[0], StringComparison.Ordinal) && (parts.Length < 4 || HoldsTransfers(state)) && await control.HashDeleteAsync(Faults.Rules(cluster), rule.Name))
            {
                return (rule.Name.ToString(), Enum.Parse<Faults.Kind>(parts[1]), TimeSpan.FromMilliseconds(long.Parse(parts[2], System.Globalization.CultureInfo.InvariantCulture)));
            }
        }

        return null;
    }

    /// <summary>
    /// Whether the record being written holds a state with at least one transfer: the commit (or apply) of a first
    /// transfer, not a flush or a fence. Read by name, so the injector works with any version of the cown record.
    /// </summary>
    private static bool HoldsTransfers(object? record) =>
        record?.GetType().GetProperty("Value")?.GetValue(record) is LedgerAccount { Transfers.Count: > 0 };
}
