using System.Collections.Concurrent;
using Microsoft.CodeAnalysis;

namespace Boc.Analyzers;

/// <summary>
/// The Boc and BCL symbols the rules need, resolved once per compilation, plus the per-compilation mutability cache.
/// A compilation that references neither Boc nor Boc.Orleans gets no instance, so the analyzer costs nothing there.
/// Boc.Orleans does not depend on Boc: a compilation may have either, or both.
/// </summary>
internal sealed class BocTypes
{
    private BocTypes(Compilation compilation)
    {
        Compilation = compilation;
        Runtime = compilation.GetTypeByMetadataName("Boc.BocRuntime");
        Behaviours = compilation.GetTypeByMetadataName("Boc.Behaviours");
        CownBase = compilation.GetTypeByMetadataName("Boc.Cown");
        Cown = compilation.GetTypeByMetadataName("Boc.Cown`1");
        ReadOnlyCown = compilation.GetTypeByMetadataName("Boc.ReadOnlyCown`1");
        Acquirable = compilation.GetTypeByMetadataName("Boc.IAcquirable`1");
        Scheduler = compilation.GetTypeByMetadataName("Boc.BocScheduler");
        Batch = compilation.GetTypeByMetadataName("Boc.BocBatch");
        Cluster = compilation.GetTypeByMetadataName("Boc.Orleans.IBocCluster");
        ClusterImplementation = compilation.GetTypeByMetadataName("Boc.Orleans.BocCluster");
        ClusterAcquirable = compilation.GetTypeByMetadataName("Boc.Orleans.ClusterAcquirable`1");
        ClusterCown = compilation.GetTypeByMetadataName("Boc.Orleans.ClusterCown`1");
        ReadOnlyClusterCown = compilation.GetTypeByMetadataName("Boc.Orleans.ReadOnlyClusterCown`1");
        Task = compilation.GetTypeByMetadataName("System.Threading.Tasks.Task");
        TaskOfT = compilation.GetTypeByMetadataName("System.Threading.Tasks.Task`1");
        ValueTask = compilation.GetTypeByMetadataName("System.Threading.Tasks.ValueTask");
        ValueTaskOfT = compilation.GetTypeByMetadataName("System.Threading.Tasks.ValueTask`1");
        AsyncStateMachineAttribute = compilation.GetTypeByMetadataName("System.Runtime.CompilerServices.AsyncStateMachineAttribute");
    }

    public Compilation Compilation { get; }

    public INamedTypeSymbol? Runtime { get; }

    public INamedTypeSymbol? Behaviours { get; }

    public INamedTypeSymbol? CownBase { get; }

    public INamedTypeSymbol? Cown { get; }

    public INamedTypeSymbol? ReadOnlyCown { get; }

    public INamedTypeSymbol? Acquirable { get; }

    public INamedTypeSymbol? Scheduler { get; }

    /// <summary>The atomic-batch builder, whose <c>When</c>/<c>WhenAsync</c> record behaviours; null before Boc had batches.</summary>
    public INamedTypeSymbol? Batch { get; }

    /// <summary>Boc.Orleans' spawner interface, whose <c>WhenAsync</c> runs a distributed behaviour on copies of the states.</summary>
    public INamedTypeSymbol? Cluster { get; }

    /// <summary>Boc.Orleans' <c>BocCluster</c>, the implementation of <see cref="Cluster"/> and home of <c>BocCluster.Read</c>.</summary>
    public INamedTypeSymbol? ClusterImplementation { get; }

    public INamedTypeSymbol? ClusterAcquirable { get; }

    public INamedTypeSymbol? ClusterCown { get; }

    public INamedTypeSymbol? ReadOnlyClusterCown { get; }

    public INamedTypeSymbol? Task { get; }

    public INamedTypeSymbol? TaskOfT { get; }

    public INamedTypeSymbol? ValueTask { get; }

    public INamedTypeSymbol? ValueTaskOfT { get; }

    public INamedTypeSymbol? AsyncStateMachineAttribute { get; }

    public static BocTypes? Create(Compilation compilation)
    {
        var types = new BocTypes(compilation);
        bool hasBoc = types.Runtime is not null && types.Behaviours is not null && types.CownBase is not null && types.Cown is not null
            && types.ReadOnlyCown is not null && types.Acquirable is not null;
        bool hasCluster = types.Cluster is not null && types.ClusterAcquirable is not null;
        return hasBoc || hasCluster ? types : null;
    }

    public bool IsSpawner(INamedTypeSymbol? type) =>
        type is not null && (Is(type, Runtime) || Is(type, Behaviours) || Is(type, Batch));

    /// <summary><c>IBocCluster</c>, or a type that implements it (a call on a <c>BocCluster</c> binds to the class's method).</summary>
    public bool IsClusterSpawner(INamedTypeSymbol? type)
    {
        if (type is null || Cluster is null)
        {
            return false;
        }

        if (Is(type, Cluster))
        {
            return true;
        }

        foreach (INamedTypeSymbol implemented in type.AllInterfaces)
        {
            if (Is(implemented, Cluster))
            {
                return true;
            }
        }

        return false;
    }

    public bool IsClusterAcquirable(ITypeSymbol? type) => type is INamedTypeSymbol named && Is(named.OriginalDefinition, ClusterAcquirable);

    public bool IsReadOnlyCown(ITypeSymbol? type) =>
        type is INamedTypeSymbol named && (Is(named.OriginalDefinition, ReadOnlyCown) || Is(named.OriginalDefinition, ReadOnlyClusterCown));

    /// <summary>Cown handles, runtimes and clusters are identities (Pony's <c>tag</c>): sharing them is the point.</summary>
    public bool IsBocHandle(ITypeSymbol? type)
    {
        if (type is not INamedTypeSymbol named)
        {
            return false;
        }

        INamedTypeSymbol original = named.OriginalDefinition;
        return Is(original, Cown) || Is(original, ReadOnlyCown) || Is(original, Acquirable) || Is(original, CownBase)
            || Is(original, Runtime) || Is(original, Scheduler)
            || Is(original, ClusterCown) || Is(original, ReadOnlyClusterCown) || Is(original, ClusterAcquirable)
            || Is(original, Cluster) || Is(original, ClusterImplementation);
    }

    private static bool Is(INamedTypeSymbol type, INamedTypeSymbol? known) => known is not null && SymbolEqualityComparer.Default.Equals(type, known);

    public bool IsTaskLike(ITypeSymbol? type)
    {
        if (type is not INamedTypeSymbol named)
        {
            return false;
        }

        INamedTypeSymbol original = named.OriginalDefinition;
        return Is(original, Task) || Is(original, TaskOfT) || Is(original, ValueTask) || Is(original, ValueTaskOfT);
    }

    /// <summary>
    /// The mutability model for files whose <c>boc.shareable_types</c> option is <paramref name="option"/> (usually one
    /// value for the whole project, so one model and one cache per compilation).
    /// </summary>
    public Mutability MutabilityFor(string? option) =>
        _mutabilities.GetOrAdd(option ?? "", o => new Mutability(this, UserShareableTypes.Parse(o)));

    private readonly ConcurrentDictionary<string, Mutability> _mutabilities = new();
}
