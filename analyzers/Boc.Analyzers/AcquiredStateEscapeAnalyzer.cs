using System.Collections.Generic;
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>
/// BOC102: the acquired object, or a mutable object reachable from it, is stored where code outside the behaviour can
/// reach it (captured outer variable, field, static, another cown's state, the state argument, an outer collection),
/// handed to another thread, or returned as a mutable result.
/// </summary>
[DiagnosticAnalyzer(LanguageNames.CSharp)]
public sealed class AcquiredStateEscapeAnalyzer : BocAnalyzer
{
    private static readonly HashSet<string> s_storingMethods = new()
    {
        "Add", "AddRange", "AddFirst", "AddLast", "Enqueue", "Push", "Insert", "InsertRange", "TryAdd", "AddOrUpdate",
        "GetOrAdd", "TryWrite", "WriteAsync", "Post", "SendAsync", "SetResult", "TrySetResult", "Set",
    };

    public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics { get; } = ImmutableArray.Create(Descriptors.StateEscapes);

    private protected override void Analyze(BehaviourIndex index, System.Action<Diagnostic> report)
    {
        foreach (Spawn spawn in index.Spawns)
        {
            if (spawn.Body?.Function is not { } function)
            {
                continue;
            }

            Taint taint = index.TaintOf(spawn);
            if (taint.IsEmpty)
            {
                continue;
            }

            bool returnsResult = spawn.Invocation.TargetMethod.ReturnType is INamedTypeSymbol { IsGenericType: true };
            foreach (IOperation operation in index.BodyOperations(spawn))
            {
                switch (operation)
                {
                    case IAssignmentOperation assignment when taint.Of(assignment.Value) is { } value
                        && Destination(assignment.Target, value.Origin, spawn, function, taint) is { } where:
                        Report(report, assignment.Value, value, "assigned to " + where);
                        break;
                    case IEventAssignmentOperation { Adds: true } subscription when taint.Of(subscription.HandlerValue) is { } handler:
                        Report(report, subscription.HandlerValue, handler, "subscribed to an event outside the behaviour");
                        break;
                    case IInvocationOperation invocation:
                        CheckCall(invocation.TargetMethod, invocation.Instance, invocation.Arguments, spawn, function, taint, index.Types.Mutability, report);
                        break;
                    case IObjectCreationOperation { Constructor: { } constructor } creation
                        when Operations.OffloadingConstructor(constructor.ContainingType) is { } api:
                        foreach (IArgumentOperation argument in creation.Arguments)
                        {
                            if (taint.Of(argument.Value) is { } passed)
                            {
                                Report(report, argument, passed, $"handed to {api}, which runs after the behaviour released its cowns");
                            }
                        }

                        break;
                    case IReturnOperation { ReturnedValue: { } returned } when returnsResult && Operations.EnclosingFunction(operation) == function
                        && taint.Of(returned) is { } result && index.Types.Mutability.IsMutable(Operations.Strip(returned).Type):
                        Report(report, returned, result, "returned as a mutable result, usable after the cown is released");
                        break;
                }
            }
        }
    }

    private static void CheckCall(IMethodSymbol method, IOperation? instance,
        ImmutableArray<IArgumentOperation> arguments, Spawn spawn, IOperation function, Taint taint, Mutability mutability,
        System.Action<Diagnostic> report)
    {
        if (Operations.OffloadingMethod(method) is { } api)
        {
            foreach (IArgumentOperation argument in arguments)
            {
                if (taint.Of(argument.Value) is { } passed)
                {
                    Report(report, argument, passed, $"handed to {api}, which runs after the behaviour released its cowns");
                }
            }

            return;
        }

        if (!s_storingMethods.Contains(method.Name))
        {
            return;
        }

        IOperation? receiver = instance;
        int first = 0;
        if (receiver is null && method.IsExtensionMethod && arguments.Length > 0)
        {
            receiver = arguments[0].Value;
            first = 1;
        }

        if (receiver is null)
        {
            return;
        }

        for (int i = first; i < arguments.Length; i++)
        {
            // AddRange, InsertRange and the like store the elements, not the collection: numbers copied from the
            // acquired state are not an escape.
            if (method.Name.EndsWith("Range", System.StringComparison.Ordinal) && !mutability.IsMutable(ElementType(arguments[i].Value)))
            {
                continue;
            }

            if (taint.Of(arguments[i].Value) is { } stored && Destination(receiver, stored.Origin, spawn, function, taint) is { } where)
            {
                Report(report, arguments[i], stored, $"stored by {method.Name} into {where}");
            }
        }
    }

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

    private static void Report(System.Action<Diagnostic> report, IOperation at, TaintInfo taint, string how) =>
        report(Diagnostic.Create(Descriptors.StateEscapes, at.Syntax.GetLocation(), taint.Origin.Name, how));
}
