using System.Collections.Generic;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>Where a tainted symbol's value comes from: an acquired parameter, as the whole object or a part of it.</summary>
internal sealed class TaintInfo
{
    public TaintInfo(IParameterSymbol origin, bool whole)
    {
        Origin = origin;
        Whole = whole;
    }

    public IParameterSymbol Origin { get; }

    /// <summary>The value is the acquired object itself (possibly through locals and conversions), not a part of it.</summary>
    public bool Whole { get; }

    public TaintInfo AsPart() => Whole ? new TaintInfo(Origin, whole: false) : this;
}

/// <summary>
/// Flow-insensitive alias tracking inside one behaviour body: which locals, local functions and delegates may hold
/// (part of) the state of an acquired cown. A value is tainted if it is an acquired parameter, a local assigned a
/// tainted value, a member or element of mutable type reached from a tainted value, the result of a call on a tainted
/// receiver that returns a mutable type (except copying calls such as <c>ToList</c>), a tuple or object built from
/// tainted values, or a lambda or local function that uses a tainted symbol. Members of immutable type (numbers,
/// strings, records of immutables) are copies, so they end the chain.
/// </summary>
internal sealed partial class Taint
{
    private const int MaxPasses = 8;

    private readonly Dictionary<ISymbol, TaintInfo> _map = new(SymbolEqualityComparer.Default);
    private readonly Dictionary<ILocalSymbol, TaintInfo> _refs = new(SymbolEqualityComparer.Default);
    private readonly Mutability _mutability;

    private Taint(Mutability mutability) => _mutability = mutability;

    public IReadOnlyDictionary<ISymbol, TaintInfo> Symbols => _map;

    public bool IsEmpty => _map.Count == 0;

    public TaintInfo? Get(ISymbol? symbol) => symbol is not null && _map.TryGetValue(symbol, out TaintInfo? info) ? info : null;

    /// <summary>
    /// For a <c>ref</c> local that points into acquired state (<c>ref long t = ref s.Total;</c>), where it points: a
    /// write to the local is a write to that state.
    /// </summary>
    public TaintInfo? RefInto(ILocalSymbol local) => _refs.TryGetValue(local, out TaintInfo? info) ? info : null;

    public static Taint Compute(BehaviourIndex index, Spawn spawn, System.Func<IParameterSymbol, bool>? include = null)
    {
        var taint = new Taint(index.Mutability);
        foreach (IParameterSymbol parameter in spawn.Acquired)
        {
            if (include is null || include(parameter))
            {
                taint._map[parameter] = new TaintInfo(parameter, whole: true);
            }
        }

        if (taint.IsEmpty || spawn.Body?.Body is not { } body)
        {
            return taint;
        }

        List<IOperation> operations = body.DescendantsAndSelf().ToList();
        bool changed = true;
        for (int pass = 0; changed && pass < MaxPasses; pass++)
        {
            changed = false;
            foreach (IOperation operation in operations)
            {
                changed |= taint.Propagate(operation);
            }
        }

        return taint;
    }

