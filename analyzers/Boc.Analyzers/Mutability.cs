using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>
/// Approximates Pony's <c>val</c>: may a value of this type be shared between behaviours without a cown? A type is
/// "mutable" if code holding a reference can change what others see through it. The approximation, and the boundaries
/// it accepts, are documented in docs/analyzers/BOC103.md. One instance per compilation and user configuration
/// (<see cref="UserShareableTypes"/>), with its own cache.
/// </summary>
internal sealed class Mutability
{
    private static readonly HashSet<string> s_shareableAttributeNames = new() { "ImmutableAttribute", "ThreadSafeAttribute" };

    private static readonly HashSet<string> s_selfSynchronizingNamespaces = new()
    {
        "System.Threading",
        "System.Threading.Tasks",
        "System.Threading.Channels",
        "System.Collections.Concurrent",
    };

    private static readonly string[] s_readOnlyViewNamespaces = ["System.Collections", "System.Collections.Generic", "System.Collections.ObjectModel"];

    private static readonly HashSet<string> s_mutableCollectionNamespaces = new()
    {
        "System.Collections",
        "System.Collections.Generic",
        "System.Collections.ObjectModel",
        "System.Collections.Specialized",
    };

    private readonly BocTypes _types;
    private readonly UserShareableTypes _user;
    private readonly ConcurrentDictionary<ITypeSymbol, bool> _cache = new(SymbolEqualityComparer.Default);
    private readonly ConcurrentDictionary<ITypeSymbol, bool> _delegateHolders = new(SymbolEqualityComparer.Default);

    // The computations as delegates made once, not per query.
    private readonly System.Func<ITypeSymbol, HashSet<ITypeSymbol>, bool> _computeMutable;
    private readonly System.Func<ITypeSymbol, HashSet<ITypeSymbol>, bool> _computeHoldsDelegate;

    public Mutability(BocTypes types, UserShareableTypes user)
    {
        _types = types;
        _user = user;
        _computeMutable = Compute;
        _computeHoldsDelegate = ComputeHoldsDelegate;
    }

    // The cache first: the set that guards against cycles is needed only when the answer must be computed.
    public bool IsMutable(ITypeSymbol? type) =>
        type is not null && (_cache.TryGetValue(type, out bool cached) ? cached : IsMutable(type, new HashSet<ITypeSymbol>(SymbolEqualityComparer.Default)));

    /// <summary>A type whose own operations synchronise (locks, interlocked counters, events, concurrent collections).</summary>
    public static bool IsSelfSynchronizing(ITypeSymbol type)
    {
        if (Namespaces.IsAny(type.ContainingNamespace, s_selfSynchronizingNamespaces))
        {
            return true;
        }

        // A type that keeps a synchronisation primitive or a volatile field is taken to guard its own state: the
        // analyzer cannot see whether every access is guarded, and flagging every such type would bury real findings.
        if (type.TypeKind is TypeKind.Class or TypeKind.Struct && type.ContainingAssembly is not null)
        {
            foreach (IFieldSymbol field in type.GetMembers().OfType<IFieldSymbol>())
            {
                if (field.IsStatic)
                {
                    continue;
                }

                if (field.IsVolatile)
                {
                    return true;
                }

                if (field.Type.TypeKind is TypeKind.Class or TypeKind.Struct && Namespaces.IsAny(field.Type.ContainingNamespace, s_selfSynchronizingNamespaces))
                {
                    return true;
                }
            }
        }

        return false;
    }

    /// <summary>
    /// A read-only view type: what it shows cannot be changed through it, but may be changed by whoever owns the
    /// object behind it (a deferred query, <c>AsReadOnly()</c>, a list seen as <c>IReadOnlyList&lt;T&gt;</c>).
    /// </summary>
    public static bool IsReadOnlyView(ITypeSymbol? type)
    {
        if (type is not INamedTypeSymbol named)
        {
            return false;
        }

        INamespaceSymbol? ns = named.ContainingNamespace;
        string name = named.Name;
        if (name is "IEnumerable" or "IAsyncEnumerable" || name.StartsWith("IReadOnly", System.StringComparison.Ordinal)
            || name.StartsWith("ReadOnly", System.StringComparison.Ordinal))
        {
            return Namespaces.IsAny(ns, s_readOnlyViewNamespaces) || (name == "ReadOnlyMemory" && Namespaces.Is(ns, "System"));
        }

        return name is "IOrderedEnumerable" or "IQueryable" or "IOrderedQueryable" or "IGrouping" or "ILookup" && Namespaces.Is(ns, "System.Linq");
    }

