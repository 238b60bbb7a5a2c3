using System.Collections.Generic;
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>One cown argument of a spawn: a single cown (<c>c1..c8</c>) or a dynamic set (<c>cowns</c>).</summary>
internal sealed class CownArgument
{
    public CownArgument(IArgumentOperation argument, bool isSet, bool isReadOnly)
    {
        Argument = argument;
        IsSet = isSet;
        IsReadOnly = isReadOnly;
    }

    public IArgumentOperation Argument { get; }

    public bool IsSet { get; }

    public bool IsReadOnly { get; }
}

/// <summary>
/// The function that runs as a behaviour: a lambda or anonymous method, a local function used as a method group, or a
/// lambda reached through a delegate local. <see cref="Function"/> is null for ordinary methods (not analysed here).
/// </summary>
internal sealed class BodyFunction
{
    public BodyFunction(IMethodSymbol symbol, IOperation? function, IOperation? body)
    {
        Symbol = symbol;
        Function = function;
        Body = body;
    }

    public IMethodSymbol Symbol { get; }

    public IOperation? Function { get; }

    public IOperation? Body { get; }
}

/// <summary>
/// A call to <c>When</c>/<c>WhenAsync</c>/<c>TryWhen</c> on <c>BocRuntime</c> or <c>Behaviours</c>, to
/// <c>When</c>/<c>WhenAsync</c> on a <c>BocBatch</c> (a batch member runs its body exactly like a spawn), or to
/// <c>WhenAsync</c> on Boc.Orleans' <c>IBocCluster</c> (a distributed behaviour, whose body gets copies of the states).
/// </summary>
internal sealed class Spawn
{
    public Spawn(IInvocationOperation invocation, ImmutableArray<CownArgument> cowns, IArgumentOperation bodyArgument,
        IArgumentOperation? stateArgument, bool isCluster = false)
    {
        Invocation = invocation;
        Cowns = cowns;
        BodyArgument = bodyArgument;
        StateArgument = stateArgument;
        IsCluster = isCluster;
    }

    public IInvocationOperation Invocation { get; }

    /// <summary>
    /// A distributed behaviour (<c>IBocCluster.WhenAsync</c>): its body runs at the caller on private copies of the
    /// cowns' states, committed when it ends; a copy kept after that is no longer the cown's state.
    /// </summary>
    public bool IsCluster { get; }

    public ImmutableArray<CownArgument> Cowns { get; }

    public IArgumentOperation BodyArgument { get; }

    public IArgumentOperation? StateArgument { get; }

    public BodyFunction? Body { get; set; }

    /// <summary>The body's parameters that receive acquired state, in cown-argument order.</summary>
    public ImmutableArray<IParameterSymbol> Acquired { get; set; } = ImmutableArray<IParameterSymbol>.Empty;

    public IParameterSymbol? StateParameter { get; set; }

    public bool IsReadOnly(IParameterSymbol parameter)
    {
        int index = Acquired.IndexOf(parameter, SymbolEqualityComparer.Default);
        return index >= 0 && Cowns[index].IsReadOnly;
    }

    public CownArgument? CownFor(IParameterSymbol parameter)
    {
        int index = Acquired.IndexOf(parameter, SymbolEqualityComparer.Default);
        return index >= 0 ? Cowns[index] : null;
    }

    /// <summary>The names of the spawning methods: a call with another name spawns nothing.</summary>
    public static bool IsCandidateName(string name) => name is "When" or "WhenAsync" or "TryWhen";