    /// <summary>The taint of the value <paramref name="value"/> computes, or null if it holds no acquired state.</summary>
    public TaintInfo? Of(IOperation? value)
    {
        if (value is null)
        {
            return null;
        }

        IOperation stripped = Operations.Strip(value);
        switch (stripped)
        {
            case IParameterReferenceOperation parameter:
                return Get(parameter.Parameter);
            case ILocalReferenceOperation local:
                return Get(local.Local);
            case IFieldReferenceOperation { Instance: { } instance } field:
                return _mutability.IsMutable(field.Type) ? Of(instance)?.AsPart() : null;
            case IPropertyReferenceOperation { Instance: { } instance } property:
                return _mutability.IsMutable(property.Type) ? Of(instance)?.AsPart() : null;
            case IArrayElementReferenceOperation element:
                return _mutability.IsMutable(element.Type) ? Of(element.ArrayReference)?.AsPart() : null;
            case IInvocationOperation invocation:
                return OfInvocation(invocation);
            case IConditionalOperation conditional:
                return Of(conditional.WhenTrue) ?? Of(conditional.WhenFalse);
            case ISwitchExpressionOperation switchExpression:
                return switchExpression.Arms.Select(a => Of(a.Value)).FirstOrDefault(t => t is not null);
            case ICoalesceOperation coalesce:
                return Of(coalesce.Value) ?? Of(coalesce.WhenNull);
            case ITupleOperation tuple:
                return tuple.Elements.Select(Of).FirstOrDefault(t => t is not null)?.AsPart();
            case IObjectCreationOperation creation when _mutability.IsMutable(creation.Type) || Mutability.IsReadOnlyView(creation.Type):
                // What the new object holds: its constructor arguments and the values its initializer stores.
                return (creation.Arguments.Select(a => Of(a.Value)).FirstOrDefault(t => t is not null)
                    ?? (creation.Initializer is null ? null : OfInitializer(creation.Initializer)))?.AsPart();
            case IObjectCreationOperation creation when _mutability.HoldsDelegate(creation.Type):
                // An immutable-looking object (Lazy<T>, a record with a Func) built from a delegate over the state keeps
                // the delegate, which reads the state whenever it runs: it is not a copy.
                return (creation.Arguments.Select(a => CarriedDelegate(a.Value)).FirstOrDefault(t => t is not null)
                    ?? (creation.Initializer is null ? null : OfInitializer(creation.Initializer, delegatesOnly: true)))?.AsPart();
            case IAnonymousObjectCreationOperation anonymous:
                return anonymous.Initializers.Select(i => Of(i is IAssignmentOperation assignment ? assignment.Value : i)).FirstOrDefault(t => t is not null)?.AsPart();
            case IWithOperation with when _mutability.IsMutable(with.Type):
                return OfWith(with);
            case IDelegateCreationOperation creation:
                return Of(creation.Target);
            case IAnonymousFunctionOperation lambda:
                return FirstUse(lambda.Body)?.AsPart();
            case IMethodReferenceOperation method when method.Method.MethodKind == MethodKind.LocalFunction:
                return Get(method.Method.OriginalDefinition)?.AsPart();
            case IMethodReferenceOperation { Instance: { } target }:
                // A method group of the state (s.OnTick) carries the state with it.
                return Of(target)?.AsPart();
            default:
                return RoslynCompat.IsCollectionExpression(stripped) ? OfCollectionExpression(stripped) : null;
        }
    }

    /// <summary>
    /// A collection expression holds its elements: an acquired object (<c>[s, …]</c>) or a mutable part of one, or the
    /// elements a spread copies from a collection of the state, when they are mutable (<c>[.. s.Children]</c>). Values
    /// spread from the state (<c>[.. s.Scores]</c>) are copies.
    /// </summary>
    private TaintInfo? OfCollectionExpression(IOperation collection)
    {
        foreach (IOperation element in RoslynCompat.CollectionElements(collection))
        {
            if (RoslynCompat.IsSpread(element))
            {
                IOperation? operand = RoslynCompat.SpreadOperand(element);
                if (operand is not null && Of(operand) is { } spread && _mutability.IsMutable(ElementType(Operations.Strip(operand).Type)))
                {
                    return spread.AsPart();
                }
            }
            else if (Of(element) is { } held)
            {
                return held.AsPart();
            }
        }

        return null;
    }

    /// <summary>The first tainted symbol used anywhere inside <paramref name="operation"/>.</summary>
    public TaintInfo? FirstUse(IOperation operation)
    {
        foreach (IOperation descendant in operation.DescendantsAndSelf())
        {
            if (Get(Operations.ReferencedSymbol(descendant)) is { } info)
            {
                return info;
            }
        }

        return null;
    }

