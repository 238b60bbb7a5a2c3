using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

// How taint spreads from one symbol to another inside a body (one pass of the fixed point in Taint.Compute): locals
// initialised or assigned from tainted values, deconstructions, foreach variables, pattern variables, the parameters of
// lambdas given the state's elements, ref locals into the state, and local functions that use it.
internal sealed partial class Taint
{
    private bool Propagate(IOperation operation)
    {
        switch (operation)
        {
            case IVariableDeclaratorOperation { Symbol.RefKind: RefKind.Ref } refDeclarator when refDeclarator.GetVariableInitializer() is { } refInitializer:
                return AddRef(refDeclarator.Symbol, RefTarget(refInitializer.Value));
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

                    // foreach (ref long h in s.History.AsSpan()): the variable is a reference into the state.
                    if (local.RefKind == RefKind.Ref)
                    {
                        changed |= AddRef(local, collection);
                    }
                }

                return changed;
            }

            case IIsPatternOperation pattern when Of(pattern.Value) is { } matched:
                return AddPatternLocals(pattern.Pattern, matched);
            case ISwitchOperation switchStatement when Of(switchStatement.Value) is { } switched:
            {
                bool changed = false;
                foreach (IPatternCaseClauseOperation clause in switchStatement.Cases.SelectMany(c => c.Clauses).OfType<IPatternCaseClauseOperation>())
                {
                    changed |= AddPatternLocals(clause.Pattern, switched);
                }

                return changed;
            }

            case ISwitchExpressionOperation switchExpression when Of(switchExpression.Value) is { } switchedOn:
            {
                bool changed = false;
                foreach (ISwitchExpressionArmOperation arm in switchExpression.Arms)
                {
                    changed |= AddPatternLocals(arm.Pattern, switchedOn);
                }

                return changed;
            }

            case IInvocationOperation invocation:
                return AddLambdaParameters(invocation);
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
            ISymbol? declared = part switch
            {
                IDeclarationPatternOperation declaration => declaration.DeclaredSymbol,
                IRecursivePatternOperation recursive => recursive.DeclaredSymbol,
                IListPatternOperation list => list.DeclaredSymbol,
                _ => null,
            };
            if (declared is ILocalSymbol local)
            {
                changed |= part == pattern ? Add(local, matched) : AddIfMutable(local, local.Type, matched.AsPart());
            }
        }

        return changed;
    }

    /// <summary>
    /// A lambda handed to a call on (or with) acquired state receives its elements (<c>s.Items.ForEach(i => ...)</c>,
    /// <c>Parallel.ForEach(s.Items, i => ...)</c>): its parameters of mutable type are parts of that state.
    /// </summary>
    private bool AddLambdaParameters(IInvocationOperation invocation)
    {
        // Cheap test first: this runs for every call in the body on every pass.
        if (!invocation.Arguments.Any(a => Operations.Strip(a.Value) is IDelegateCreationOperation or IAnonymousFunctionOperation))
        {
            return false;
        }

        TaintInfo? source = null;
        foreach (IOperation? value in invocation.Arguments.Select(a => a.Value).Prepend(invocation.Instance))
        {
            if (value is not null && Operations.Strip(value) is not (IDelegateCreationOperation or IAnonymousFunctionOperation)
                && Of(value) is { } tainted)
            {
                source = tainted;
                break;
            }
        }

        if (source is null)
        {
            return false;
        }

        bool changed = false;
        foreach (IArgumentOperation argument in invocation.Arguments)
        {
            IOperation value = Operations.Strip(argument.Value);
            if (value is IDelegateCreationOperation creation)
            {
                value = Operations.Strip(creation.Target);
            }

            if (value is IAnonymousFunctionOperation lambda)
            {
                foreach (IParameterSymbol parameter in lambda.Symbol.Parameters)
                {
                    changed |= AddIfMutable(parameter, parameter.Type, source.AsPart());
                }
            }
        }

        return changed;
    }

    /// <summary>Where a <c>ref</c> initializer points, if into acquired state: a member or element of it, or another such ref local.</summary>
    private TaintInfo? RefTarget(IOperation value)
    {
        IOperation stripped = Operations.Strip(value);
        switch (stripped)
        {
            case ILocalReferenceOperation local when RefInto(local.Local) is { } through:
                return through;
            case IMemberReferenceOperation { Instance: { } instance }:
                return Of(instance) ?? (Operations.Strip(instance) is ILocalReferenceOperation refLocal ? RefInto(refLocal.Local) : null);
            case IArrayElementReferenceOperation element:
                return Of(element.ArrayReference);
            case IInvocationOperation { TargetMethod.ReturnsByRef: true } call:
                return Of(call.Instance) ?? call.Arguments.Select(a => Of(a.Value)).FirstOrDefault(t => t is not null);
            default:
                return null;
        }
    }

    private bool AddRef(ILocalSymbol local, TaintInfo? info)
    {
        if (info is null || _refs.ContainsKey(local))
        {
            return false;
        }

        _refs[local] = info.AsPart();
        return true;
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
