using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>
/// BOC204: a <c>BeginScope(...)</c> whose scope is never awaited or disposed: the call is dropped (<c>BeginScope();</c>,
/// <c>_ = BeginScope();</c>), or its scope is kept in a local that is never ended in the code that holds it. A scope is
/// ended by <c>await using</c>, or by a <c>FinishAsync()</c>/<c>DisposeAsync()</c> whose task is not dropped; a scope
/// returned, passed to a method, stored in a field or another variable, or captured by a lambda is handed to code that
/// may end it, and is not reported. Unlike the other rules, this one looks at every member, not only those that spawn:
/// a scope is often begun in one method and filled by the methods it calls.
/// </summary>
[DiagnosticAnalyzer(LanguageNames.CSharp)]
public sealed class UnfinishedScopeAnalyzer : BocAnalyzer
{
    public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics { get; } = ImmutableArray.Create(Descriptors.UnfinishedScope);

    // Every member's BeginScope calls, from the walk that indexes its block (see BocAnalyzer), not a callback per call.
    private protected override void AnalyzeScopes(ImmutableArray<IInvocationOperation> beginScopes, System.Action<Diagnostic> report)
    {
        foreach (IInvocationOperation invocation in beginScopes)
        {
            if (!IsEnded(invocation))
            {
                report(Diagnostic.Create(Descriptors.UnfinishedScope, invocation.Syntax.GetLocation(), Operations.Quote(invocation.Syntax)));
            }
        }
    }

    /// <summary>Whether the scope <paramref name="begin"/> returns is ended, or handed to code that may end it.</summary>
    internal static bool IsEnded(IInvocationOperation begin)
    {
        IOperation top = Up(begin);
        switch (top.Parent)
        {
            case IExpressionStatementOperation:
            case ISimpleAssignmentOperation { Target: IDiscardOperation }:
                return false;
            case IVariableInitializerOperation { Parent: IVariableDeclaratorOperation declarator }:
                return ScopeWaits.AwaitUsingEnd(declarator) is not null || IsLocalEnded(declarator.Symbol, declarator);
            case ISimpleAssignmentOperation { Target: ILocalReferenceOperation target } assignment when assignment.Value == top:
                return IsLocalEnded(target.Local, assignment);
            default:
                return EndsOrHandsOn(top);
        }
    }

    /// <summary>Whether a use of the scope (the call itself, or a reference to the local holding it) ends it or hands it on.</summary>
    private static bool EndsOrHandsOn(IOperation use)
    {
        switch (use.Parent)
        {
            case IInvocationOperation call when call.Instance == use:
                // FinishAsync/DisposeAsync end the block; their task carries the outcome, so it must not be dropped.
                return call.TargetMethod.Name is "FinishAsync" or "DisposeAsync" && !IsDropped(call);
            case IPropertyReferenceOperation:
            case IExpressionStatementOperation:
            case ISimpleAssignmentOperation { Target: IDiscardOperation }:
            case IBinaryOperation or IIsPatternOperation or IIsTypeOperation:
                return false;
            default:
                // using (scope), an argument, a return, a store, a tuple or collection: ended or handed on.
                return true;
        }
    }

    /// <summary>Whether a use of the local holding the scope, in the code that declares it, ends it or hands it on.</summary>
    private static bool IsLocalEnded(ILocalSymbol local, IOperation declaration)
    {
        IOperation root = declaration;
        while (root.Parent is not null)
        {
            root = root.Parent;
        }

        IOperation? owner = Operations.EnclosingFunction(declaration);
        foreach (IOperation operation in root.Descendants())
        {
            if (operation is not ILocalReferenceOperation reference || !SymbolEqualityComparer.Default.Equals(reference.Local, local)
                || Operations.IsWrite(reference))
            {
                continue;
            }

            // Captured by a lambda or local function, which may end it whenever it runs.
            if (Operations.EnclosingFunction(reference) != owner || EndsOrHandsOn(Up(reference)))
            {
                return true;
            }
        }

        return false;
    }

    private static bool IsDropped(IOperation task)
    {
        IOperation top = task;
        while (top.Parent is IConversionOperation or IInvocationOperation { TargetMethod.Name: "ConfigureAwait" or "AsTask" or "Preserve" })
        {
            top = top.Parent;
        }

        return top.Parent is IExpressionStatementOperation or ISimpleAssignmentOperation { Target: IDiscardOperation };
    }

    private static IOperation Up(IOperation operation)
    {
        IOperation top = operation;
        while (top.Parent is IConversionOperation)
        {
            top = top.Parent;
        }

        return top;
    }
}
