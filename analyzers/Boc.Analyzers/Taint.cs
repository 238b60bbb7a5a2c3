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
internal sealed class Taint
{
    private const int MaxPasses = 8;

    private readonly Dictionary<ISymbol, TaintInfo> _map = new(SymbolEqualityComparer.Default);
    private readonly Mutability _mutability;

    private Taint(Mutability mutability) => _mutability = mutability;

    public IReadOnlyDictionary<ISymbol, TaintInfo> Symbols => _map;

    public bool IsEmpty => _map.Count == 0;

    public TaintInfo? Get(ISymbol? symbol) => symbol is not null && _map.TryGetValue(symbol, out TaintInfo? info) ? info : null;

    public static Taint Compute(BehaviourIndex index, Spawn spawn, System.Func<IParameterSymbol, bool>? include = null)
    {
        var taint = new Taint(index.Types.Mutability);
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
            case ICoalesceOperation coalesce:
                return Of(coalesce.Value) ?? Of(coalesce.WhenNull);
            case ITupleOperation tuple:
                return tuple.Elements.Select(Of).FirstOrDefault(t => t is not null)?.AsPart();
            case IObjectCreationOperation creation when _mutability.IsMutable(creation.Type):
                return (creation.Arguments.Select(a => Of(a.Value)).FirstOrDefault(t => t is not null)
                    ?? (creation.Initializer is null ? null : FirstUse(creation.Initializer)))?.AsPart();
            case IDelegateCreationOperation creation:
                return Of(creation.Target);
            case IAnonymousFunctionOperation lambda:
                return FirstUse(lambda.Body)?.AsPart();
            case IMethodReferenceOperation method when method.Method.MethodKind == MethodKind.LocalFunction:
                return Get(method.Method.OriginalDefinition)?.AsPart();
            default:
                return null;
        }
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

    private TaintInfo? OfInvocation(IInvocationOperation invocation)
    {
        IMethodSymbol method = invocation.TargetMethod;
        if (method.MethodKind == MethodKind.LocalFunction && Get(method.OriginalDefinition) is { } localFunction
            && _mutability.IsMutable(invocation.Type))
        {
            return localFunction.AsPart();
        }

        if (!_mutability.IsMutable(invocation.Type) || IsCopying(method))
        {
            return null;
        }

        IOperation? receiver = invocation.Instance
            ?? (method.IsExtensionMethod && invocation.Arguments.Length > 0 ? invocation.Arguments[0].Value : null);
        return Of(receiver)?.AsPart();
    }

    /// <summary>Calls that build a new object from their receiver (ToList, ToArray, ToDictionary, Clone, ...).</summary>
    private static bool IsCopying(IMethodSymbol method) =>
        (method.Name.StartsWith("To", System.StringComparison.Ordinal) && method.Name.Length > 2 && char.IsUpper(method.Name[2]))
        || method.Name is "Clone" or "Copy" or "Snapshot";

    private bool Propagate(IOperation operation)
    {
        switch (operation)
        {
            case IVariableDeclaratorOperation declarator when declarator.GetVariableInitializer() is { } initializer:
                return Add(declarator.Symbol, Of(initializer.Value));
            case ISimpleAssignmentOperation { Target: ILocalReferenceOperation target } assignment:
                return Add(target.Local, Of(assignment.Value));
            case IDeconstructionAssignmentOperation deconstruction:
                return Deconstruct(deconstruction.Target, deconstruction.Value);
            case IForEachLoopOperation loop when Of(loop.Collection) is { } collection:
            {
                bool changed = false;
                foreach (ILocalSymbol local in loop.Locals)
                {
                    changed |= AddIfMutable(local, local.Type, collection.AsPart());
                }

                return changed;
            }

            case IIsPatternOperation pattern when Of(pattern.Value) is { } matched:
                return AddPatternLocals(pattern.Pattern, matched);
            case ILocalFunctionOperation localFunction when localFunction.Body is { } localBody && FirstUse(localBody) is { } used:
                return Add(localFunction.Symbol.OriginalDefinition, used.AsPart());
            default:
                return false;
        }
    }

    private bool Deconstruct(IOperation target, IOperation value)
    {
        IOperation strippedTarget = Operations.Strip(target);
        if (strippedTarget is IDeclarationExpressionOperation declaration)
        {
            strippedTarget = declaration.Expression;
        }

        IOperation strippedValue = Operations.Strip(value);
        if (strippedTarget is ITupleOperation targets && strippedValue is ITupleOperation values
            && targets.Elements.Length == values.Elements.Length)
        {
            bool changed = false;
            for (int i = 0; i < targets.Elements.Length; i++)
            {
                changed |= Deconstruct(targets.Elements[i], values.Elements[i]);
            }

            return changed;
        }

        TaintInfo? taint = Of(strippedValue);
        if (taint is null)
        {
            return false;
        }

        if (strippedTarget is ILocalReferenceOperation single)
        {
            return strippedValue is ITupleOperation ? AddIfMutable(single.Local, single.Local.Type, taint.AsPart()) : Add(single.Local, taint);
        }

        // A user Deconstruct method: every part of mutable type may be state of the cown.
        bool any = false;
        foreach (ILocalReferenceOperation local in strippedTarget.DescendantsAndSelf().OfType<ILocalReferenceOperation>())
        {
            any |= AddIfMutable(local.Local, local.Local.Type, taint.AsPart());
        }

        return any;
    }

    private bool AddPatternLocals(IPatternOperation pattern, TaintInfo matched)
    {
        bool changed = false;
        foreach (IOperation part in pattern.DescendantsAndSelf())
        {
            if (part is IDeclarationPatternOperation { DeclaredSymbol: ILocalSymbol local })
            {
                changed |= Add(local, part == pattern ? matched : matched.AsPart());
            }
        }

        return changed;
    }

    private bool AddIfMutable(ISymbol symbol, ITypeSymbol type, TaintInfo info) =>
        _mutability.IsMutable(type) && Add(symbol, info);

    private bool Add(ISymbol symbol, TaintInfo? info)
    {
        if (info is null || _map.ContainsKey(symbol))
        {
            return false;
        }

        _map[symbol] = info;
        return true;
    }
}
