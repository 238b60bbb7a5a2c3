using Boc.Orleans.Grains;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;

namespace Boc.Orleans;

/// <summary>
/// A connection's spawner of distributed behaviours: the <see cref="IBocCluster"/> that <c>AddBocCowns</c> registers on a
/// silo or a client. See docs/distributed.md for the protocol and its guarantees.
/// </summary>
public sealed partial class BocCluster : IBocCluster
{
    /// <summary>
    /// The name of the grain storage provider that keeps the cowns' states. Register a durable provider under this name
    /// on every silo, for example <c>siloBuilder.AddRedisGrainStorage(BocCluster.StorageName, …)</c>.
    /// </summary>
    public const string StorageName = "BocCowns";

    private static long s_attempts;
    private static long s_abandoned;

    private readonly SpawnSequencer _sequencer = new();
    private readonly BocClusterOptions _options;
    private readonly ILogger _logger;
    private readonly string? _idempotencyKey;
    private readonly BocCluster? _root;

    /// <summary>Initializes a spawner over a cluster connection.</summary>
    /// <param name="grainFactory">The connection: a silo's or a client's <see cref="IGrainFactory"/>.</param>
    /// <param name="options">Leases, polling and retries; the defaults if null.</param>
    /// <param name="logger">Where abandoned attempts, unknown outcomes and failed renewals are logged; none if null.</param>
    /// <exception cref="ArgumentNullException"><paramref name="grainFactory"/> is null.</exception>
    public BocCluster(IGrainFactory grainFactory, IOptions<BocClusterOptions>? options = null, ILogger<BocCluster>? logger = null)
    {
        ArgumentNullException.ThrowIfNull(grainFactory);
        GrainFactory = grainFactory;
        _options = options?.Value ?? new BocClusterOptions();
        _logger = (ILogger?)logger ?? NullLogger.Instance;
    }

    /// <summary>A view of <paramref name="spawner"/> whose spawns carry <paramref name="idempotencyKey"/>: same connection, same sequencing.</summary>
    private BocCluster(BocCluster spawner, string idempotencyKey)
    {
        GrainFactory = spawner.GrainFactory;
        _options = spawner._options;
        _logger = spawner._logger;
        _sequencer = spawner._sequencer;
        _idempotencyKey = idempotencyKey;
        _root = spawner;
    }

    internal IGrainFactory GrainFactory { get; }

    /// <summary>The spawner whose handles this one accepts: itself, or the spawner an idempotent view was made from.</summary>
    internal BocCluster Root => _root ?? this;

    /// <summary>Test hook: called at each step of every attempt; throwing <see cref="SpawnerCrashException"/> kills the spawner there.</summary>
    internal Func<SpawnerStep, Guid, Task>? FaultHook { get; set; }

    /// <summary>Test hook: called after an attempt was abandoned, before the back-off and the next attempt.</summary>
    internal Func<Guid, Task>? BetweenAttemptsHook { get; set; }

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
        return new ClusterCown<T>(Root, key);
    }

    /// <inheritdoc/>
    public IBocCluster WithIdempotencyKey(string idempotencyKey)
    {
        ArgumentException.ThrowIfNullOrEmpty(idempotencyKey);
        return new BocCluster(Root, idempotencyKey);
    }

    /// <inheritdoc/>
    public Task<CownInspection> InspectAsync<T>(ClusterCown<T> cown)
        where T : class, new()
    {
        ArgumentNullException.ThrowIfNull(cown);
        CheckOwner(cown, nameof(cown));
        return cown.Grain.Inspect();
    }

    /// <inheritdoc/>
    public async Task<ClusterOutcome> GetOutcomeAsync<T>(ClusterCown<T> coordinator, string idempotencyKey)
        where T : class, new()
    {
        ArgumentNullException.ThrowIfNull(coordinator);
        ArgumentException.ThrowIfNullOrEmpty(idempotencyKey);
        CheckOwner(coordinator, nameof(coordinator));
        return await coordinator.Grain.LookUp(idempotencyKey).ConfigureAwait(true);
    }

    internal void CheckOwner<T>(ClusterCown<T> cown, string parameterName)
        where T : class, new()
    {
        if (!ReferenceEquals(cown.Cluster.GrainFactory, GrainFactory))
        {
            throw new ArgumentException($"{cown} belongs to another cluster connection than this one.", parameterName);
        }
    }

    private Task Step(SpawnerStep step, Guid behaviour) => FaultHook?.Invoke(step, behaviour) ?? Task.CompletedTask;
}
