using System.Collections.Immutable;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CodeFixes;

namespace Boc.Analyzers.CodeFixes;

/// <summary>
/// Fix all for BOC101. One fix rewrites a whole inner <c>When</c> (a new cown argument, a new lambda parameter, every
/// use renamed), so two fixes in one document can touch the same call: two outer cowns used in one body, or a spawn
/// nested in another that is fixed too. Merging independently computed edits (the batch fixer) would drop or garble
/// such fixes. Instead each document is fixed one diagnostic at a time: the diagnostics' nodes are marked, and each
/// step plans the fix of the first marked node on the current text with a fresh semantic model, then applies it.
/// </summary>
public sealed partial class AcquireOuterCownCodeFix
{
    private static readonly FixAllProvider s_fixAll = FixAllProvider.Create(FixDocumentAsync);

    private static readonly SyntaxAnnotation s_pending = new("Boc.BOC101.Pending");

    private static async Task<Document?> FixDocumentAsync(FixAllContext context, Document document, ImmutableArray<Diagnostic> diagnostics)
    {
        CancellationToken cancellationToken = context.CancellationToken;
        if (diagnostics.IsEmpty || await document.GetSyntaxRootAsync(cancellationToken).ConfigureAwait(false) is not { } root)
        {
            return document;
        }

        var marked = diagnostics
            .Select(d => root.FindNode(d.Location.SourceSpan, getInnermostNodeForTie: true))
            .Distinct()
            .ToList();
        Document current = document.WithSyntaxRoot(root.ReplaceNodes(marked, (_, rewritten) => rewritten.WithAdditionalAnnotations(s_pending)));

        // Each step removes at least one mark (fixed, or found unfixable), so this bound is never the reason to stop.
        for (int step = 0; step <= marked.Count; step++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            SyntaxNode currentRoot = (await current.GetSyntaxRootAsync(cancellationToken).ConfigureAwait(false))!;
            SyntaxNode? node = currentRoot.GetAnnotatedNodes(s_pending).FirstOrDefault();
            if (node is null)
            {
                break;
            }

            // The project's shareable-types configuration decides what the analysis calls mutable (see FixInputs).
            FixInputs? inputs = await FixInputs.GetAsync(current, cancellationToken).ConfigureAwait(false);
            FixPlan? plan = inputs is not null ? Plan(node, inputs.Model, inputs.Types, inputs.Mutability, cancellationToken) : null;
            SyntaxNode next = plan is null ? currentRoot : Apply(currentRoot, plan);
            // The fix replaces the marked use; if it did not (or there was no fix), unmark it so the next step moves on.
            if (next.GetAnnotatedNodes(s_pending).Count() >= currentRoot.GetAnnotatedNodes(s_pending).Count())
            {
                SyntaxNode stillMarked = next.GetAnnotatedNodes(s_pending).First();
                next = next.ReplaceNode(stillMarked, stillMarked.WithoutAnnotations(s_pending));
            }

            current = current.WithSyntaxRoot(next);
        }

        SyntaxNode finalRoot = (await current.GetSyntaxRootAsync(cancellationToken).ConfigureAwait(false))!;
        return current.WithSyntaxRoot(finalRoot.ReplaceNodes(finalRoot.GetAnnotatedNodes(s_pending), (_, rewritten) => rewritten.WithoutAnnotations(s_pending)));
    }
}
