using System.Collections.Generic;
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>
/// Where acquired state leaves a behaviour (BOC102, and BOC105 for the copies a cluster body gets): the acquired object,
/// or a mutable object reachable from it, stored where code outside the behaviour can reach it (captured outer
/// variable, field, static, another cown's state, the state argument, an outer collection), handed to code that runs
/// later, or returned as a mutable result.
/// </summary>
internal static class Escapes
{
    /// <summary>One escape: the operation where the state leaves, whose state it is, and how it leaves (for messages).</summary>
    public delegate void Found(IOperation at, TaintInfo taint, string how);

    private static readonly HashSet<string> s_storingMethods = new()
    {
        "Add", "AddRange", "AddFirst", "AddLast", "Enqueue", "Push", "Insert", "InsertRange", "TryAdd", "AddOrUpdate",
        "GetOrAdd", "GetOrCreate", "GetOrCreateAsync", "TryWrite", "WriteAsync", "Post", "SendAsync", "SetResult", "TrySetResult", "Set",
    };

    /// <summary>Every escape from <paramref name="spawn"/>'s body.</summary>
    public static void Find(BehaviourIndex index, Spawn spawn, Found report)
    {
        if (spawn.Body?.Function is not { } function)
        {
            return;
        }

        Taint taint = index.TaintOf(spawn);
        if (taint.IsEmpty)
        {
            return;
        }

        bool returnsResult = spawn.Invocation.TargetMethod.ReturnType is INamedTypeSymbol { IsGenericType: true };
        foreach (IOperation operation in index.BodyOperations(spawn))
        {
            switch (operation)
            {
                case IAssignmentOperation assignment when taint.Of(assignment.Value) is { } value
                    && Destination(assignment.Target, value.Origin, spawn, function, taint) is { } where:
                    report(assignment.Value, value, "assigned to " + where);
                    break;
                case IEventAssignmentOperation { Adds: true } subscription when taint.Of(subscription.HandlerValue) is { } handler:
                    if (EventDestination(subscription.EventReference, handler.Origin, spawn, function, taint) is { } owner)
                    {
                        report(subscription.HandlerValue, handler, "subscribed to an event of " + owner);
                    }
                    else if (subscription.EventReference is IEventReferenceOperation { Event: { } fired } && RunsLater.EventApi(fired) is { } timer)
                    {
                        report(subscription.HandlerValue, handler, $"subscribed to {timer}, which fires after the behaviour released its cowns");
                    }

                    break;
                case IInvocationOperation invocation when index.SpawnOfInvocation(invocation) is null:
                    CheckCall(invocation, spawn, function, taint, index, report);
                    break;
                case IObjectCreationOperation { Constructor: { } constructor } creation
                    when RunsLater.Api(constructor, creation.Arguments) is { } api:
                    foreach (IArgumentOperation argument in creation.Arguments)
                    {
                        if (taint.Of(argument.Value) is { } passed)
                        {
                            report(argument, passed, $"handed to {api}, which runs after the behaviour released its cowns");
                        }
                    }

                    break;
                case IAnonymousFunctionOperation { Symbol: { IsAsync: true, ReturnsVoid: true } } lambda when lambda != function
                    && !Operations.IsOffloaded(lambda) && !IsEventHandler(lambda) && taint.FirstUse(lambda.Body) is { } used:
                    // list.ForEach(async x => { await …; x.Count++; }): an async lambda converted to a void delegate returns
                    // at its first await, and the rest runs whenever that await completes.
                    report(lambda, used, $"used by an async lambda converted to '{Operations.TypeName(lambda.Parent?.Type ?? lambda.Symbol.ReturnType)}', which returns at its first await and goes on after the behaviour released its cowns");
                    break;
                case IReturnOperation { ReturnedValue: { } returned } when returnsResult && Operations.EnclosingFunction(operation) == function
                    && taint.Of(returned) is { } result && ResultKind(Operations.Strip(returned).Type, index.Mutability) is { } kind:
                    report(returned, result, $"returned as {kind}, usable after the cown is released");
                    break;
            }
        }
    }

    private static string? ResultKind(ITypeSymbol? type, Mutability mutability) =>
        mutability.IsMutable(type) ? "a mutable result"
        : Mutability.IsReadOnlyView(type) ? "a live view of the state (a deferred query or read-only wrapper reads it when used)"
        : type is { TypeKind: TypeKind.Interface } ? $"an '{Operations.TypeName(type)}' built from the state, which may keep it"
        : mutability.HoldsDelegate(type) ? "a delegate over the state (or an object that keeps one), which uses the state whenever it runs"
        : null;

