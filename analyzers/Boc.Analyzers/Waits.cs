using System.Collections.Generic;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>Where a body waits for a task, and how (for messages: "awaits", "blocks on", ...).</summary>
internal sealed class Wait
{
    public Wait(IOperation at, string how)
    {
        At = at;
        How = how;
    }

    /// <summary>The operation that waits: the <c>await</c>, the <c>.Result</c>, the <c>Wait()</c> call, the <c>return</c>'s value.</summary>
    public IOperation At { get; }

    public string How { get; }
}

/// <summary>
/// Does a function wait for the task a value produces before it ends? It does if, in that function itself (not in a
/// lambda or local function inside it), the task is awaited, blocked on (<c>.Result</c>, <c>Wait()</c> without a
/// timeout, <c>GetAwaiter().GetResult()</c>, <c>Task.WaitAll</c>), returned from a body whose delegate returns a task
/// (the async overloads keep the cowns until that task completes), or passed to <c>Task.WhenAll</c> whose task is so
/// waited for; through <c>ConfigureAwait</c>, <c>AsTask</c>, <c>Preserve</c>, conversions and locals.
/// </summary>
internal static class Waits
{
    private const int MaxLocalHops = 3;

    public static Wait? WaitOn(IOperation value, IOperation function, BehaviourIndex index) => WaitOn(value, function, index, 0);

    private static Wait? WaitOn(IOperation value, IOperation function, BehaviourIndex index, int hops)
    {
        IOperation top = Climb(value);
        IOperation? parent = top.Parent;

        // Task.WhenAll(a, b): the combined task completes when each does; follow it.
        if (ArgumentHolding(top) is { } argument)
        {
            if (argument.Parent is IInvocationOperation combined && IsTaskMethod(combined.TargetMethod, "WhenAll"))
            {
                return WaitOn(combined, function, index, hops);
            }

            if (argument.Parent is IInvocationOperation all && IsTaskMethod(all.TargetMethod, "WaitAll")
                && !HasTimeout(all) && InFunction(all, function))
            {
                return new Wait(all, "blocks on");
            }

            return null;
        }

        switch (parent)
        {
            case IAwaitOperation await when InFunction(await, function):
                return new Wait(await, "awaits");
            case IPropertyReferenceOperation { Property.Name: "Result" } result when InFunction(result, function):
                return new Wait(result, "blocks on");
            case IInvocationOperation { TargetMethod.Name: "Wait" } wait when wait.Instance == top && !HasTimeout(wait) && InFunction(wait, function):
                return new Wait(wait, "blocks on");
            case IInvocationOperation { TargetMethod.Name: "GetAwaiter" } awaiter when awaiter.Instance == top
                && Climb(awaiter).Parent is IInvocationOperation { TargetMethod.Name: "GetResult" } getResult && InFunction(getResult, function):
                return new Wait(getResult, "blocks on");
            case IReturnOperation { ReturnedValue: { } returned } when returned == top && InFunction(parent, function)
                && function is IAnonymousFunctionOperation or ILocalFunctionOperation && ReturnsTask(function, index.Types):
                return new Wait(top, "waits (by returning its task) for");
            case IVariableInitializerOperation { Parent: IVariableDeclaratorOperation declarator } when hops < MaxLocalHops:
                return ViaLocal(declarator.Symbol, function, index, hops);
            case ISimpleAssignmentOperation { Target: ILocalReferenceOperation target } assignment when assignment.Value == top && hops < MaxLocalHops:
                return ViaLocal(target.Local, function, index, hops);
            default:
                return null;
        }
    }

    /// <summary>
    /// Whether the task <paramref name="value"/> produces is awaited right where it is made (<c>await WhenAsync(...)</c>,
    /// also through <c>ConfigureAwait</c>, <c>AsTask</c>, <c>Preserve</c>): the code around it is suspended until it
    /// completes.
    /// </summary>
    public static bool IsAwaitedInPlace(IOperation value) => Climb(value).Parent is IAwaitOperation;

