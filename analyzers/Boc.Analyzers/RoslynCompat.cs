using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;

namespace Boc.Analyzers;

/// <summary>
/// The analyzer builds against Roslyn 4.8, the compiler of the oldest .NET 8 SDKs, so that all of them load it. Newer
/// operation interfaces are reached through what 4.8 has: the running compiler's <see cref="OperationKind"/> knows their
/// names, and their operands are their children.
/// </summary>
internal static class RoslynCompat
{
    // Looked up by name once: the running compiler's enum has them, 4.8's does not. On a compiler without them no
    // operation has these kinds (the fallback is a value no kind uses).
    private static readonly OperationKind s_collectionExpression = KindNamed("CollectionExpression");
    private static readonly OperationKind s_spread = KindNamed("Spread");

    /// <summary>Whether <paramref name="operation"/> is a collection expression (<c>[a, b]</c>; ICollectionExpressionOperation, Roslyn 4.9+).</summary>
    public static bool IsCollectionExpression(IOperation? operation) => operation is not null && operation.Kind == s_collectionExpression;

    /// <summary>The elements of a collection expression, spreads included (its child operations).</summary>
    public static ImmutableArray<IOperation> CollectionElements(IOperation collection) => collection.ChildOperations.ToImmutableArray();

    /// <summary>Whether <paramref name="element"/> of a collection expression is a spread (<c>.. items</c>; ISpreadOperation, Roslyn 4.9+).</summary>
    public static bool IsSpread(IOperation element) => element.Kind == s_spread;

    /// <summary>The collection a spread element copies from (its one child operation).</summary>
    public static IOperation? SpreadOperand(IOperation spread) => spread.ChildOperations.FirstOrDefault();

    private static OperationKind KindNamed(string name) =>
        System.Enum.TryParse(name, out OperationKind kind) ? kind : (OperationKind)(-1);
}
