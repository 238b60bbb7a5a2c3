using System.Collections.Generic;
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>
/// A cown named by a spawn's cown argument, as far as the analyzer can tell which cown it is: a path of symbols from a
/// local, parameter, field or property (<c>c</c>, <c>this._c</c>, <c>accounts[0]</c>, <c>accounts[i]</c>), through
/// locals assigned once and through <c>Read(...)</c>. Two paths are the same cown when they are equal; an element path
/// (<c>cowns[0]</c>) is inside the set its prefix names. Anything else (a call, a local assigned twice) names no
/// known cown, so it never matches: a rule built on this reports only what it can see.
/// </summary>
internal sealed class CownRef
{
    private const int MaxLocalHops = 4;

    private static readonly object s_this = new();
    private static readonly object s_element = new();

    private readonly ImmutableArray<object> _path;

    private CownRef(ImmutableArray<object> path, bool isSet, bool isReadOnly, SyntaxNode syntax)
    {
        _path = path;
        IsSet = isSet;
        IsReadOnly = isReadOnly;
        Syntax = syntax;
    }

    /// <summary>A dynamic set (the <c>cowns</c> argument) rather than one cown.</summary>
    public bool IsSet { get; }

    public bool IsReadOnly { get; }

    /// <summary>The cown expression, without <c>Read(...)</c>, for messages.</summary>
    public SyntaxNode Syntax { get; }

    /// <summary>The cowns a spawn acquires that the analyzer can name; the elements of a set written in place are listed one by one.</summary>
    public static List<CownRef> Of(Spawn spawn, BehaviourIndex index)
    {
        var refs = new List<CownRef>();
        foreach (CownArgument cown in spawn.Cowns)
        {
            IOperation value = Operations.Strip(cown.Argument.Value);
            if (cown.IsSet && value is IArrayCreationOperation { Initializer: { } initializer })
            {
                AddAll(refs, initializer.ElementValues, index);
            }
            else if (cown.IsSet && RoslynCompat.IsCollectionExpression(value))
            {
                AddAll(refs, RoslynCompat.CollectionElements(value), index);
            }
            else if (Resolve(value, index) is { } resolved)
            {
                refs.Add(new CownRef(resolved.Path, cown.IsSet, cown.IsReadOnly || resolved.ReadOnly, resolved.Syntax));
            }
        }

        return refs;
    }

    /// <summary>Whether acquiring <paramref name="other"/> needs a cown that this one (held) is, or contains.</summary>
    public bool Overlaps(CownRef other)
    {
        if (Same(_path, other._path))
        {
            return true;
        }

        // cowns and cowns[i]: an element of a set is in the set.
        return (IsSet && IsElementOf(other._path, _path)) || (other.IsSet && IsElementOf(_path, other._path));
    }

    private static void AddAll(List<CownRef> refs, ImmutableArray<IOperation> elements, BehaviourIndex index)
    {
        foreach (IOperation element in elements)
        {
            if (Resolve(Operations.Strip(element), index) is { } resolved)
            {
                refs.Add(new CownRef(resolved.Path, isSet: false, resolved.ReadOnly || index.Types.IsReadOnlyCown(Operations.Strip(element).Type), resolved.Syntax));
            }
        }
    }

    private static bool IsElementOf(ImmutableArray<object> element, ImmutableArray<object> set) =>
        element.Length > set.Length + 1 && element[set.Length] == s_element && Same(element.Take(set.Length).ToImmutableArray(), set);

    private static bool Same(ImmutableArray<object> a, ImmutableArray<object> b)
    {
        if (a.Length != b.Length)
        {
            return false;
        }

        for (int i = 0; i < a.Length; i++)
        {
            bool equal = a[i] is ISymbol symbol
                ? b[i] is ISymbol other && SymbolEqualityComparer.Default.Equals(symbol, other)
                : Equals(a[i], b[i]);
            if (!equal)
            {
                return false;
            }
        }

        return true;
    }