    /// <summary>
    /// A call returns (part of) the acquired state if it returns a mutable object, or a read-only view (a deferred LINQ
    /// query, <c>AsReadOnly()</c>), built from a tainted receiver or, for static and extension methods, from a tainted
    /// argument. A copying call (<c>ToList</c>, <c>ToArray</c>, <c>Clone</c>, ...) ends the chain only if the copy's
    /// elements are immutable: a copied list of mutable objects still shares the objects.
    /// </summary>
    private TaintInfo? OfInvocation(IInvocationOperation invocation)
    {
        IMethodSymbol method = invocation.TargetMethod;
        ITypeSymbol? type = invocation.Type;
        if (method.MethodKind == MethodKind.LocalFunction && Get(method.OriginalDefinition) is { } localFunction
            && (_mutability.IsMutable(type) || Mutability.IsReadOnlyView(type) || _mutability.HoldsDelegate(type)))
        {
            // An iterator local function over the state is a live view of it, as a deferred query is.
            return localFunction.AsPart();
        }

        if (!_mutability.IsMutable(type) && !Mutability.IsReadOnlyView(type))
        {
            return (_mutability.HoldsDelegate(type) ? OfDelegateKeeper(invocation) : null) ?? OfInterfaceKeeper(invocation);
        }

        if (IsCopying(method) && !_mutability.IsMutable(ElementType(type)))
        {
            return null;
        }

        IOperation? receiver = invocation.Instance
            ?? (method.IsExtensionMethod && invocation.Arguments.Length > 0 ? invocation.Arguments[0].Value : null);
        TaintInfo? source = Of(receiver);
        if (source is null && (method.IsStatic || method.IsExtensionMethod))
        {
            source = invocation.Arguments.Select(a => Of(a.Value)).FirstOrDefault(t => t is not null);
        }

        return source?.AsPart();
    }

    /// <summary>
    /// A call that is given a delegate over the state and returns something that can keep it (a delegate, a comparer
    /// from <c>Comparer&lt;T&gt;.Create</c>, a holder of your own) is taken to keep it; unless it returns an element of
    /// the sequence it was given (<c>First</c>, <c>Max</c>), which the call's receiver decides. Calls that return numbers,
    /// strings or collections of such ran the delegate before returning (<c>Sum</c>, <c>ToDictionary</c>).
    /// </summary>
    private TaintInfo? OfDelegateKeeper(IInvocationOperation invocation)
    {
        IMethodSymbol method = invocation.TargetMethod;
        IOperation? sequence = invocation.Instance ?? (invocation.Arguments.Length > 0 ? invocation.Arguments[0].Value : null);
        if (sequence is not null && Operations.Strip(sequence).Type is { } sequenceType
            && SymbolEqualityComparer.Default.Equals(ElementType(sequenceType), invocation.Type)
            && !SymbolEqualityComparer.Default.Equals(sequenceType, invocation.Type))
        {
            return null;
        }

        return invocation.Arguments.Select(a => CarriedDelegate(a.Value)).FirstOrDefault(t => t is not null)?.AsPart();
    }

    /// <summary>
    /// A call given acquired state (or a mutable part of it) that returns an object of an interface type, which says
    /// nothing of what its implementation keeps: taken to keep what it was given (<c>Results.Ok(a)</c>, an
    /// <c>IResult</c> that serialises the account when the response is written, after the cown is released).
    /// </summary>
    private TaintInfo? OfInterfaceKeeper(IInvocationOperation invocation)
    {
        if (invocation.Type is not INamedTypeSymbol { TypeKind: TypeKind.Interface } type)
        {
            return null;
        }

        // The arguments before the type's attributes and documentation id: most calls are given no acquired state.
        foreach (IArgumentOperation argument in invocation.Arguments)
        {
            if (Of(argument.Value) is { } given && _mutability.IsMutable(Operations.Strip(argument.Value).Type))
            {
                return _mutability.IsDeclaredShareable(type) ? null : given.AsPart();
            }
        }

        return null;
    }

