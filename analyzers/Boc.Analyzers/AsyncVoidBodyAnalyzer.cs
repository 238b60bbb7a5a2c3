using System.Collections.Generic;
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>
/// BOC202: an <c>async void</c> function bound to a body parameter of type <c>Action&lt;...&gt;</c>. A lambda written in
/// place cannot get here (C# binds <c>async x =&gt; ...</c> to the <c>Func&lt;..., Task&gt;</c> overload), but a method group of
/// an <c>async void</c> method, an explicitly typed <c>Action</c> delegate (<c>new Action&lt;T&gt;(async ...)</c>, a cast,
/// or an <c>Action</c> local assigned an async lambda) can.
/// </summary>
[DiagnosticAnalyzer(LanguageNames.CSharp)]
public sealed class AsyncVoidBodyAnalyzer : BocAnalyzer
{
    public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics { get; } = ImmutableArray.Create(Descriptors.AsyncVoidBody);

    private protected override void Analyze(BehaviourIndex index, System.Action<Diagnostic> report)
    {
        foreach (Spawn spawn in index.Spawns)
        {
            if (spawn.BodyArgument.Parameter?.Type is not INamedTypeSymbol { DelegateInvokeMethod: { ReturnsVoid: true } })
            {
                continue;
            }

            IOperation value = Operations.Strip(spawn.BodyArgument.Value);
            IEnumerable<IOperation> candidates = value is ILocalReferenceOperation local
                && index.LocalValues.TryGetValue(local.Local, out List<IOperation>? values)
                ? values
                : new[] { value };
            foreach (IOperation candidate in candidates.SelectMany(Branches))
            {
                if (AsyncVoidName(candidate, index.Types) is { } name)
                {
                    report(Diagnostic.Create(Descriptors.AsyncVoidBody, spawn.BodyArgument.Syntax.GetLocation(), name));
                    break;
                }
            }
        }
    }

    /// <summary>The delegates a value may be: both branches of <c>?:</c> and <c>??</c>, every arm of a switch expression.</summary>
    private static IEnumerable<IOperation> Branches(IOperation value)
    {
        IOperation stripped = Operations.Strip(value);
        IEnumerable<IOperation> parts = stripped switch
        {
            IConditionalOperation conditional when conditional.WhenFalse is { } whenFalse => new[] { conditional.WhenTrue, whenFalse },
            ICoalesceOperation coalesce => new[] { coalesce.Value, coalesce.WhenNull },
            ISwitchExpressionOperation switchExpression => switchExpression.Arms.Select(a => a.Value),
            _ => new[] { stripped },
        };
        return parts.Count() == 1 && parts.First() == stripped ? parts : parts.SelectMany(Branches);
    }

    private static string? AsyncVoidName(IOperation value, BocTypes types)
    {
        IOperation stripped = Operations.Strip(value);
        if (stripped is IDelegateCreationOperation creation)
        {
            stripped = Operations.Strip(creation.Target);
        }

        return stripped switch
        {
            IAnonymousFunctionOperation { Symbol: { IsAsync: true, ReturnsVoid: true } } lambda => Operations.Quote(lambda.Syntax),
            IMethodReferenceOperation { Method: { ReturnsVoid: true } method } when method.IsAsync
                || method.GetAttributes().Any(a => SymbolEqualityComparer.Default.Equals(a.AttributeClass, types.AsyncStateMachineAttribute)) => method.Name,
            _ => null,
        };
    }
}
