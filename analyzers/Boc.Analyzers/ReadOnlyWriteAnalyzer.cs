using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>
/// BOC104: an assignment, increment, <c>ref</c> pass or mutating call on state acquired with <c>Read(...)</c>, directly or
/// through an alias.
/// </summary>
[DiagnosticAnalyzer(LanguageNames.CSharp)]
public sealed class ReadOnlyWriteAnalyzer : BocAnalyzer
{
    // The analyzer cannot see inside methods; a call counts as a write when its name says so (Add, Clear, Set...,
    // Record, ...). Names are matched as a whole word or a prefix followed by an upper-case letter.
    private static readonly string[] s_mutatingVerbs =
    {
        "Add", "Append", "Apply", "Change", "Clear", "Decrement", "Delete", "Dequeue", "Enqueue", "EnsureCapacity",
        "Fill", "Increment", "Insert", "Mark", "Modify", "Move", "Pop", "Push", "Put", "Record", "Register", "Remove",
        "Replace", "Reset", "Resize", "Reverse", "Set", "Shuffle", "Sort", "Store", "Swap", "TrimExcess", "TryAdd",
        "TryDequeue", "TryPop", "TryRemove", "TryTake", "TryUpdate", "Unregister", "Update", "Write",
    };

    private static readonly ImmutableHashSet<string> s_readingExceptions = ImmutableHashSet.Create("SetEquals");

    public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics { get; } = ImmutableArray.Create(Descriptors.ReadOnlyWrite);

    // A body calls the same few methods again and again: each name is judged once per process.
    private static readonly System.Collections.Concurrent.ConcurrentDictionary<string, bool> s_mutatingNames = new(System.StringComparer.Ordinal);

    internal static bool IsMutatingName(string name) => s_mutatingNames.GetOrAdd(name, static n =>
        !s_readingExceptions.Contains(n)
        && s_mutatingVerbs.Any(verb => n.StartsWith(verb, System.StringComparison.Ordinal)
            && (n.Length == verb.Length || !char.IsLower(n[verb.Length]))));

    private protected override void Analyze(BehaviourIndex index, System.Action<Diagnostic> report)
    {
        foreach (Spawn spawn in index.Spawns)
        {
            if (spawn.Body?.Function is null || !spawn.Acquired.Any(spawn.IsReadOnly))
            {
                continue;
            }

            Taint all = index.TaintOf(spawn);
            foreach (IOperation operation in index.BodyOperations(spawn))
            {
                switch (operation)
                {
                    case IAssignmentOperation assignment when WrittenThrough(assignment.Target, all, spawn) is { } origin:
                        Report(report, spawn, assignment.Target, origin, "this assignment");
                        break;
                    case IIncrementOrDecrementOperation increment when WrittenThrough(increment.Target, all, spawn) is { } origin:
                        Report(report, spawn, increment.Target, origin, "this increment");
                        break;
                    case IDeconstructionAssignmentOperation deconstruction:
                        foreach (IOperation target in deconstruction.Target.DescendantsAndSelf().Where(t => t.Parent is ITupleOperation))
                        {
                            if (WrittenThrough(target, all, spawn) is { } origin)
                            {
                                Report(report, spawn, target, origin, "this deconstruction");
                            }
                        }

                        break;
                    case IArgumentOperation { Parameter.RefKind: RefKind.Ref or RefKind.Out } argument
                        when WrittenThrough(argument.Value, all, spawn) is { } origin:
                        Report(report, spawn, argument, origin, "passing it by ref");
                        break;
                    case IInvocationOperation invocation when WrittenArgument(invocation) is { } written
                        && all.Of(written) is { } taint && spawn.IsReadOnly(taint.Origin):
                        Report(report, spawn, invocation, taint.Origin, $"the call to '{invocation.TargetMethod.Name}'");
                        break;
                }
            }
        }
    }