    /// <summary>A lambda subscribed to an event (<c>x.Changed += async (_, _) =&gt; …</c>): where it escapes is the event's business.</summary>
    private static bool IsEventHandler(IOperation lambda)
    {
        IOperation? parent = lambda.Parent;
        while (parent is IDelegateCreationOperation or IConversionOperation)
        {
            parent = parent.Parent;
        }

        return parent is IEventAssignmentOperation;
    }

    private static void CheckCall(IInvocationOperation invocation, Spawn spawn, IOperation function, Taint taint, BehaviourIndex index,
        Found report)
    {
        IMethodSymbol method = invocation.TargetMethod;
        ImmutableArray<IArgumentOperation> arguments = invocation.Arguments;
        if (RunsLater.Api(method, arguments) is { } api)
        {
            // A body that waits for the task of such a call (an awaited Task.Run or ContinueWith) keeps its cowns until
            // the delegate has run: it runs inside the behaviour, in parallel. Not so for a task of a task
            // (StartNew(async () => ...)): the outer task completes at the delegate's first await.
            if (index.Types.IsTaskLike(method.ReturnType) && !IsTaskOfTask(method.ReturnType, index.Types)
                && Waits.WaitOn(invocation, function, index) is not null)
            {
                return;
            }

            foreach (IArgumentOperation argument in arguments)
            {
                if (taint.Of(argument.Value) is { } passed)
                {
                    report(argument, passed, $"handed to {api}, which runs after the behaviour released its cowns");
                }
            }

            return;
        }

        if (CheckStore(invocation, spawn, function, taint, index, report) || CheckRefStore(invocation, spawn, function, taint, index, report))
        {
            return;
        }

        CheckUnawaited(invocation, function, taint, index, report);
    }

    /// <summary>
    /// Add, Enqueue, TrySetResult and the like, into something outside the acquired state. A delegate passed for a
    /// parameter declared as a delegate (the factories of <c>GetOrAdd</c>, <c>AddOrUpdate</c>, <c>GetOrCreate</c>) runs
    /// inside the call: what it reads is not stored, what it returns is. <c>GetOrAdd</c>'s <c>factoryArgument</c> is
    /// handed to the factory, not stored.
    /// </summary>
    private static bool CheckStore(IInvocationOperation invocation, Spawn spawn, IOperation function, Taint taint, BehaviourIndex index,
        Found report)
    {
        Mutability mutability = index.Mutability;
        IMethodSymbol method = invocation.TargetMethod;
        ImmutableArray<IArgumentOperation> arguments = invocation.Arguments;
        if (!s_storingMethods.Contains(method.Name))
        {
            return false;
        }

        IOperation? receiver = invocation.Instance;
        int first = 0;
        if (receiver is null && method.IsExtensionMethod && arguments.Length > 0)
        {
            receiver = arguments[0].Value;
            first = 1;
        }

        if (receiver is null)
        {
            return false;
        }

        bool reported = false;
        for (int i = first; i < arguments.Length; i++)
        {
            IParameterSymbol? parameter = arguments[i].Parameter;
            if (parameter?.Name == "factoryArgument")
            {
                continue;
            }

            if (parameter?.OriginalDefinition.Type.TypeKind == TypeKind.Delegate)
            {
                foreach (IOperation returned in ReturnedValues(arguments[i].Value, index))
                {
                    if (taint.Of(returned) is { } kept && Destination(receiver, kept.Origin, spawn, function, taint) is { } into)
                    {
                        report(returned, kept, $"returned by the callback passed to {method.Name}, which stores it into {into}");
                        reported = true;
                    }
                }

                continue;
            }

            // AddRange, InsertRange and the like store the elements, not the collection: numbers copied from the
            // acquired state are not an escape.
            if (method.Name.EndsWith("Range", System.StringComparison.Ordinal) && !mutability.IsMutable(ElementType(arguments[i].Value)))
            {
                continue;
            }

            if (taint.Of(arguments[i].Value) is { } stored && Destination(receiver, stored.Origin, spawn, function, taint) is { } where)
            {
                report(arguments[i], stored, $"stored by {method.Name} into {where}");
                reported = true;
            }
        }

        return reported;
    }

    /// <summary>What a delegate argument returns, if it is a lambda or local function the analyzer can see.</summary>
    private static IEnumerable<IOperation> ReturnedValues(IOperation value, BehaviourIndex index)
    {
        if (index.ResolveFunction(value, depth: 0) is not { Function: { } function, Body: { } body })
        {
            yield break;
        }

        foreach (IOperation operation in body.DescendantsAndSelf())
        {
            if (operation is IReturnOperation { ReturnedValue: { } returned } && Operations.EnclosingFunction(operation) == function)
            {
                yield return returned;
            }
        }
    }

