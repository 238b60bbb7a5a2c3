using System.Collections.Immutable;
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
                string? what = operation switch
                {
                    ILockOperation => "lock",
                    IPropertyReferenceOperation { Property.Name: "Result", Instance: { } task } when index.Types.IsTaskLike(task.Type) => ".Result",
                    IInvocationOperation invocation => BlockingMethod(invocation.TargetMethod, index.Types),
                    _ => null,
                };
                if (what is not null)
                {
                    Location location = operation is ILockOperation ? operation.Syntax.GetFirstToken().GetLocation() : operation.Syntax.GetLocation();
                    report(Diagnostic.Create(Descriptors.Blocking, location, what));
                }
            }
        }
    }

    private static string? BlockingMethod(IMethodSymbol method, BocTypes types)
    {
        INamedTypeSymbol? type = method.ContainingType;
        if (type is null)
        {
            return null;
        }

        string name = method.Name;
        if (types.IsTaskLike(type) && name is "Wait" or "WaitAll" or "WaitAny")
        {
            return type.Name + "." + name;
        }

        if (name == "GetResult" && type.Name.EndsWith("Awaiter", System.StringComparison.Ordinal)
            && type.ContainingNamespace?.ToDisplayString() == "System.Runtime.CompilerServices")
        {
            return "GetAwaiter().GetResult()";
        }

        string full = type.OriginalDefinition.ToDisplayString();
        bool blocking = (full, name) switch
        {
            ("System.Threading.Thread", "Sleep" or "Join") => true,
            ("System.Threading.Monitor", "Enter" or "Wait" or "TryEnter") => true,
            ("System.Threading.SemaphoreSlim", "Wait") => true,
            ("System.Threading.ManualResetEventSlim", "Wait") => true,
            ("System.Threading.CountdownEvent", "Wait") => true,
            ("System.Threading.Barrier", "SignalAndWait") => true,
            ("System.Threading.SpinWait", "SpinUntil") => true,
            ("System.Threading.Lock", "Enter" or "EnterScope") => true,
            ("System.Threading.ReaderWriterLockSlim", "EnterReadLock" or "EnterWriteLock" or "EnterUpgradeableReadLock") => true,
            ("System.Collections.Concurrent.BlockingCollection<T>", "Take" or "Add") => true,
            _ => false,
        };
        if (blocking)
        {
            return type.Name + "." + name;
        }

        for (INamedTypeSymbol? current = type; current is not null; current = current.BaseType)
        {
            if (current.ToDisplayString() == "System.Threading.WaitHandle" && name is "WaitOne" or "WaitAll" or "WaitAny" or "SignalAndWait")
            {
                return "WaitHandle." + name;
            }
        }

        return null;
    }
}
