using System.Collections.Generic;
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>
/// Every spawn in one operation block (a member body with its lambdas and local functions), with bodies resolved and
/// the references to each local and parameter indexed, so that each rule walks the block once.
/// </summary>
internal sealed class BehaviourIndex
{
    private readonly Dictionary<IOperation, Spawn> _spawnByFunction = new();
    private readonly Dictionary<IOperation, Spawn> _spawnByInvocation = new();
    private readonly Dictionary<Spawn, Taint> _taints = new();
    private readonly Dictionary<(Spawn, bool), List<IOperation>> _bodies = new();
    private readonly Dictionary<Spawn, List<RunFunction>> _runs = new();
    private List<NonAcquiredStateAnalyzer.Finding>? _nonAcquired;

    private BehaviourIndex(BocTypes types, Mutability mutability)
    {
        Types = types;
        Mutability = mutability;
    }

    public BocTypes Types { get; }

    /// <summary>The mutability model for this block's file (it depends on the file's <c>.editorconfig</c> options).</summary>
    public Mutability Mutability { get; }

    public List<Spawn> Spawns { get; } = new();

    /// <summary>Whether a spawn here is a cluster behaviour (only then has BOC105 anything to look at).</summary>
    public bool HasClusterSpawn { get; private set; }

    /// <summary>Whether anything here calls a method named <c>BeginScope</c> (only then can a body wait for a scope).</summary>
    public bool CallsBeginScope { get; private set; }

    /// <summary>The references to each local and parameter, and the calls and method groups of each local function.</summary>
    public Dictionary<ISymbol, List<IOperation>> References { get; } = new(SymbolEqualityComparer.Default);

    public Dictionary<IMethodSymbol, ILocalFunctionOperation> LocalFunctions { get; } = new(SymbolEqualityComparer.Default);

    /// <summary>Values assigned to each local (declarator initialisers and plain assignments).</summary>
    public Dictionary<ILocalSymbol, List<IOperation>> LocalValues { get; } = new(SymbolEqualityComparer.Default);

    /// <summary>The index of a block, or null if it spawns nothing (for the code fixes, which need no scopes).</summary>
    public static BehaviourIndex? Build(ImmutableArray<IOperation> blocks, BocTypes types, Mutability mutability) =>
        Build(blocks, types, mutability, out _);

    /// <summary>
    /// The index of a block, or null if it spawns nothing; and, for every block, the scopes it begins
    /// (<see cref="ScopeWaits.IsBeginScope"/>), in source order, which BOC204 looks at whether the block spawns or not.
    /// </summary>
    public static BehaviourIndex? Build(ImmutableArray<IOperation> blocks, BocTypes types, Mutability mutability,
        out ImmutableArray<IInvocationOperation> beginScopes)
    {
        // Most members spawn nothing: find that out by name before indexing anything. The same walk finds the scopes
        // such a member begins; a member that may spawn is walked in full below, which finds them there.
        beginScopes = ImmutableArray<IInvocationOperation>.Empty;
        if (!MaySpawn(blocks, types, ref beginScopes))
        {
            return null;
        }

        var index = new BehaviourIndex(types, mutability);
        ImmutableArray<IInvocationOperation>.Builder? scopes = null;
        foreach (IOperation block in blocks)
        {
            foreach (IOperation operation in block.DescendantsAndSelf())
            {
                if (operation is IInvocationOperation { TargetMethod.Name: "BeginScope" } begin)
                {
                    index.CallsBeginScope = true;
                    if (ScopeWaits.IsBeginScope(begin, types))
                    {
                        (scopes ??= ImmutableArray.CreateBuilder<IInvocationOperation>()).Add(begin);
                    }
                }

                switch (operation)
                {
                    case IInvocationOperation invocation when Spawn.TryCreate(invocation, types) is { } spawn:
                        index.Spawns.Add(spawn);
                        index._spawnByInvocation[invocation] = spawn;
                        index.HasClusterSpawn |= spawn.IsCluster;
                        break;
                    case IInvocationOperation { TargetMethod.MethodKind: MethodKind.LocalFunction } call:
                        index.AddReference(call.TargetMethod.OriginalDefinition, call);
                        break;
                    case IMethodReferenceOperation { Method.MethodKind: MethodKind.LocalFunction } group:
                        index.AddReference(group.Method.OriginalDefinition, group);
                        break;
                    case ILocalFunctionOperation localFunction:
                        index.LocalFunctions[localFunction.Symbol] = localFunction;
                        break;
                    case ILocalReferenceOperation local:
                        index.AddReference(local.Local, local);
                        break;
                    case IParameterReferenceOperation parameter:
                        index.AddReference(parameter.Parameter, parameter);
                        break;
                    case IVariableDeclaratorOperation declarator when declarator.GetVariableInitializer() is { } initializer:
                        index.AddValue(declarator.Symbol, initializer.Value);
                        break;
                    case ISimpleAssignmentOperation { Target: ILocalReferenceOperation target } assignment:
                        index.AddValue(target.Local, assignment.Value);
                        break;
                }
            }
        }

        beginScopes = scopes?.ToImmutable() ?? ImmutableArray<IInvocationOperation>.Empty;
        if (index.Spawns.Count == 0)
        {
            return null;
        }

        foreach (Spawn spawn in index.Spawns)
        {
            index.Resolve(spawn);
        }

        return index;
    }