    private sealed class Resolved
    {
        public Resolved(ImmutableArray<object> path, bool readOnly, SyntaxNode syntax)
        {
            Path = path;
            ReadOnly = readOnly;
            Syntax = syntax;
        }

        public ImmutableArray<object> Path { get; }

        public bool ReadOnly { get; }

        public SyntaxNode Syntax { get; }
    }

    private static Resolved? Resolve(IOperation value, BehaviourIndex index, int hops = 0)
    {
        IOperation stripped = Operations.Strip(value);
        switch (stripped)
        {
            case IInvocationOperation { TargetMethod.Name: "Read", Arguments.Length: 1 } read
                when read.TargetMethod.ContainingType is { } type && (index.Types.IsSpawner(type) || IsReadOwner(type, index.Types)):
                return Resolve(read.Arguments[0].Value, index, hops) is { } inner ? new Resolved(inner.Path, readOnly: true, inner.Syntax) : null;
            case ILocalReferenceOperation local:
                if (hops < MaxLocalHops && index.LocalValues.TryGetValue(local.Local, out List<IOperation>? values) && values.Count == 1
                    && Resolve(values[0], index, hops + 1) is { } through)
                {
                    return new Resolved(through.Path, through.ReadOnly, stripped.Syntax);
                }

                return new Resolved(ImmutableArray.Create<object>(local.Local), false, stripped.Syntax);
            case IParameterReferenceOperation parameter:
                return new Resolved(ImmutableArray.Create<object>(parameter.Parameter), false, stripped.Syntax);
            case IInstanceReferenceOperation:
                return new Resolved(ImmutableArray.Create(s_this), false, stripped.Syntax);
            case IFieldReferenceOperation field:
                return Member(field.Instance, field.Field, ImmutableArray<IArgumentOperation>.Empty, stripped, index, hops);
            case IPropertyReferenceOperation property:
                return Member(property.Instance, property.Property, property.Arguments, stripped, index, hops);
            case IArrayElementReferenceOperation element when Resolve(element.ArrayReference, index, hops) is { } array
                && Keys(element.Indices) is { } indices:
                return new Resolved(array.Path.Add(s_element).AddRange(indices), array.ReadOnly, stripped.Syntax);
            default:
                return null;
        }
    }

    /// <summary><c>Cown.Read</c> and <c>BocCluster.Read</c>.</summary>
    private static bool IsReadOwner(INamedTypeSymbol type, BocTypes types) =>
        (types.CownBase is not null && SymbolEqualityComparer.Default.Equals(type, types.CownBase))
        || (types.ClusterImplementation is not null && SymbolEqualityComparer.Default.Equals(type, types.ClusterImplementation));

    private static Resolved? Member(IOperation? instance, ISymbol member, ImmutableArray<IArgumentOperation> arguments, IOperation whole,
        BehaviourIndex index, int hops)
    {
        ImmutableArray<object> path;
        if (instance is null)
        {
            path = ImmutableArray.Create<object>(member);
        }
        else if (Resolve(instance, index, hops) is { } owner)
        {
            path = owner.Path.Add(member);
        }
        else
        {
            return null;
        }

        if (!arguments.IsEmpty)
        {
            // An indexer (list[i]) picks an element.
            if (Keys(arguments.Select(a => a.Value)) is not { } keys)
            {
                return null;
            }

            path = path.Add(s_element).AddRange(keys);
        }

        return new Resolved(path, false, whole.Syntax);
    }

    /// <summary>Indices that name the same element wherever they appear: constants, and locals or parameters.</summary>
    private static ImmutableArray<object>? Keys(IEnumerable<IOperation> indices)
    {
        var keys = ImmutableArray.CreateBuilder<object>();
        foreach (IOperation index in indices)
        {
            IOperation stripped = Operations.Strip(index);
            if (stripped.ConstantValue is { HasValue: true, Value: { } constant })
            {
                keys.Add(constant);
            }
            else if (Operations.ReferencedSymbol(stripped) is { } symbol)
            {
                keys.Add(symbol);
            }
            else
            {
                return null;
            }
        }

        return keys.ToImmutable();
    }
}