    /// <summary>
    /// A call that gets both acquired state and a <c>ref</c> to a location outside the behaviour may store the one in the
    /// other (<c>Interlocked.Exchange(ref s_last, a)</c>, <c>Volatile.Write</c>): it is reported if the state's type
    /// converts to the location's.
    /// </summary>
    private static bool CheckRefStore(IInvocationOperation invocation, Spawn spawn, IOperation function, Taint taint, BehaviourIndex index,
        Found report)
    {
        bool reported = false;
        foreach (IArgumentOperation location in invocation.Arguments)
        {
            if (location.Parameter?.RefKind is not (RefKind.Ref or RefKind.Out) || location.Value.Type is not { IsReferenceType: true } slot)
            {
                continue;
            }

            foreach (IArgumentOperation argument in invocation.Arguments)
            {
                if (argument == location || argument.Parameter?.RefKind is RefKind.Ref or RefKind.Out
                    || taint.Of(argument.Value) is not { } stored || Operations.Strip(argument.Value).Type is not { } type
                    || !index.Types.Compilation.ClassifyCommonConversion(type, slot).IsImplicit)
                {
                    continue;
                }

                if (Destination(location.Value, stored.Origin, spawn, function, taint) is { } where)
                {
                    report(argument, stored, $"stored through 'ref' into {where} by {invocation.TargetMethod.Name}");
                    reported = true;
                }
            }
        }

        return reported;
    }

    /// <summary>
    /// A task that uses acquired state, which the body neither awaits, blocks on nor returns, runs on after the
    /// behaviour ended; so does an <c>async void</c> method.
    /// </summary>
    private static void CheckUnawaited(IInvocationOperation invocation, IOperation function, Taint taint, BehaviourIndex index,
        Found report)
    {
        IMethodSymbol method = invocation.TargetMethod;
        if (!method.ReturnsVoid && !index.Types.IsTaskLike(method.ReturnType))
        {
            return;
        }

        TaintInfo? used = invocation.Instance is { } instance && Operations.Strip(instance) is not IInstanceReferenceOperation ? taint.Of(instance) : null;
        used ??= invocation.Arguments.Select(a => taint.Of(a.Value)).FirstOrDefault(t => t is not null);

        // An async local function carries what it captures: started and not awaited, it uses the state after its first
        // await. (A synchronous one has finished with the state when it returns, whatever it returns.)
        if (used is null && method.MethodKind == MethodKind.LocalFunction && method.IsAsync)
        {
            used = taint.Get(method.OriginalDefinition);
        }

        if (used is null)
        {
            return;
        }

        bool asyncVoid = method.ReturnsVoid && (method.IsAsync
            || method.GetAttributes().Any(a => SymbolEqualityComparer.Default.Equals(a.AttributeClass, index.Types.AsyncStateMachineAttribute)));
        if (!asyncVoid && (method.ReturnsVoid || IsCompletedTaskFactory(method)))
        {
            return;
        }

        if (asyncVoid)
        {
            report(invocation, used, $"passed to the async void method '{method.Name}', which goes on after its first await, when the cown may be released");
        }
        else if (IsUnobserved(invocation, function, index))
        {
            report(invocation, used, $"used by the task of '{method.Name}', which the behaviour does not await: it goes on after the cown is released");
        }
    }

    /// <summary>
    /// The task is dropped (an expression statement, <c>_ = ...</c>) or kept in a local that the body never awaits,
    /// blocks on, returns or hands on; or combined by <c>Task.WhenAll</c> into a task that is, or by <c>Task.WhenAny</c>.
    /// </summary>
    private static bool IsUnobserved(IInvocationOperation invocation, IOperation function, BehaviourIndex index)
    {
        if (Waits.WaitOn(invocation, function, index) is not null)
        {
            return false;
        }

        IOperation top = invocation;
        while (top.Parent is IConversionOperation or IInvocationOperation { TargetMethod.Name: "ConfigureAwait" or "AsTask" or "Preserve" })
        {
            top = top.Parent;
        }

        // Combined by Task.WhenAll, the task is waited for only if the combined task is; by Task.WhenAny, it is not (the
        // combined task completes with the first).
        if (Waits.Combiner(top) is { } combined)
        {
            return combined.TargetMethod.Name == "WhenAny" || IsUnobserved(combined, function, index);
        }

        switch (top.Parent)
        {
            case IExpressionStatementOperation:
            case ISimpleAssignmentOperation { Target: IDiscardOperation }:
                return true;
            case IVariableInitializerOperation { Parent: IVariableDeclaratorOperation declarator }:
                // Kept in a local: unobserved if nothing ever reads it (an await or a wait would have been found above; a
                // return, an argument or a store hands it on, and the analyzer does not follow it there).
                return !index.References.TryGetValue(declarator.Symbol, out List<IOperation>? uses)
                    || uses.All(u => u.Parent is IExpressionStatementOperation);
            default:
                return false;
        }
    }