    /// <summary>
    /// The object a call writes, judged by names: the receiver of a method with a mutating name (the first argument of
    /// an extension method, or of a static one of <c>Array</c>, <c>Buffer</c> or <c>CollectionsMarshal</c>:
    /// <c>list.Add(x)</c>, <c>Array.Sort(a)</c>), an argument for a parameter named as a
    /// destination (<c>Array.Copy(src, dst, n)</c>), the argument of <c>Random.Shuffle</c>. Methods of read-only
    /// views (<c>Enumerable.Append</c> on an <c>IEnumerable&lt;T&gt;</c>) build new sequences and write nothing.
    /// </summary>
    private static IOperation? WrittenArgument(IInvocationOperation invocation)
    {
        IMethodSymbol method = invocation.TargetMethod;
        foreach (IArgumentOperation argument in invocation.Arguments)
        {
            if (argument.Parameter?.Name is "destination" or "destinationArray" or "dst" or "dest")
            {
                return argument.Value;
            }
        }

        if (method.Name == "Shuffle" && method.ContainingType?.ToDisplayString() == "System.Random" && invocation.Arguments.Length > 0)
        {
            return invocation.Arguments[0].Value;
        }

        // LINQ's operators never write their source, whatever their names: on .NET 10 array.Reverse() binds to the lazy
        // Enumerable.Reverse<T>(T[]).
        if (!IsMutatingName(method.Name) || IsLinq(method.ContainingType))
        {
            return null;
        }

        if (invocation.Instance is { } instance)
        {
            return Mutability.IsReadOnlyView(method.ContainingType) ? null : instance;
        }

        // Static helpers are trusted by name only where the BCL keeps its in-place operations; elsewhere a static
        // method with a mutating name (Console.Write) usually writes something else.
        bool inPlaceHelper = method.IsStatic && method.ContainingType?.ToDisplayString() is "System.Array" or "System.Buffer"
            or "System.Runtime.InteropServices.CollectionsMarshal";
        if ((method.IsExtensionMethod || inPlaceHelper) && invocation.Arguments.Length > 0
            && !Mutability.IsReadOnlyView(invocation.Arguments[0].Parameter?.Type))
        {
            return invocation.Arguments[0].Value;
        }

        return null;
    }

    /// <summary>A type of <c>System.Linq</c> (<c>Enumerable</c>, <c>Queryable</c>, <c>ParallelEnumerable</c>, <c>AsyncEnumerable</c>, ...).</summary>
    private static bool IsLinq(INamedTypeSymbol? type) =>
        type?.ContainingNamespace is { Name: "Linq", ContainingNamespace: { Name: "System", ContainingNamespace.IsGlobalNamespace: true } };

    /// <summary>The read-only acquired parameter whose state a write to <paramref name="target"/> changes, if any.</summary>
    private static IParameterSymbol? WrittenThrough(IOperation target, Taint taint, Spawn spawn)
    {
        IOperation stripped = Operations.Strip(target);
        if (stripped is ILocalReferenceOperation refLocal && taint.RefInto(refLocal.Local) is { } into)
        {
            // ref long t = ref r.Total; t = 5;
            return spawn.IsReadOnly(into.Origin) ? into.Origin : null;
        }

        IOperation? container = stripped switch
        {
            IMemberReferenceOperation member => member.Instance,
            IArrayElementReferenceOperation element => element.ArrayReference,
            _ => null,
        };

        // Assigning the alias variable itself (acc = other) changes no state.
        if (container is null)
        {
            return null;
        }

        // A field of a struct member is part of the containing object: walk up through value-typed members.
        IOperation current = Operations.Strip(container);
        while (current.Type?.IsValueType == true && current is IMemberReferenceOperation { Instance: { } outer })
        {
            current = Operations.Strip(outer);
        }

        TaintInfo? info = taint.Of(current) ?? (current is ILocalReferenceOperation local ? taint.RefInto(local.Local) : null);
        return info is not null && spawn.IsReadOnly(info.Origin) ? info.Origin : null;
    }

    private static void Report(System.Action<Diagnostic> report, Spawn spawn, IOperation at, IParameterSymbol origin, string what) =>
        report(Diagnostic.Create(Descriptors.ReadOnlyWrite, at.Syntax.GetLocation(), origin.Name, what,
            spawn.IsCluster
                ? "but a cluster behaviour never writes a read-only copy back: the change is lost"
                : "while other readers may run at the same time"));
}