    /// <summary>
    /// A value known to be a shareable instance although its type is not shareable in general (<c>Random.Shared</c>,
    /// <c>CultureInfo.InvariantCulture</c>).
    /// </summary>
    public static bool IsShareableValue(IOperation? value) => Operations.Strip(value!) switch
    {
        IPropertyReferenceOperation { Instance: null } property => KnownTypes.IsShareableMember(property.Property),
        IFieldReferenceOperation { Instance: null } field => KnownTypes.IsShareableMember(field.Field),
        IInvocationOperation { Instance: null } invocation => KnownTypes.IsShareableMember(invocation.TargetMethod),
        _ => false,
    };

    /// <summary>A type that the user or <see cref="KnownTypes"/> declares shareable.</summary>
    public bool IsDeclaredShareable(INamedTypeSymbol type)
    {
        INamedTypeSymbol original = type.OriginalDefinition;
        return KnownTypes.Shareable.Contains(KnownTypes.IdOf(original))
            || _user.Contains(original)
            || original.GetAttributes().Any(a => a.AttributeClass is { } attribute && s_shareableAttributeNames.Contains(attribute.Name));
    }

    /// <summary>
    /// Whether a value of this type may keep a delegate it was given: a delegate itself, a library class (its private
    /// fields are invisible, and a class built from a delegate, such as <c>Lazy&lt;T&gt;</c> or a comparer, keeps it), a
    /// type of your code with a field that may, or a collection, tuple or generic struct of such values. Numbers,
    /// strings, tasks, cown handles, library structs of those and types declared shareable keep none. A value that keeps
    /// a delegate over acquired state is not a copy of that state, however immutable its type looks.
    /// </summary>
    public bool HoldsDelegate(ITypeSymbol? type) =>
        type is not null && _delegateHolders.TryGetValue(type, out bool cached) ? cached : HoldsDelegate(type, new HashSet<ITypeSymbol>(SymbolEqualityComparer.Default));

    private bool HoldsDelegate(ITypeSymbol? type, HashSet<ITypeSymbol> visiting)
    {
        if (type is null || type.TypeKind is TypeKind.Enum or TypeKind.Pointer or TypeKind.FunctionPointer or TypeKind.TypeParameter
            || type.SpecialType is SpecialType.System_Object or SpecialType.System_String
            || (type.IsValueType && type.SpecialType != SpecialType.None))
        {
            return false;
        }

        if (type.TypeKind == TypeKind.Delegate || type.SpecialType is SpecialType.System_Delegate or SpecialType.System_MulticastDelegate)
        {
            return true;
        }

        return Memoized(_delegateHolders, type, visiting, _computeHoldsDelegate);
    }

    /// <summary>
    /// A cached answer about a type, computed once; a type met again while its own answer is being computed (a node
    /// that points to nodes of its own type) adds nothing: the type's other parts decide.
    /// </summary>
    private static bool Memoized(ConcurrentDictionary<ITypeSymbol, bool> cache, ITypeSymbol type, HashSet<ITypeSymbol> visiting,
        System.Func<ITypeSymbol, HashSet<ITypeSymbol>, bool> compute)
    {
        if (cache.TryGetValue(type, out bool cached))
        {
            return cached;
        }

        if (!visiting.Add(type))
        {
            return false;
        }

        bool result = compute(type, visiting);
        visiting.Remove(type);
        cache.TryAdd(type, result);
        return result;
    }

