using System;
using System.Collections.Generic;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CodeActions;
using Microsoft.CodeAnalysis.CodeFixes;

namespace Boc.Analyzers.CodeFixes;

/// <summary>An edit a fix plans: its title, the member of the diagnostic, the nodes it replaces, and an optional last touch to the whole root.</summary>
internal sealed class VerifiedEdit
{
    public VerifiedEdit(string title, SyntaxNode member, IReadOnlyDictionary<SyntaxNode, SyntaxNode> replacements, Func<SyntaxNode, SyntaxNode>? finish = null)
    {
        Title = title;
        Member = member;
        Replacements = replacements;
        Finish = finish;
    }

    public string Title { get; }

    public SyntaxNode Member { get; }

    public IReadOnlyDictionary<SyntaxNode, SyntaxNode> Replacements { get; }

    /// <summary>Applied to the edited root (adding a using directive, say).</summary>
    public Func<SyntaxNode, SyntaxNode>? Finish { get; }
}

/// <summary>
/// A fix that plans an edit per diagnostic and offers it only if the result passes <see cref="FixVerifier"/>. Each is
/// checked on its own result, so there is no fix-all (fixes in one member would change each other's results).
/// </summary>
public abstract class VerifiedCodeFix : CodeFixProvider
{
    private protected VerifiedCodeFix()
    {
    }

    public sealed override FixAllProvider? GetFixAllProvider() => null;

    public sealed override async Task RegisterCodeFixesAsync(CodeFixContext context)
    {
        if (await FixInputs.GetAsync(context.Document, context.CancellationToken).ConfigureAwait(false) is not { } inputs)
        {
            return;
        }

        foreach (Diagnostic diagnostic in context.Diagnostics)
        {
            SyntaxNode node = inputs.Root.FindNode(diagnostic.Location.SourceSpan, getInnermostNodeForTie: true);
            foreach (VerifiedEdit edit in await PlanAsync(context.Document, inputs, node, context.CancellationToken).ConfigureAwait(false))
            {
                SyntaxNode fixedRoot = FixVerifier.Edit(inputs.Root, edit.Member, edit.Replacements);
                fixedRoot = edit.Finish?.Invoke(fixedRoot) ?? fixedRoot;
                if (await FixVerifier.FixedIfCleanAsync(context.Document, fixedRoot, diagnostic, context.CancellationToken).ConfigureAwait(false) is { } fixedDocument)
                {
                    context.RegisterCodeFix(CodeAction.Create(edit.Title, _ => Task.FromResult(fixedDocument), equivalenceKey: GetType().Name), diagnostic);
                    break;
                }
            }
        }
    }

    /// <summary>The edits that could fix the diagnostic at <paramref name="node"/>, best first: the first that passes is offered.</summary>
    private protected abstract Task<IEnumerable<VerifiedEdit>> PlanAsync(Document document, FixInputs inputs, SyntaxNode node, CancellationToken cancellationToken);
}
