using Boc.Orleans.Grains;

namespace Boc.Orleans;

/// <summary>
/// A cown of an Orleans cluster that a behaviour can acquire: a <see cref="ClusterCown{T}"/> (for writing) or a
/// <see cref="ReadOnlyClusterCown{T}"/> (for reading). Pass it to <see cref="IBocCluster"/>'s <c>WhenAsync</c>.
/// </summary>
/// <typeparam name="T">The type of the cown's state.</typeparam>
public abstract class ClusterAcquirable<T>
    where T : class, new()
{
    // Only this assembly derives from it: the spawner relies on the two known kinds.
    private protected ClusterAcquirable()
    {
    }

    /// <summary>Gets the cown this request acquires.</summary>
    public abstract ClusterCown<T> Target { get; }

    internal abstract bool IsReadOnly { get; }
}

/// <summary>
/// A distributed cown: a piece of state of type <typeparamref name="T"/> kept by a grain of the cluster, named by
/// <see cref="Key"/>, reachable only from behaviours spawned with <see cref="IBocCluster"/>'s <c>WhenAsync</c>.
/// </summary>
/// <typeparam name="T">
/// The type of the cown's state: a class that Orleans can serialize (<c>[GenerateSerializer]</c>), since the state
/// travels to the body and back. A cown that was never written holds <c>new T()</c>.
/// </typeparam>
/// <remarks>
/// A handle is an identity and nothing else: every handle with the same <typeparamref name="T"/> and key names the same
/// cown, wherever it was created. Handles are cheap; create them with <see cref="IBocCluster.Cown{T}(string)"/>.
/// </remarks>
public sealed class ClusterCown<T> : ClusterAcquirable<T>
    where T : class, new()
{
    internal ClusterCown(BocCluster cluster, string key)
    {
        Cluster = cluster;
        Key = key;
        Grain = cluster.GrainFactory.GetGrain<ICownGrain<T>>(key);
        SortKey = string.Concat(typeof(T).FullName, "\n", key);
    }

    /// <summary>Gets the key that names the cown among the cowns of type <typeparamref name="T"/>.</summary>
    public string Key { get; }

    /// <inheritdoc/>
    public override ClusterCown<T> Target => this;

    internal override bool IsReadOnly => false;

    internal BocCluster Cluster { get; }

    internal ICownGrain<T> Grain { get; }

    /// <summary>The cown's place in the global order every spawner enqueues in: by type name, then key, ordinal.</summary>
    internal string SortKey { get; }

    /// <inheritdoc/>
    public override string ToString() => $"ClusterCown<{typeof(T).Name}>({Key})";
}

/// <summary>
/// A request for read-only access to a distributed cown, made with <see cref="BocCluster.Read{T}(ClusterCown{T})"/>.
/// Behaviours that only read a cown may hold it at the same time as each other.
/// </summary>
/// <typeparam name="T">The type of the cown's state.</typeparam>
/// <remarks>
/// The body receives a copy of the state; changes to it are discarded, never written back.
/// </remarks>
public sealed class ReadOnlyClusterCown<T> : ClusterAcquirable<T>
    where T : class, new()
{
    internal ReadOnlyClusterCown(ClusterCown<T> cown) => Target = cown;

    /// <inheritdoc/>
    public override ClusterCown<T> Target { get; }

    internal override bool IsReadOnly => true;

    /// <inheritdoc/>
    public override string ToString() => $"Read({Target})";
}
