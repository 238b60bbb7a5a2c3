using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>
/// Which delegates a call keeps and runs after it returns (on a timer, a pool thread, a continuation, a registration),
/// as opposed to the many APIs that run a delegate before they return (LINQ, <c>List.ForEach</c>, <c>Array.Sort</c>,
/// <c>Parallel.For</c>). Code that runs later runs after the behaviour released its cowns, so acquired state it uses has
/// escaped, and what it does is not part of the behaviour (a blocking call there blocks no behaviour).
/// <para>
/// A list of scheduling APIs is never complete, so the model is by kind instead: a delegate runs later when it is passed
/// for a parameter of delegate type and (1) the delegate type is one of the threading callbacks (declared in
/// <c>System.Threading</c> or <c>System.Threading.Tasks</c>: <c>TimerCallback</c>, <c>WaitCallback</c>,
/// <c>ThreadStart</c>, <c>SendOrPostCallback</c>, ...) or <c>AsyncCallback</c>; or (2) the method belongs to a type of
/// those namespaces (<c>Task.Run</c>, <c>ContinueWith</c>, <c>TaskFactory.StartNew</c>, <c>CancellationToken.Register</c>,
/// <c>new Thread</c>, <c>new Timer</c>, <c>new Task</c>) or to <c>TimeProvider</c> and its subclasses; or (3) the
/// parameter is named as a stored delegate (<c>callback</c>, <c>…Callback</c>, <c>continuation…</c>) or the method as a
/// registration (<c>Register…</c>, <c>Subscribe</c>). The synchronous invokers of those namespaces are excepted:
/// <c>Parallel</c> (but <c>ForEachAsync</c>, which returns a task), <c>SpinWait.SpinUntil</c>, <c>LazyInitializer</c>,
/// <c>SynchronizationContext.Send</c>, <c>ExecutionContext.Run</c>. Any other delegate parameter is taken to be invoked
/// before the call returns.
/// </para>
/// </summary>
internal static class RunsLater
{
    /// <summary>
    /// The API, as messages name it (<c>TimeProvider.CreateTimer</c>, <c>new Timer</c>), if <paramref name="method"/>
    /// keeps a delegate passed for <paramref name="parameter"/> and runs it after returning.
    /// </summary>
    public static string? Api(IMethodSymbol method, IParameterSymbol? parameter)
    {
        // The declared type, not the substituted one: Interlocked.Exchange<T>(ref T, T) stores a delegate, it does not
        // run it.
        if (parameter?.OriginalDefinition.Type is not INamedTypeSymbol { TypeKind: TypeKind.Delegate } delegateType
            || method.ContainingType is not { } type || IsSynchronousInvoker(method, type))
        {
            return null;
        }

        bool later = IsThreading(delegateType.ContainingNamespace)
            || (delegateType.Name == "AsyncCallback" && IsSystem(delegateType.ContainingNamespace))
            || IsThreading(type.ContainingNamespace)
            || IsTimeProvider(type)
            || parameter.Name == "callback" || parameter.Name.EndsWith("Callback", System.StringComparison.Ordinal)
            || parameter.Name.StartsWith("continuation", System.StringComparison.Ordinal)
            || method.Name.StartsWith("Register", System.StringComparison.Ordinal) || method.Name.StartsWith("UnsafeRegister", System.StringComparison.Ordinal)
            || method.Name == "Subscribe";
        if (!later)
        {
            return null;
        }

        return method.MethodKind == MethodKind.Constructor ? "new " + type.Name : type.Name + "." + method.Name;
    }

    /// <summary>The first API among a call's arguments that runs a delegate later (see <see cref="Api"/>).</summary>
    public static string? Api(IMethodSymbol method, ImmutableArray<IArgumentOperation> arguments)
    {
        foreach (IArgumentOperation argument in arguments)
        {
            if (Api(method, argument.Parameter) is { } api)
            {
                return api;
            }
        }

        return null;
    }

    /// <summary>An event whose handlers run on the event owner's own schedule: the events of timers.</summary>
    public static string? EventApi(IEventSymbol @event) =>
        @event.ContainingType is { } type
        && (IsThreading(type.ContainingNamespace) || (type.ContainingNamespace is { Name: "Timers" } timers && IsSystem(timers.ContainingNamespace)))
            ? type.Name + "." + @event.Name
            : null;

    private static bool IsSynchronousInvoker(IMethodSymbol method, INamedTypeSymbol type) =>
        (type.Name, method.Name) switch
        {
            ("Parallel", not "ForEachAsync") or ("SpinWait", "SpinUntil") or ("LazyInitializer", _) or ("SynchronizationContext", "Send")
                or ("ExecutionContext", "Run") => IsThreading(type.ContainingNamespace),
            _ => false,
        };

    private static bool IsTimeProvider(INamedTypeSymbol type)
    {
        for (INamedTypeSymbol? current = type; current is not null; current = current.BaseType)
        {
            if (current.Name == "TimeProvider" && IsSystem(current.ContainingNamespace))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary><c>System.Threading</c> or <c>System.Threading.Tasks</c>, compared by name without building strings.</summary>
    private static bool IsThreading(INamespaceSymbol? ns) =>
        ns is not null && ((ns.Name == "Threading" && IsSystem(ns.ContainingNamespace))
            || (ns.Name == "Tasks" && ns.ContainingNamespace is { Name: "Threading" } threading && IsSystem(threading.ContainingNamespace)));

    /// <summary>The <c>System</c> namespace itself.</summary>
    private static bool IsSystem(INamespaceSymbol? ns) => ns is { Name: "System", ContainingNamespace.IsGlobalNamespace: true };
}