    private static bool IsTaskOfTask(ITypeSymbol type, BocTypes types) =>
        type is INamedTypeSymbol { IsGenericType: true } named && types.IsTaskLike(named.TypeArguments[0]);

    private static bool IsCompletedTaskFactory(IMethodSymbol method) =>
        method.IsStatic && method.Name is "FromResult" or "FromException" or "FromCanceled"
        && Namespaces.Is(method.ContainingType?.ContainingNamespace, "System.Threading.Tasks");

    private static ITypeSymbol? ElementType(IOperation value)
    {
        ITypeSymbol? type = Operations.Strip(value).Type;
        if (type is IArrayTypeSymbol array)
        {
            return array.ElementType;
        }

        return type is INamedTypeSymbol named
            ? named.AllInterfaces.Concat(new[] { named })
                .FirstOrDefault(i => i.OriginalDefinition.SpecialType == SpecialType.System_Collections_Generic_IEnumerable_T)?.TypeArguments[0]
            : null;
    }

    /// <summary>Describes where a write to <paramref name="target"/> lands, if that is outside the acquired state.</summary>
    private static string? Destination(IOperation target, IParameterSymbol origin, Spawn spawn, IOperation function, Taint taint)
    {
        IOperation current = Operations.Strip(target);
        bool direct = true;
        while (true)
        {
            switch (current)
            {
                case IFieldReferenceOperation { Instance: null } or IPropertyReferenceOperation { Instance: null }
                    or IEventReferenceOperation { Instance: null }:
                    return "a static member";
                case IMemberReferenceOperation { Instance: { } instance }:
                    current = Operations.Strip(instance);
                    direct = false;
                    continue;
                case IArrayElementReferenceOperation element:
                    current = Operations.Strip(element.ArrayReference);
                    direct = false;
                    continue;
                case IInvocationOperation { Instance: { } instance }:
                    current = Operations.Strip(instance);
                    direct = false;
                    continue;
                case IInstanceReferenceOperation { ReferenceKind: InstanceReferenceKind.ImplicitReceiver }:
                    // An object or collection initializer: the object being built, not 'this'.
                    return null;
                case IInstanceReferenceOperation:
                    return "a member of 'this', which outlives the behaviour";
                case ILocalReferenceOperation local:
                    if (!Operations.IsDeclaredInside(local.Local, function))
                    {
                        return direct ? $"'{local.Local.Name}', a variable captured from outside the behaviour" : $"an object captured from outside the behaviour ('{local.Local.Name}')";
                    }

                    return taint.Get(local.Local) is { } alias && !SymbolEqualityComparer.Default.Equals(alias.Origin, origin) && !direct
                        ? $"the state of another cown ('{alias.Origin.Name}')"
                        : null;
                case IParameterReferenceOperation parameter:
                    if (SymbolEqualityComparer.Default.Equals(parameter.Parameter, spawn.StateParameter))
                    {
                        return "the state argument, which the spawning code still holds";
                    }

                    if (spawn.Acquired.Contains(parameter.Parameter, SymbolEqualityComparer.Default))
                    {
                        return direct || SymbolEqualityComparer.Default.Equals(parameter.Parameter, origin)
                            ? null
                            : $"the state of another cown ('{parameter.Parameter.Name}')";
                    }

                    return Operations.IsDeclaredInside(parameter.Parameter, function)
                        ? null
                        : direct ? $"'{parameter.Parameter.Name}', a parameter captured from outside the behaviour" : $"an object captured from outside the behaviour ('{parameter.Parameter.Name}')";
                default:
                    return null;
            }
        }
    }

    /// <summary>The owner of an event that a handler of the state subscribes to, if outside the acquired state.</summary>
    private static string? EventDestination(IOperation reference, IParameterSymbol origin, Spawn spawn, IOperation function, Taint taint)
    {
        if (reference is not IEventReferenceOperation { Instance: not null })
        {
            return "a static member";
        }

        // The event belongs to its instance: a subscription escapes where a store into that instance would.
        return Destination(reference, origin, spawn, function, taint) is { } where ? where.Replace("a member of ", "") : null;
    }
}