    public static Spawn? TryCreate(IInvocationOperation invocation, BocTypes types)
    {
        IMethodSymbol method = invocation.TargetMethod;
        if (!IsCandidateName(method.Name))
        {
            return null;
        }

        if (method.Name == "WhenAsync" && types.IsClusterSpawner(method.ContainingType))
        {
            return TryCreateCluster(invocation, types);
        }

        if (!types.IsSpawner(method.ContainingType))
        {
            return null;
        }

        ImmutableArray<CownArgument>.Builder cowns = ImmutableArray.CreateBuilder<CownArgument>();
        IArgumentOperation? body = null;
        IArgumentOperation? state = null;
        foreach (IArgumentOperation argument in InParameterOrder(invocation.Arguments))
        {
            IParameterSymbol? parameter = argument.Parameter;
            if (parameter is null)
            {
                continue;
            }

            // Parameter names are part of the generated API (eng/GenerateWhen.cs); a TState may itself be a delegate or a
            // list, so names, not types, tell the roles apart.
            switch (parameter.Name)
            {
                case "body":
                    body = argument;
                    break;
                case "state":
                    state = argument;
                    break;
                case "cowns":
                    cowns.Add(new CownArgument(argument, isSet: true, IsReadOnlySetExpression(argument.Value, types)));
                    break;
                default:
                    if (parameter.Type is INamedTypeSymbol named && types.Acquirable is not null
                        && SymbolEqualityComparer.Default.Equals(named.OriginalDefinition, types.Acquirable))
                    {
                        cowns.Add(new CownArgument(argument, isSet: false, IsReadOnlyCownExpression(argument.Value, types)));
                    }

                    break;
            }
        }

        return body is null ? null : new Spawn(invocation, cowns.ToImmutable(), body, state);
    }

    /// <summary>
    /// A cluster spawn: its cowns are the arguments of type <c>ClusterAcquirable&lt;T&gt;</c> or a sequence of them, its body
    /// the argument for the first parameter of delegate type. Matched by types, not names or positions, so that
    /// overloads with more parameters (a cancellation token, an idempotency key) are recognised as well.
    /// </summary>
    private static Spawn? TryCreateCluster(IInvocationOperation invocation, BocTypes types)
    {
        ImmutableArray<CownArgument>.Builder cowns = ImmutableArray.CreateBuilder<CownArgument>();
        IArgumentOperation? body = null;
        foreach (IArgumentOperation argument in InParameterOrder(invocation.Arguments))
        {
            ITypeSymbol? type = argument.Parameter?.Type;
            if (types.IsClusterAcquirable(type))
            {
                cowns.Add(new CownArgument(argument, isSet: false, IsReadOnlyCownExpression(argument.Value, types)));
            }
            else if (type is INamedTypeSymbol { TypeKind: TypeKind.Delegate })
            {
                body ??= argument;
            }
            else if (type is not null && types.IsClusterAcquirable(Taint.ElementType(type)))
            {
                cowns.Add(new CownArgument(argument, isSet: true, IsReadOnlySetExpression(argument.Value, types)));
            }
        }

        return body is null || cowns.Count == 0 ? null : new Spawn(invocation, cowns.ToImmutable(), body, stateArgument: null, isCluster: true);
    }

    /// <summary>The arguments by parameter position (named arguments come in source order); sorted only when they need it.</summary>
    private static IEnumerable<IArgumentOperation> InParameterOrder(ImmutableArray<IArgumentOperation> arguments)
    {
        for (int i = 1; i < arguments.Length; i++)
        {
            if ((arguments[i].Parameter?.Ordinal ?? int.MaxValue) < (arguments[i - 1].Parameter?.Ordinal ?? int.MaxValue))
            {
                return arguments.OrderBy(a => a.Parameter?.Ordinal ?? int.MaxValue);
            }
        }

        return arguments;
    }

    private static bool IsReadOnlyCownExpression(IOperation value, BocTypes types) =>
        types.IsReadOnlyCown(Operations.Strip(value).Type);

    private static bool IsReadOnlySetExpression(IOperation value, BocTypes types)
    {
        IOperation stripped = Operations.Strip(value);
        switch (stripped)
        {
            case IArrayCreationOperation { Initializer: { } initializer } when initializer.ElementValues.Length > 0:
                return initializer.ElementValues.All(e => IsReadOnlyCownExpression(e, types));
            case { } collection when RoslynCompat.IsCollectionExpression(collection) && collection.ChildOperations.Count > 0:
                return RoslynCompat.CollectionElements(collection).All(e => IsReadOnlyCownExpression(e, types));
        }

        ITypeSymbol? type = stripped.Type;
        if (type is IArrayTypeSymbol array)
        {
            return types.IsReadOnlyCown(array.ElementType);
        }

        return type is INamedTypeSymbol named
            && named.AllInterfaces.Concat(new[] { named })
                .Any(i => i.OriginalDefinition.SpecialType == SpecialType.System_Collections_Generic_IEnumerable_T
                    && types.IsReadOnlyCown(i.TypeArguments[0]));
    }
}
