using System.Collections.Generic;
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>
/// BOC201: a synchronous wait inside a behaviour body (<c>.Result</c>, <c>Wait()</c>, <c>GetAwaiter().GetResult()</c>,
/// <c>Thread.Sleep</c>, <c>lock</c>, <c>Monitor.Enter</c>, wait handles, <c>SemaphoreSlim.Wait</c>, ...). Code handed
/// to another thread from the body (<c>Task.Run</c>, <c>new Thread</c>, ...) is not inside the behaviour.
/// </summary>
[DiagnosticAnalyzer(LanguageNames.CSharp)]
public sealed class BlockingCallAnalyzer : BocAnalyzer
{
    public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics { get; } = ImmutableArray.Create(Descriptors.Blocking);

    private protected override void Analyze(BehaviourIndex index, System.Action<Diagnostic> report)
    {
        foreach (Spawn spawn in index.Spawns)
        {
            if (spawn.Body?.Function is null)
            {
                continue;
            }

            foreach (IOperation operation in index.BodyOperations(spawn, skipOffloaded: true))
            {
                if (Blocks(operation, index.Types) is { } what)
                {
                    Location location = operation is ILockOperation ? operation.Syntax.GetFirstToken().GetLocation() : operation.Syntax.GetLocation();
                    report(Diagnostic.Create(Descriptors.Blocking, location, what));
                }
            }

            // Local functions and lambdas in locals declared outside the body that it runs in place block it just the
            // same: reported where the body calls them, once per call.
            var reported = new HashSet<IOperation>();
            foreach (RunFunction run in index.FunctionsRunBy(spawn))
            {
                if (reported.Contains(run.Via))
                {
                    continue;
                }

                foreach (IOperation operation in BehaviourIndex.OperationsOf(run.Function))
                {
                    if (Blocks(operation, index.Types) is { } what)
                    {
                        reported.Add(run.Via);
                        string where = run.IsLambda ? $"in the lambda held by {run.Runner.Name}" : $"in local function {run.Runner.Name}";
                        report(Diagnostic.Create(Descriptors.Blocking, run.Via.Syntax.GetLocation(), $"{what} ({where})"));
                        break;
                    }
                }
            }
        }
    }

    private static string? Blocks(IOperation operation, BocTypes types) => operation switch
    {
        ILockOperation => "lock",
        IPropertyReferenceOperation { Property.Name: "Result", Instance: { } task } when types.IsTaskLike(task.Type) => ".Result",
        IInvocationOperation invocation => BlockingCall(invocation, types),
        _ => null,
    };

    /// <summary>
    /// A call that waits: one of the known waits, unless it has a timeout argument of zero (a try that never waits). The
    /// <c>Try</c> forms (<c>Monitor.TryEnter</c>, <c>BlockingCollection.TryTake</c>, ...) wait only when given a timeout
    /// that is not zero.
    /// </summary>
    private static string? BlockingCall(IInvocationOperation invocation, BocTypes types)
    {
        if (BlockingMethod(invocation.TargetMethod, types) is not { } what)
        {
            return null;
        }

        IArgumentOperation? timeout = invocation.Arguments.FirstOrDefault(a => a.Parameter?.Name is "millisecondsTimeout" or "timeout");
        if (timeout is null)
        {
            return invocation.TargetMethod.Name.StartsWith("Try", System.StringComparison.Ordinal) ? null : what;
        }

        return IsZero(timeout.Value) ? null : what;
    }

    /// <summary><c>0</c>, <c>TimeSpan.Zero</c>, <c>TimeSpan.FromMilliseconds(0)</c> and the like, <c>new TimeSpan(0)</c>.</summary>
    private static bool IsZero(IOperation value)
    {
        IOperation stripped = Operations.Strip(value);
        if (stripped.ConstantValue is { HasValue: true, Value: { } constant })
        {
            return constant is int or long or double && System.Convert.ToDouble(constant, System.Globalization.CultureInfo.InvariantCulture) == 0;
        }

        return stripped switch
        {
            IFieldReferenceOperation { Field: { Name: "Zero", ContainingType: { } type } } => type.ToDisplayString() == "System.TimeSpan",
            IInvocationOperation { TargetMethod: { IsStatic: true, ContainingType: { } type } method } call when type.ToDisplayString() == "System.TimeSpan"
                && method.Name.StartsWith("From", System.StringComparison.Ordinal) =>
                call.Arguments.All(a => IsZero(a.Value)),
            IObjectCreationOperation { Type: { } type } creation when type.ToDisplayString() == "System.TimeSpan" =>
                creation.Arguments.All(a => IsZero(a.Value)),
            IDefaultValueOperation { Type: { } type } => type.ToDisplayString() == "System.TimeSpan",
            _ => false,
        };
    }

    // The names of every blocking method below: a call with another name (nearly all of them) is ruled out by one lookup.
    private static readonly HashSet<string> s_blockingNames = new(System.StringComparer.Ordinal)
    {
        "Wait", "WaitAll", "WaitAny", "GetResult", "Sleep", "Join", "Enter", "TryEnter", "EnterScope", "SignalAndWait", "SpinUntil",
        "EnterReadLock", "EnterWriteLock", "EnterUpgradeableReadLock", "TryEnterReadLock", "TryEnterWriteLock", "TryEnterUpgradeableReadLock",
        "Take", "Add", "TryTake", "TryAdd", "WaitOne",
    };

    private static string? BlockingMethod(IMethodSymbol method, BocTypes types)
    {
        INamedTypeSymbol? type = method.ContainingType;
        string name = method.Name;
        if (type is null || !s_blockingNames.Contains(name))
        {
            return null;
        }

        if (types.IsTaskLike(type) && name is "Wait" or "WaitAll" or "WaitAny")
        {
            return type.Name + "." + name;
        }

        if (name == "GetResult" && type.Name.EndsWith("Awaiter", System.StringComparison.Ordinal)
            && Namespaces.Is(type.ContainingNamespace, "System.Runtime.CompilerServices"))
        {
            return "GetAwaiter().GetResult()";
        }

        bool blocking = (type.Name, name) switch
        {
            ("Thread", "Sleep" or "Join") => true,
            ("Monitor", "Enter" or "Wait" or "TryEnter") => true,
            ("SemaphoreSlim", "Wait") => true,
            ("ManualResetEventSlim", "Wait") => true,
            ("CountdownEvent", "Wait") => true,
            ("Barrier", "SignalAndWait") => true,
            ("SpinWait", "SpinUntil") => true,
            ("Lock", "Enter" or "EnterScope" or "TryEnter") => true,
            ("ReaderWriterLockSlim", "EnterReadLock" or "EnterWriteLock" or "EnterUpgradeableReadLock"
                or "TryEnterReadLock" or "TryEnterWriteLock" or "TryEnterUpgradeableReadLock") => true,
            _ => false,
        } && Namespaces.Is(type.ContainingNamespace, "System.Threading");
        blocking |= type.Name == "BlockingCollection" && type.Arity == 1 && name is "Take" or "Add" or "TryTake" or "TryAdd"
            && Namespaces.Is(type.ContainingNamespace, "System.Collections.Concurrent");
        if (blocking)
        {
            return type.Name + "." + name;
        }

        if (name is "WaitOne" or "WaitAll" or "WaitAny" or "SignalAndWait")
        {
            for (INamedTypeSymbol? current = type; current is not null; current = current.BaseType)
            {
                if (current.Name == "WaitHandle" && Namespaces.Is(current.ContainingNamespace, "System.Threading"))
                {
                    return "WaitHandle." + name;
                }
            }
        }

        return null;
    }
}
