using System.Collections.Concurrent;
using Orleans.Serialization;
using Orleans.Storage;

namespace Boc.Orleans.Tests;

/// <summary>
/// Grain storage that outlives the silos of an in-process test cluster, standing in for a database outside the cluster.
/// MemoryGrainStorage keeps state in grains of the cluster itself, so killing a silo would lose some cowns' states and
/// the kill test could not tell that loss from a protocol bug. States are stored serialized (a real provider's copy
/// semantics) with an ETag check on every write, applied atomically when the write reaches the store: a write that is
/// delayed (<see cref="StoreFaults"/>) carries the ETag it was sent with, as a real store's request would.
/// </summary>
internal sealed class ProcessGrainStorage(Serializer serializer) : IGrainStorage
{
    private static readonly ConcurrentDictionary<string, (byte[] Data, string ETag)> s_store = new();
    private static readonly object s_gate = new();
    /// <summary>The ground truth: what storage holds for <paramref name="grainId"/>'s state, or null.</summary>
    public static T? Read<T>(Serializer serializer, string stateName, GrainId grainId)
        where T : class => s_store.TryGetValue(Key(stateName, grainId), out (byte[] Data, string ETag) entry) ? serializer.Deserialize<T>(entry.Data) : null;

    public Task ReadStateAsync<T>(string stateName, GrainId grainId, IGrainState<T> grainState)
    {
        if (s_store.TryGetValue(Key(stateName, grainId), out (byte[] Data, string ETag) entry))
        {
            grainState.State = serializer.Deserialize<T>(entry.Data);
            grainState.ETag = entry.ETag;
            grainState.RecordExists = true;
        }

        return Task.CompletedTask;
    }

    public async Task WriteStateAsync<T>(string stateName, GrainId grainId, IGrainState<T> grainState)
    {
        // A write costs something in any real provider; a yield keeps the grain's write genuinely asynchronous here.
        await Task.Yield();
        string key = Key(stateName, grainId);
        byte[] data = serializer.SerializeToArray(grainState.State);
        string? sentETag = grainState.ETag;
        string etag = Guid.NewGuid().ToString("N");
        await StoreFaults.Apply(grainId, grainState.State!, () => Land(key, data, sentETag, etag));
        grainState.ETag = etag;
        grainState.RecordExists = true;
    }

    public Task ClearStateAsync<T>(string stateName, GrainId grainId, IGrainState<T> grainState)
    {
        s_store.TryRemove(Key(stateName, grainId), out _);
        grainState.ETag = null;
        grainState.RecordExists = false;
        return Task.CompletedTask;
    }

    /// <summary>The store's conditional write, as it happens when the request reaches the store.</summary>
    private static void Land(string key, byte[] data, string? sentETag, string etag)
    {
        lock (s_gate)
        {
            string? current = s_store.TryGetValue(key, out (byte[] Data, string ETag) entry) ? entry.ETag : null;
            if (current != sentETag)
            {
                throw new InconsistentStateException($"ETag mismatch for {key}", current ?? "none", sentETag ?? "none");
            }

            s_store[key] = (data, etag);
        }
    }

    private static string Key(string stateName, GrainId grainId) => $"{stateName}/{grainId}";
}