    /// <summary>
    /// Whether an invocation in the blocks has a spawn's name. If none has, the walk went through every operation and
    /// <paramref name="beginScopes"/> holds the scopes the blocks begin; otherwise it stopped at the first such name.
    /// </summary>
    private static bool MaySpawn(ImmutableArray<IOperation> blocks, BocTypes types, ref ImmutableArray<IInvocationOperation> beginScopes)
    {
        ImmutableArray<IInvocationOperation>.Builder? scopes = null;
        foreach (IOperation block in blocks)
        {
            foreach (IOperation operation in block.DescendantsAndSelf())
            {
                if (operation is not IInvocationOperation invocation)
                {
                    continue;
                }

                if (Spawn.IsCandidateName(invocation.TargetMethod.Name))
                {
                    return true;
                }

                if (ScopeWaits.IsBeginScope(invocation, types))
                {
                    (scopes ??= ImmutableArray.CreateBuilder<IInvocationOperation>()).Add(invocation);
                }
            }
        }

        beginScopes = scopes?.ToImmutable() ?? ImmutableArray<IInvocationOperation>.Empty;
        return false;
    }

    /// <summary>All acquired state of <paramref name="spawn"/> and its aliases; computed once, shared by the rules.</summary>
    public Taint TaintOf(Spawn spawn)
    {
        lock (_taints)
        {
            if (!_taints.TryGetValue(spawn, out Taint? taint))
            {
                _taints[spawn] = taint = Taint.Compute(this, spawn);
            }

            return taint;
        }
    }

    /// <summary>BOC101's findings (the uses of enclosing behaviours' state), computed once for BOC101 and BOC105.</summary>
    public List<NonAcquiredStateAnalyzer.Finding> NonAcquiredFindings()
    {
        lock (_taints)
        {
            return _nonAcquired ??= NonAcquiredStateAnalyzer.Find(this).ToList();
        }
    }

    /// <summary>The spawn this invocation makes, if it is a call to <c>When</c>/<c>WhenAsync</c>.</summary>
    public Spawn? SpawnOfInvocation(IOperation invocation) => _spawnByInvocation.TryGetValue(invocation, out Spawn? spawn) ? spawn : null;

    /// <summary>
    /// Functions declared outside the body that the body runs in place (see <see cref="RunFunction"/>), directly or
    /// through other such functions, each with the operation in the body through which it is reached. Computed once per
    /// spawn and shared by the rules (BOC103 and BOC201 both follow them).
    /// </summary>
    public IReadOnlyList<RunFunction> FunctionsRunBy(Spawn spawn)
    {
        lock (_runs)
        {
            if (!_runs.TryGetValue(spawn, out List<RunFunction>? runs))
            {
                _runs[spawn] = runs = ComputeFunctionsRunBy(spawn);
            }

            return runs;
        }
    }

