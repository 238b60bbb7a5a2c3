using System.Collections.Concurrent;
using Microsoft.CodeAnalysis;

namespace Boc.Analyzers;

/// <summary>
/// The Boc and BCL symbols the rules need, resolved once per compilation, plus the per-compilation mutability cache.
/// A compilation that does not reference Boc gets no instance, so the analyzer costs nothing there.
/// </summary>
internal sealed class BocTypes
{
    private BocTypes(Compilation compilation, INamedTypeSymbol runtime, INamedTypeSymbol behaviours, INamedTypeSymbol cownBase,
        INamedTypeSymbol cown, INamedTypeSymbol readOnlyCown, INamedTypeSymbol acquirable)
    {
        Compilation = compilation;
        Runtime = runtime;
        Behaviours = behaviours;
        CownBase = cownBase;
        Cown = cown;
        ReadOnlyCown = readOnlyCown;
        Acquirable = acquirable;
        Scheduler = compilation.GetTypeByMetadataName("Boc.BocScheduler");
        Batch = compilation.GetTypeByMetadataName("Boc.BocBatch");
        Task = compilation.GetTypeByMetadataName("System.Threading.Tasks.Task");
        TaskOfT = compilation.GetTypeByMetadataName("System.Threading.Tasks.Task`1");
        ValueTask = compilation.GetTypeByMetadataName("System.Threading.Tasks.ValueTask");
        ValueTaskOfT = compilation.GetTypeByMetadataName("System.Threading.Tasks.ValueTask`1");
        AsyncStateMachineAttribute = compilation.GetTypeByMetadataName("System.Runtime.CompilerServices.AsyncStateMachineAttribute");
    }

    public Compilation Compilation { get; }

    public INamedTypeSymbol Runtime { get; }

    public INamedTypeSymbol Behaviours { get; }

    public INamedTypeSymbol CownBase { get; }

    public INamedTypeSymbol Cown { get; }

    public INamedTypeSymbol ReadOnlyCown { get; }

    public INamedTypeSymbol Acquirable { get; }

    public INamedTypeSymbol? Scheduler { get; }

    /// <summary>The atomic-batch builder, whose <c>When</c>/<c>WhenAsync</c> record behaviours; null before Boc had batches.</summary>
    public INamedTypeSymbol? Batch { get; }

    public INamedTypeSymbol? Task { get; }

    public INamedTypeSymbol? TaskOfT { get; }

    public INamedTypeSymbol? ValueTask { get; }

    public INamedTypeSymbol? ValueTaskOfT { get; }

    public INamedTypeSymbol? AsyncStateMachineAttribute { get; }

    public static BocTypes? Create(Compilation compilation)
    {
        INamedTypeSymbol? runtime = compilation.GetTypeByMetadataName("Boc.BocRuntime");
        INamedTypeSymbol? behaviours = compilation.GetTypeByMetadataName("Boc.Behaviours");
        INamedTypeSymbol? cownBase = compilation.GetTypeByMetadataName("Boc.Cown");
        INamedTypeSymbol? cown = compilation.GetTypeByMetadataName("Boc.Cown`1");
        INamedTypeSymbol? readOnlyCown = compilation.GetTypeByMetadataName("Boc.ReadOnlyCown`1");
        INamedTypeSymbol? acquirable = compilation.GetTypeByMetadataName("Boc.IAcquirable`1");
        if (runtime is null || behaviours is null || cownBase is null || cown is null || readOnlyCown is null || acquirable is null)
        {
            return null;
        }

        return new BocTypes(compilation, runtime, behaviours, cownBase, cown, readOnlyCown, acquirable);
    }

    public bool IsSpawner(INamedTypeSymbol? type) =>
        type is not null && (SymbolEqualityComparer.Default.Equals(type, Runtime) || SymbolEqualityComparer.Default.Equals(type, Behaviours)
            || SymbolEqualityComparer.Default.Equals(type, Batch));

    public bool IsReadOnlyCown(ITypeSymbol? type) =>
        type is INamedTypeSymbol named && SymbolEqualityComparer.Default.Equals(named.OriginalDefinition, ReadOnlyCown);

    /// <summary>Cown handles and runtimes are identities (Pony's <c>tag</c>): sharing them is the point.</summary>
    public bool IsBocHandle(ITypeSymbol? type)
    {
        if (type is not INamedTypeSymbol named)
        {
            return false;
        }

        INamedTypeSymbol original = named.OriginalDefinition;
        return SymbolEqualityComparer.Default.Equals(original, Cown)
            || SymbolEqualityComparer.Default.Equals(original, ReadOnlyCown)
            || SymbolEqualityComparer.Default.Equals(original, Acquirable)
            || SymbolEqualityComparer.Default.Equals(original, CownBase)
            || SymbolEqualityComparer.Default.Equals(original, Runtime)
            || SymbolEqualityComparer.Default.Equals(original, Scheduler);
    }

    public bool IsTaskLike(ITypeSymbol? type)
    {
        if (type is not INamedTypeSymbol named)
        {
            return false;
        }

        INamedTypeSymbol original = named.OriginalDefinition;
        return SymbolEqualityComparer.Default.Equals(original, Task)
            || SymbolEqualityComparer.Default.Equals(original, TaskOfT)
            || SymbolEqualityComparer.Default.Equals(original, ValueTask)
            || SymbolEqualityComparer.Default.Equals(original, ValueTaskOfT);
    }

    /// <summary>
    /// The mutability model for files whose <c>boc.shareable_types</c> option is <paramref name="option"/> (usually one
    /// value for the whole project, so one model and one cache per compilation).
    /// </summary>
    public Mutability MutabilityFor(string? option) =>
        _mutabilities.GetOrAdd(option ?? "", o => new Mutability(this, UserShareableTypes.Parse(o)));

    private readonly ConcurrentDictionary<string, Mutability> _mutabilities = new();
}
