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
    /// <summary>Whether <paramref name="operation"/> is a collection expression (<c>[a, b]</c>; ICollectionExpressionOperation, Roslyn 4.9+).</summary>
    public static bool IsCollectionExpression(IOperation? operation) => operation?.Kind.ToString() == "CollectionExpression";

    /// <summary>The elements of a collection expression, spreads included (its child operations).</summary>
    public static ImmutableArray<IOperation> CollectionElements(IOperation collection) => collection.ChildOperations.ToImmutableArray();
}