    private List<RunFunction> ComputeFunctionsRunBy(Spawn spawn)
    {
        var found = new List<RunFunction>();
        if (spawn.Body?.Function is not { } function)
        {
            return found;
        }

        var seen = new HashSet<IOperation> { function };
        var pending = new Queue<(IEnumerable<IOperation> Operations, IOperation? Via)>();
        pending.Enqueue((BodyOperations(spawn, skipOffloaded: true), null));
        while (pending.Count > 0)
        {
            (IEnumerable<IOperation> operations, IOperation? via) = pending.Dequeue();
            foreach (IOperation operation in operations)
            {
                if (RunInPlace(operation) is not { } run || Operations.IsInside(run.Function, function) || !seen.Add(run.Function))
                {
                    continue;
                }

                IOperation reachedVia = via ?? operation;
                found.Add(new RunFunction(run.Function, run.Runner, reachedVia));
                pending.Enqueue((OperationsOf(run.Function), reachedVia));
            }
        }

        return found;
    }

    /// <summary>The function <paramref name="operation"/> runs in place, if it calls or passes one (see <see cref="RunFunction"/>).</summary>
    private (IOperation Function, ISymbol Runner)? RunInPlace(IOperation operation)
    {
        switch (operation)
        {
            case IInvocationOperation { TargetMethod.MethodKind: MethodKind.LocalFunction } call:
                return LocalFunctionOf(call.TargetMethod);
            case IMethodReferenceOperation { Method.MethodKind: MethodKind.LocalFunction } reference when !IsHandedOn(reference):
                return LocalFunctionOf(reference.Method);
            case IInvocationOperation { TargetMethod.MethodKind: MethodKind.DelegateInvoke, Instance: { } instance }
                when Operations.Strip(instance) is ILocalReferenceOperation held:
                return LambdaHeldBy(held.Local);
            case ILocalReferenceOperation { IsDeclaration: false } passed when passed.Type?.TypeKind == TypeKind.Delegate
                && ArgumentOf(passed) is not null && !IsHandedOn(passed):
                return LambdaHeldBy(passed.Local);
            default:
                return null;
        }
    }

    private (IOperation, ISymbol)? LocalFunctionOf(IMethodSymbol method) =>
        LocalFunctions.TryGetValue(method.OriginalDefinition, out ILocalFunctionOperation? local) ? (local, method.OriginalDefinition) : null;

    /// <summary>The lambda a delegate local holds, if it is assigned exactly once, a lambda written in place.</summary>
    private (IOperation, ISymbol)? LambdaHeldBy(ILocalSymbol local) =>
        LocalValues.TryGetValue(local, out List<IOperation>? values) && values.Count == 1
        && ResolveFunction(values[0], depth: 1) is { Function: IAnonymousFunctionOperation lambda }
            ? (lambda, local)
            : null;

    /// <summary>The argument a function value (a method group, a delegate local) is passed as, if it is one.</summary>
    private static IArgumentOperation? ArgumentOf(IOperation operation)
    {
        IOperation? parent = operation.Parent;
        while (parent is IConversionOperation or IDelegateCreationOperation)
        {
            parent = parent.Parent;
        }

        return parent as IArgumentOperation;
    }

    /// <summary>
    /// A function value passed to code that runs it later (<see cref="RunsLater"/>) or to a spawn (as another
    /// behaviour's body): it does not run in place.
    /// </summary>
    private bool IsHandedOn(IOperation value) =>
        Operations.IsOffloaded(value) || (ArgumentOf(value) is { Parent: IInvocationOperation call } && SpawnOfInvocation(call) is not null);

    /// <summary>The operations of a local function's or lambda's body, without functions it hands to another thread.</summary>
    public static IEnumerable<IOperation> OperationsOf(IOperation function)
    {
        var stack = new Stack<IOperation>();
        IOperation? body = function switch
        {
            ILocalFunctionOperation local => local.Body ?? local.IgnoredBody,
            IAnonymousFunctionOperation lambda => lambda.Body,
            _ => null,
        };
        if (body is not null)
        {
            stack.Push(body);
        }

        while (stack.Count > 0)
        {
            IOperation current = stack.Pop();
            yield return current;
            foreach (IOperation child in current.ChildOperations.Reverse())
            {
                if (child is IAnonymousFunctionOperation && Operations.IsOffloaded(child))
                {
                    continue;
                }

                stack.Push(child);
            }
        }
    }

    /// <summary>The spawn whose body is this function (lambda or local function operation), if any.</summary>
    public Spawn? SpawnOfFunction(IOperation function) => _spawnByFunction.TryGetValue(function, out Spawn? spawn) ? spawn : null;

