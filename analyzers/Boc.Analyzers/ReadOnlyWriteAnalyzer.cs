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

    internal static bool IsMutatingName(string name) =>
        !s_readingExceptions.Contains(name)
        && s_mutatingVerbs.Any(verb => name.StartsWith(verb, System.StringComparison.Ordinal)
            && (name.Length == verb.Length || !char.IsLower(name[verb.Length])));

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
                        Report(report, assignment.Target, origin, "this assignment");
                        break;
                    case IIncrementOrDecrementOperation increment when WrittenThrough(increment.Target, all, spawn) is { } origin:
                        Report(report, increment.Target, origin, "this increment");
                        break;
                    case IDeconstructionAssignmentOperation deconstruction:
                        foreach (IOperation target in deconstruction.Target.DescendantsAndSelf().Where(t => t.Parent is ITupleOperation))
                        {
                            if (WrittenThrough(target, all, spawn) is { } origin)
                            {
                                Report(report, target, origin, "this deconstruction");
                            }
                        }

                        break;
                    case IArgumentOperation { Parameter.RefKind: RefKind.Ref or RefKind.Out } argument
                        when WrittenThrough(argument.Value, all, spawn) is { } origin:
                        Report(report, argument, origin, "passing it by ref");
                        break;
                    case IInvocationOperation invocation when IsMutatingName(invocation.TargetMethod.Name):
                        IOperation? receiver = invocation.Instance
                            ?? (invocation.TargetMethod.IsExtensionMethod && invocation.Arguments.Length > 0 ? invocation.Arguments[0].Value : null);
                        if (receiver is not null && all.Of(receiver) is { } taint && spawn.IsReadOnly(taint.Origin))
                        {
                            Report(report, invocation, taint.Origin, $"the call to '{invocation.TargetMethod.Name}'");
                        }

                        break;
                }
            }
        }
    }

    /// <summary>The read-only acquired parameter whose state a write to <paramref name="target"/> changes, if any.</summary>
    private static IParameterSymbol? WrittenThrough(IOperation target, Taint taint, Spawn spawn)
    {
        IOperation stripped = Operations.Strip(target);
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

        TaintInfo? info = taint.Of(current);
        return info is not null && spawn.IsReadOnly(info.Origin) ? info.Origin : null;
    }

    private static void Report(System.Action<Diagnostic> report, IOperation at, IParameterSymbol origin, string what) =>
        report(Diagnostic.Create(Descriptors.ReadOnlyWrite, at.Syntax.GetLocation(), origin.Name, what));
}