    private bool ComputeHoldsDelegate(ITypeSymbol type, HashSet<ITypeSymbol> visiting)
    {
        if (type is IArrayTypeSymbol array)
        {
            return HoldsDelegate(array.ElementType, visiting);
        }

        if (type is not INamedTypeSymbol named || _types.IsBocHandle(named) || _types.IsTaskLike(named) || IsDeclaredShareable(named))
        {
            return false;
        }

        if (named.IsAnonymousType)
        {
            return named.GetMembers().OfType<IPropertySymbol>().Any(p => HoldsDelegate(p.Type, visiting));
        }

        if (named.OriginalDefinition.SpecialType == SpecialType.System_Nullable_T || named.IsTupleType)
        {
            return named.TypeArguments.Any(t => HoldsDelegate(t, visiting));
        }

        // A collection holds its elements (a dictionary its keys and values): a list of numbers keeps no delegate.
        if (Taint.ElementType(named) is { } element && !SymbolEqualityComparer.Default.Equals(element, named))
        {
            return named.TypeArguments.Any(t => HoldsDelegate(t, visiting)) || HoldsDelegate(element, visiting);
        }

        if (!named.Locations.Any(l => l.IsInSource))
        {
            return named.IsValueType ? named.TypeArguments.Any(t => HoldsDelegate(t, visiting)) : true;
        }

        for (INamedTypeSymbol? current = named; current is not null && current.SpecialType is not (SpecialType.System_Object or SpecialType.System_ValueType);
            current = current.BaseType)
        {
            if (!current.Locations.Any(l => l.IsInSource))
            {
                // A library base class may keep anything.
                return HoldsDelegate(current, visiting);
            }

            foreach (IFieldSymbol field in current.GetMembers().OfType<IFieldSymbol>())
            {
                if (!field.IsStatic && HoldsDelegate(field.Type, visiting))
                {
                    return true;
                }
            }
        }

        return false;
    }

    /// <summary>
    /// The backing field of a property that cannot be set after construction (no setter, or <c>init</c>) and whose
    /// getter does not write it: a C# 14 <c>field</c>-backed <c>init</c> property gets a backing field that is not
    /// readonly, although nothing can change it once the object is built. A getter that caches into <c>field</c>
    /// (<c>get =&gt; field ??= …</c>) does write it.
    /// </summary>
    private static bool IsSetOnlyAtConstruction(IFieldSymbol field)
    {
        if (field.AssociatedSymbol is not IPropertySymbol { IsStatic: false } property || property.SetMethod is { IsInitOnly: false })
        {
            return false;
        }

        foreach (SyntaxReference reference in property.GetMethod?.DeclaringSyntaxReferences ?? ImmutableArray<SyntaxReference>.Empty)
        {
            foreach (SyntaxNode node in reference.GetSyntax().DescendantNodesAndSelf())
            {
                SyntaxNode? written = node switch
                {
                    AssignmentExpressionSyntax assignment => assignment.Left,
                    PrefixUnaryExpressionSyntax { RawKind: (int)SyntaxKind.PreIncrementExpression or (int)SyntaxKind.PreDecrementExpression } prefix => prefix.Operand,
                    PostfixUnaryExpressionSyntax { RawKind: (int)SyntaxKind.PostIncrementExpression or (int)SyntaxKind.PostDecrementExpression } postfix => postfix.Operand,
                    ArgumentSyntax { RefKindKeyword.RawKind: (int)SyntaxKind.RefKeyword or (int)SyntaxKind.OutKeyword } argument => argument.Expression,
                    _ => null,
                };

                // The field keyword is a FieldExpressionSyntax in the compilers that have it, a node Roslyn 4.8 (which this
                // builds against) does not know: it is recognised by its text.
                if (written is not null && written.WithoutTrivia().ToString() == "field")
                {
                    return false;
                }
            }
        }

        return true;
    }

    private bool IsMutable(ITypeSymbol? type, HashSet<ITypeSymbol> visiting) =>
        type is not null && Memoized(_cache, type, visiting, _computeMutable);

    private bool Compute(ITypeSymbol type, HashSet<ITypeSymbol> visiting)
    {
        switch (type.SpecialType)
        {
            case SpecialType.System_Object:
                // A bare object reference can only be compared, locked or cast; treat it as an identity.
                return false;
            case SpecialType.System_String:
                return false;
        }

        if (type.IsValueType && type.SpecialType != SpecialType.None)
        {
            return false;
        }

        switch (type)
        {
            case IArrayTypeSymbol array:
                // An array of cowns is a set of identities that code builds once and shares: treating it as mutable
                // would flag every multi-cown program, so replacing elements of such an array is accepted unflagged.
                return !_types.IsBocHandle(array.ElementType);
            case ITypeParameterSymbol parameter:
                return !parameter.HasValueTypeConstraint && !parameter.HasUnmanagedTypeConstraint
                    && !parameter.ConstraintTypes.Any(t => !IsMutable(t, visiting) && t.TypeKind != TypeKind.Interface);
            case IPointerTypeSymbol or IFunctionPointerTypeSymbol:
                return true;
            case INamedTypeSymbol named:
                return ComputeNamed(named, visiting);
            default:
                return false;
        }
    }

