using Boc.TestStore;

namespace Boc.Orleans.FaultTests;

/// <summary>
/// The stores of a test class (its class fixture), one per kind, each started when a scenario first asks for it; a
/// scenario that pauses or kills its store shares it with no other class running at the same time. The kinds the scenarios
/// run on: those BOC_FAULT_STORES names (comma-separated, e.g. "garnet,redis": .ci/run sets it, so a missing
/// redis-server fails there instead of dropping cases), else every kind this machine has (Garnet always, Redis when
/// redis-server is on PATH). Cases for a kind that is not there are not generated, rather than skipped.
/// </summary>
public sealed class StoreFixture : IAsyncLifetime
{
    private readonly Dictionary<StoreKind, Task<TestStore>> _stores = [];

    public static IReadOnlyList<StoreKind> Kinds { get; } =
        Environment.GetEnvironmentVariable("BOC_FAULT_STORES") is { Length: > 0 } named
            ? [.. named.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries).Select(n => Enum.Parse<StoreKind>(n, ignoreCase: true))]
            : StoreProcess.Available;

    /// <summary>The store of <paramref name="kind"/>, up and resumed.</summary>
    public async Task<TestStore> GetAsync(StoreKind kind)
    {
        Task<TestStore> store;
        lock (_stores)
        {
            if (!_stores.TryGetValue(kind, out store!))
            {
                _stores[kind] = store = TestStore.StartAsync(kind);
            }
        }

        TestStore started = await store;
        await started.EnsureUpAsync();
        return started;
    }

    public Task InitializeAsync() => Task.CompletedTask;

    public async Task DisposeAsync()
    {
        foreach (Task<TestStore> store in _stores.Values)
        {
            if (store.IsCompletedSuccessfully)
            {
                await store.Result.DisposeAsync();
            }
        }
    }
}
