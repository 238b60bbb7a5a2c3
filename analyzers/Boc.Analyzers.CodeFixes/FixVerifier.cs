using System.Collections.Generic;
using System.Collections.Immutable;
using System.Globalization;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Diagnostics;

namespace Boc.Analyzers.CodeFixes;

/// <summary>
/// The check the fixes of BOC102, BOC103, BOC202 and BOC204 pass before they are offered: the fixed document has no
/// compile error the original did not have, the diagnostic the fix is for is gone, and no Boc rule reports anything in
/// the changed member that it did not report before (BOC203 included). So a fix never hands the user code that does
/// not build, still races, or waits for a behaviour queued behind itself. The rules run on the one member only.
/// </summary>
internal static class FixVerifier
{
    /// <summary>Marks the member a fix changes, so that the check finds it in the fixed document.</summary>
    private static readonly SyntaxAnnotation s_member = new("Boc.Fix.Member");

    private static readonly ImmutableArray<DiagnosticAnalyzer> s_rules = Rules.All();

    /// <summary>The member (or the top-level statements: the compilation unit) that <paramref name="node"/> is in.</summary>
    public static SyntaxNode MemberOf(SyntaxNode node) =>
        node.AncestorsAndSelf().FirstOrDefault(a => a is BaseMethodDeclarationSyntax or BasePropertyDeclarationSyntax or FieldDeclarationSyntax
            or EventFieldDeclarationSyntax or GlobalStatementSyntax)
        is { } member
            ? member is GlobalStatementSyntax ? member.Parent! : member
            : node.SyntaxTree.GetRoot();

    /// <summary>
    /// Applies a fix's replacements (original node to new node; the originals do not nest) to <paramref name="root"/>,
    /// and marks <paramref name="member"/>, the member of the diagnostic, for <see cref="FixedIfCleanAsync"/>.
    /// </summary>
    public static SyntaxNode Edit(SyntaxNode root, SyntaxNode member, IReadOnlyDictionary<SyntaxNode, SyntaxNode> replacements)
    {
        SyntaxNode tracked = root.TrackNodes(replacements.Keys.Append(member));
        var current = replacements.ToDictionary(r => tracked.GetCurrentNode(r.Key)!, r => r.Value);
        tracked = tracked.ReplaceNodes(current.Keys, (original, _) => current[original]);
        SyntaxNode marked = tracked.GetCurrentNode(member) ?? tracked;
        return marked == tracked ? tracked.WithAdditionalAnnotations(s_member) : tracked.ReplaceNode(marked, marked.WithAdditionalAnnotations(s_member));
    }

    /// <summary>The fixed document if it passes the check, or null.</summary>
    public static async Task<Document?> FixedIfCleanAsync(Document original, SyntaxNode fixedRoot, Diagnostic fixing, CancellationToken cancellationToken)
    {
        Document fixedDocument = original.WithSyntaxRoot(fixedRoot);
        SyntaxNode? originalRoot = await original.GetSyntaxRootAsync(cancellationToken).ConfigureAwait(false);
        SemanticModel? before = await original.GetSemanticModelAsync(cancellationToken).ConfigureAwait(false);
        SemanticModel? after = await fixedDocument.GetSemanticModelAsync(cancellationToken).ConfigureAwait(false);
        SyntaxNode? fixedMember = fixedRoot.GetAnnotatedNodes(s_member).FirstOrDefault();
        if (originalRoot is null || before is null || after is null || fixedMember is null)
        {
            return null;
        }

        if (Errors(after, cancellationToken) > Errors(before, cancellationToken))
        {
            return null;
        }

        SyntaxNode originalMember = MemberOf(originalRoot.FindNode(fixing.Location.SourceSpan, getInnermostNodeForTie: true));
        Dictionary<string, int> reported = await ReportedAsync(original.Project, before, originalMember, cancellationToken).ConfigureAwait(false);
        Dictionary<string, int> remaining = await ReportedAsync(fixedDocument.Project, after, fixedMember, cancellationToken).ConfigureAwait(false);
        string fixedKey = Key(fixing);
        if (Count(remaining, fixedKey) >= Count(reported, fixedKey))
        {
            return null;
        }

        return remaining.All(r => r.Value <= Count(reported, r.Key)) ? fixedDocument : null;
    }

    private static int Errors(SemanticModel model, CancellationToken cancellationToken) =>
        model.GetDiagnostics(cancellationToken: cancellationToken).Count(d => d.Severity == DiagnosticSeverity.Error);

    /// <summary>The Boc diagnostics in <paramref name="member"/>, counted by rule and message (spans move when code is added).</summary>
    private static async Task<Dictionary<string, int>> ReportedAsync(Project project, SemanticModel model, SyntaxNode member, CancellationToken cancellationToken)
    {
        CompilationWithAnalyzers analyzers = model.Compilation.WithAnalyzers(s_rules, project.AnalyzerOptions);
        ImmutableArray<Diagnostic> found = await analyzers.GetAnalyzerSemanticDiagnosticsAsync(model, member.FullSpan, cancellationToken).ConfigureAwait(false);
        var counts = new Dictionary<string, int>();
        foreach (Diagnostic diagnostic in found)
        {
            if (diagnostic.Id.StartsWith("BOC", System.StringComparison.Ordinal) && member.FullSpan.Contains(diagnostic.Location.SourceSpan))
            {
                string key = Key(diagnostic);
                counts[key] = Count(counts, key) + 1;
            }
        }

        return counts;
    }

    private static int Count(Dictionary<string, int> counts, string key) => counts.TryGetValue(key, out int count) ? count : 0;

    private static string Key(Diagnostic diagnostic) => diagnostic.Id + ": " + diagnostic.GetMessage(CultureInfo.InvariantCulture);
}