    private bool ComputeNamed(INamedTypeSymbol named, HashSet<ITypeSymbol> visiting)
    {
        if (named.TypeKind is TypeKind.Enum or TypeKind.Delegate)
        {
            // Delegates are immutable; what a lambda captures is analysed where the lambda is written.
            return false;
        }

        if (_types.IsBocHandle(named))
        {
            return false;
        }

        if (named.OriginalDefinition.SpecialType == SpecialType.System_Nullable_T || named.IsTupleType)
        {
            return named.TypeArguments.Any(t => IsMutable(t, visiting));
        }

        if (named.IsAnonymousType)
        {
            // Get-only properties, but what they hold is shared with whatever the object was built from.
            return named.GetMembers().OfType<IPropertySymbol>().Any(p => IsMutable(p.Type, visiting));
        }

        INamespaceSymbol? ns = named.ContainingNamespace;
        if (IsSelfSynchronizing(named) || IsDeclaredShareable(named))
        {
            return false;
        }

        if (Namespaces.IsAny(ns, KnownTypes.ImmutableNamespaces))
        {
            return named.TypeArguments.Any(t => IsMutable(t, visiting));
        }

        if (Namespaces.IsAny(ns, s_mutableCollectionNamespaces))
        {
            // Read-only views and interfaces are shareable when what they show is; everything else in these namespaces
            // (List, Dictionary, HashSet, Queue, arrays behind IList, ...) can be changed through the reference.
            if (named.Name.StartsWith("IReadOnly", System.StringComparison.Ordinal)
                || named.Name.StartsWith("ReadOnly", System.StringComparison.Ordinal)
                || named.Name is "IEnumerable" or "IAsyncEnumerable" or "IEnumerator" or "IComparer" or "IEqualityComparer"
                    or "KeyValuePair" or "Comparer" or "EqualityComparer")
            {
                return named.TypeArguments.Any(t => IsMutable(t, visiting));
            }

            return true;
        }

        // A sequence shares its elements: a lookup or grouping of accounts has no setters, and is as mutable as they are.
        if (Taint.ElementType(named) is { } element && !SymbolEqualityComparer.Default.Equals(element, named) && IsMutable(element, visiting))
        {
            return true;
        }

        for (INamedTypeSymbol? current = named; current is not null; current = current.BaseType)
        {
            if (KnownTypes.Mutable.Contains(KnownTypes.IdOf(current)))
            {
                return true;
            }
        }

        if (named.TypeKind == TypeKind.Interface)
        {
            // An interface says nothing of its implementation; only settable properties say it is mutable.
            return named.GetMembers().OfType<IPropertySymbol>().Any(p => p.SetMethod is { IsInitOnly: false });
        }

        for (INamedTypeSymbol? current = named; current is not null && current.SpecialType != SpecialType.System_Object
            && current.SpecialType != SpecialType.System_ValueType; current = current.BaseType)
        {
            // A shareable base counts only for what it declares: members a derived type adds were checked already.
            if (IsSelfSynchronizing(current) || IsDeclaredShareable(current))
            {
                return false;
            }

            foreach (ISymbol member in current.GetMembers())
            {
                switch (member)
                {
                    case IFieldSymbol { IsStatic: false, IsConst: false } field:
                        // A value type is copied wherever it goes, so its own writable fields change only the copy;
                        // only what its fields reference can be shared.
                        if ((!field.IsReadOnly && !named.IsValueType && !IsSetOnlyAtConstruction(field)) || IsMutable(field.Type, visiting))
                        {
                            return true;
                        }

                        break;
                    case IPropertySymbol { IsStatic: false } property:
                        if (property.SetMethod is { IsInitOnly: false } && !named.IsValueType)
                        {
                            return true;
                        }

                        // Metadata types do not show their private fields; a get-only property of a mutable type is the
                        // next best evidence. Arrays are left out: properties that return arrays usually return copies.
                        if (!current.Locations.Any(l => l.IsInSource) && property.DeclaredAccessibility == Accessibility.Public
                            && !property.IsIndexer && property.Type is INamedTypeSymbol && IsMutable(property.Type, visiting))
                        {
                            return true;
                        }

                        break;
                }
            }
        }

        return false;
    }
}