    /// <summary>The taint of a value that is, or keeps, a delegate over the state (a lambda, a method group, a Lazy).</summary>
    private TaintInfo? CarriedDelegate(IOperation value) =>
        _mutability.HoldsDelegate(value.Type) || Operations.Strip(value) is IAnonymousFunctionOperation or IDelegateCreationOperation or IMethodReferenceOperation
            ? Of(value)
            : null;

    /// <summary>
    /// A <c>with</c> expression is a shallow copy: the copy holds what its initializer stores, and shares with the
    /// original every member of mutable type that the initializer does not replace. For a type declared in source, a
    /// copy whose initializer replaces every such member with a value that holds no acquired state is fresh.
    /// </summary>
    private TaintInfo? OfWith(IWithOperation with)
    {
        TaintInfo? stored = OfInitializer(with.Initializer);
        if (stored is not null)
        {
            return stored.AsPart();
        }

        if (Of(with.Operand) is not { } original)
        {
            return null;
        }

        var replaced = new HashSet<string>(System.StringComparer.Ordinal);
        foreach (IOperation part in with.Initializer.Initializers)
        {
            if (part is IAssignmentOperation { Target: IMemberReferenceOperation member })
            {
                replaced.Add(member.Member.Name);
            }
        }

        return SharesMutableMember(with.Type, replaced) ? original.AsPart() : null;
    }

    /// <summary>Whether a shallow copy of <paramref name="type"/> shares a member of mutable type other than <paramref name="replaced"/>.</summary>
    private bool SharesMutableMember(ITypeSymbol? type, HashSet<string> replaced)
    {
        for (ITypeSymbol? current = type; current is not null && current.SpecialType is not (SpecialType.System_Object or SpecialType.System_ValueType);
            current = current.BaseType)
        {
            if (!current.Locations.Any(l => l.IsInSource))
            {
                // Private fields of metadata types are invisible: assume they are shared.
                return true;
            }

            foreach (IFieldSymbol field in current.GetMembers().OfType<IFieldSymbol>())
            {
                string name = field.AssociatedSymbol?.Name ?? field.Name;
                if (!field.IsStatic && !field.IsConst && !replaced.Contains(name) && _mutability.IsMutable(field.Type))
                {
                    return true;
                }
            }
        }

        return false;
    }

    /// <summary>The values an object or collection initializer stores in the new object (only delegates over the state, if asked).</summary>
    private TaintInfo? OfInitializer(IObjectOrCollectionInitializerOperation initializer, bool delegatesOnly = false)
    {
        foreach (IOperation part in initializer.Initializers)
        {
            TaintInfo? stored = part switch
            {
                IAssignmentOperation assignment => delegatesOnly ? CarriedDelegate(assignment.Value) : Of(assignment.Value),
                IInvocationOperation add => add.Arguments.Select(a => delegatesOnly ? CarriedDelegate(a.Value) : Of(a.Value)).FirstOrDefault(t => t is not null),
                _ => delegatesOnly ? null : FirstUse(part),
            };
            if (stored is not null)
            {
                return stored;
            }
        }

        return null;
    }

    /// <summary>Calls that build a new object from their receiver (ToList, ToArray, ToDictionary, Clone, ...).</summary>
    private static bool IsCopying(IMethodSymbol method) =>
        (method.Name.StartsWith("To", System.StringComparison.Ordinal) && method.Name.Length > 2 && char.IsUpper(method.Name[2]))
        || method.Name is "Clone" or "Copy" or "Snapshot";

    /// <summary>The element type of an array or sequence type, or the type itself for anything else.</summary>
    public static ITypeSymbol? ElementType(ITypeSymbol? type)
    {
        if (type is IArrayTypeSymbol array)
        {
            return array.ElementType;
        }

        if (type is INamedTypeSymbol named)
        {
            INamedTypeSymbol? sequence = named.AllInterfaces.Concat(new[] { named })
                .FirstOrDefault(i => i.OriginalDefinition.SpecialType == SpecialType.System_Collections_Generic_IEnumerable_T);
            if (sequence is not null)
            {
                return sequence.TypeArguments[0];
            }
        }

        return type;
    }
}