    /// <summary>The <c>Task.WhenAll</c> or <c>Task.WhenAny</c> call that <paramref name="task"/> is one of the tasks of, if any.</summary>
    public static IInvocationOperation? Combiner(IOperation task) =>
        ArgumentHolding(task) is { Parent: IInvocationOperation call }
        && (IsTaskMethod(call.TargetMethod, "WhenAll") || IsTaskMethod(call.TargetMethod, "WhenAny"))
            ? call
            : null;

    /// <summary>
    /// The argument <paramref name="value"/> is passed as, directly or as an element of one: the tasks of
    /// <c>Task.WhenAll(a, b)</c> come as a params array, a params span (a collection expression), or an array written in
    /// place.
    /// </summary>
    private static IArgumentOperation? ArgumentHolding(IOperation value)
    {
        IOperation? holder = value.Parent;
        while (holder is not null && (holder is IArrayInitializerOperation or IArrayCreationOperation or IConversionOperation || RoslynCompat.IsCollectionExpression(holder)))
        {
            holder = holder.Parent;
        }

        return holder as IArgumentOperation;
    }

    /// <summary>Whether <paramref name="waiter"/>'s body waits, directly or through behaviours it waits for, for <paramref name="target"/>.</summary>
    public static bool WaitsFor(BehaviourIndex index, Spawn waiter, Spawn target, int depth = 0)
    {
        if (depth > 4 || waiter.Body?.Function is not { } function)
        {
            return false;
        }

        foreach (IOperation operation in index.BodyOperations(waiter))
        {
            if (operation is IInvocationOperation && index.SpawnOfInvocation(operation) is { } spawn && spawn != waiter
                && WaitOn(operation, function, index) is not null
                && (spawn == target || WaitsFor(index, spawn, target, depth + 1)))
            {
                return true;
            }
        }

        return false;
    }

    private static Wait? ViaLocal(ILocalSymbol local, IOperation function, BehaviourIndex index, int hops)
    {
        if (!index.References.TryGetValue(local, out List<IOperation>? references))
        {
            return null;
        }

        foreach (IOperation reference in references)
        {
            if (reference is ILocalReferenceOperation { IsDeclaration: false } && !Operations.IsWrite(reference)
                && WaitOn(reference, function, index, hops + 1) is { } wait)
            {
                return wait;
            }
        }

        return null;
    }

    /// <summary>Up through conversions and the calls that wrap a task without waiting for it.</summary>
    private static IOperation Climb(IOperation value)
    {
        IOperation top = value;
        while (true)
        {
            switch (top.Parent)
            {
                case IConversionOperation conversion:
                    top = conversion;
                    continue;
                case IInvocationOperation { TargetMethod.Name: "ConfigureAwait" or "AsTask" or "Preserve" } wrap when wrap.Instance == top:
                    top = wrap;
                    continue;
                default:
                    return top;
            }
        }
    }

    private static bool InFunction(IOperation operation, IOperation function) => Operations.EnclosingFunction(operation) == function;

    private static bool IsTaskMethod(IMethodSymbol method, string name) =>
        method.Name == name && method.ContainingType is { Name: "Task", Arity: 0 } type && Namespaces.Is(type.ContainingNamespace, "System.Threading.Tasks");

    /// <summary>A wait with a timeout argument may give up; only <c>-1</c> (<c>Timeout.Infinite</c>) waits for good.</summary>
    private static bool HasTimeout(IInvocationOperation wait) =>
        wait.Arguments.Any(a => a.Parameter?.Name is "millisecondsTimeout" or "timeout"
            && !(a.Value.ConstantValue is { HasValue: true, Value: -1 }));

    private static bool ReturnsTask(IOperation function, BocTypes types)
    {
        IMethodSymbol? symbol = function switch
        {
            IAnonymousFunctionOperation lambda => lambda.Symbol,
            ILocalFunctionOperation local => local.Symbol,
            _ => null,
        };
        return symbol is not null && !symbol.IsAsync && types.IsTaskLike(symbol.ReturnType);
    }
}
