using System.Collections.Generic;
using System.Collections.Immutable;
using System.Linq;
using System.Threading;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace Boc.Analyzers.CodeFixes;

/// <summary>The member a BOC101 diagnostic is in, indexed as the analyzer indexes it, and the finding at the diagnostic.</summary>
internal static class FixContext
{
    public static (BehaviourIndex Index, List<NonAcquiredStateAnalyzer.Finding> Findings, NonAcquiredStateAnalyzer.Finding Finding)? Find(
        SyntaxNode node, SemanticModel model, BocTypes types, Mutability mutability, CancellationToken cancellationToken)
    {
        IOperation? block = node.AncestorsAndSelf()
            .Where(n => n is BaseMethodDeclarationSyntax or AccessorDeclarationSyntax or ArrowExpressionClauseSyntax or CompilationUnitSyntax)
            .Select(n => model.GetOperation(n, cancellationToken))
            .FirstOrDefault(o => o is not null);
        if (block is null || BehaviourIndex.Build(ImmutableArray.Create(block), types, mutability) is not { } index)
        {
            return null;
        }

        List<NonAcquiredStateAnalyzer.Finding> findings = NonAcquiredStateAnalyzer.Find(index).ToList();
        NonAcquiredStateAnalyzer.Finding? finding = findings.FirstOrDefault(f => f.Use.Syntax.Span == node.Span);
        return finding is null ? null : (index, findings, finding);
    }
}