    /// <summary>Behaviour bodies that enclose <paramref name="operation"/>, innermost first.</summary>
    public IEnumerable<Spawn> EnclosingBehaviours(IOperation operation)
    {
        for (IOperation? current = operation.Parent; current is not null; current = current.Parent)
        {
            if (current is IAnonymousFunctionOperation or ILocalFunctionOperation && SpawnOfFunction(current) is { } spawn)
            {
                yield return spawn;
            }
        }
    }

    /// <summary>
    /// Operations of a body, without the bodies of nested spawns (each spawn is checked on its own) and, when asked,
    /// without functions handed to another thread (<c>Task.Run</c> and the like), which do not run inside the behaviour.
    /// In source order; computed once per spawn and shared by the rules, which all walk it.
    /// </summary>
    public List<IOperation> BodyOperations(Spawn spawn, bool skipOffloaded = false)
    {
        lock (_bodies)
        {
            if (!_bodies.TryGetValue((spawn, skipOffloaded), out List<IOperation>? operations))
            {
                _bodies[(spawn, skipOffloaded)] = operations = ComputeBodyOperations(spawn, skipOffloaded);
            }

            return operations;
        }
    }

    private List<IOperation> ComputeBodyOperations(Spawn spawn, bool skipOffloaded)
    {
        var operations = new List<IOperation>();
        if (spawn.Body?.Body is not { } body)
        {
            return operations;
        }

        var stack = new Stack<IOperation>();
        stack.Push(body);
        while (stack.Count > 0)
        {
            IOperation current = stack.Pop();
            operations.Add(current);
            // Children are pushed last-first so that operations come out in source order (first use is reported).
            foreach (IOperation child in current.ChildOperations.Reverse())
            {
                if (child is IAnonymousFunctionOperation or ILocalFunctionOperation && SpawnOfFunction(child) is not null)
                {
                    continue;
                }

                if (skipOffloaded && child is IAnonymousFunctionOperation && Operations.IsOffloaded(child))
                {
                    continue;
                }

                stack.Push(child);
            }
        }

        return operations;
    }

    private void AddReference(ISymbol symbol, IOperation reference)
    {
        if (!References.TryGetValue(symbol, out List<IOperation>? list))
        {
            References[symbol] = list = new List<IOperation>();
        }

        list.Add(reference);
    }

    private void AddValue(ILocalSymbol local, IOperation value)
    {
        if (!LocalValues.TryGetValue(local, out List<IOperation>? list))
        {
            LocalValues[local] = list = new List<IOperation>();
        }

        list.Add(value);
    }

    private void Resolve(Spawn spawn)
    {
        BodyFunction? body = ResolveFunction(spawn.BodyArgument.Value, depth: 0);
        if (body is null)
        {
            return;
        }

        spawn.Body = body;
        if (body.Function is not null)
        {
            _spawnByFunction[body.Function] = spawn;
        }

        ImmutableArray<IParameterSymbol> parameters = body.Symbol.Parameters;
        int stateCount = spawn.StateArgument is null ? 0 : 1;
        if (parameters.Length == spawn.Cowns.Length + stateCount)
        {
            spawn.Acquired = parameters.Take(spawn.Cowns.Length).ToImmutableArray();
            spawn.StateParameter = stateCount == 1 ? parameters[parameters.Length - 1] : null;
        }
    }

    /// <summary>Follows a delegate expression to the function it runs, through one delegate local at most.</summary>
    public BodyFunction? ResolveFunction(IOperation value, int depth)
    {
        IOperation stripped = Operations.Strip(value);
        if (stripped is IDelegateCreationOperation creation)
        {
            stripped = Operations.Strip(creation.Target);
        }

        switch (stripped)
        {
            case IAnonymousFunctionOperation lambda:
                return new BodyFunction(lambda.Symbol, lambda, lambda.Body);
            case IMethodReferenceOperation reference:
                if (reference.Method.MethodKind == MethodKind.LocalFunction
                    && LocalFunctions.TryGetValue(reference.Method.OriginalDefinition, out ILocalFunctionOperation? local))
                {
                    return new BodyFunction(reference.Method, local, local.Body ?? local.IgnoredBody);
                }

                return new BodyFunction(reference.Method, null, null);
            case ILocalReferenceOperation delegateLocal when depth == 0
                && LocalValues.TryGetValue(delegateLocal.Local, out List<IOperation>? values) && values.Count == 1:
                return ResolveFunction(values[0], depth + 1);
            default:
                return null;
        }
    }
}
