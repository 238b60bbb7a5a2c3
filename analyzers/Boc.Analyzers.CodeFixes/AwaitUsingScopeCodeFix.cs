using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Composition;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CodeFixes;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace Boc.Analyzers.CodeFixes;

/// <summary>
/// BOC204: end the scope with the block it is begun in: <c>runtime.BeginScope();</c> and <c>_ = runtime.BeginScope();</c>
/// become <c>await using var scope = runtime.BeginScope();</c>, and <c>var scope = runtime.BeginScope();</c> gets
/// <c>await using</c>. Offered where the statement sits directly in a block of an <c>async</c> method, local function or
/// lambda (or in top-level statements), and only if the result passes <see cref="FixVerifier"/>: inside a behaviour body
/// that holds a cown a member of the scope needs, the end of the block would wait for a behaviour queued behind the
/// body (BOC203), so the fix is not offered there.
/// </summary>
[ExportCodeFixProvider(LanguageNames.CSharp, Name = nameof(AwaitUsingScopeCodeFix)), Shared]
public sealed class AwaitUsingScopeCodeFix : VerifiedCodeFix
{
    public override ImmutableArray<string> FixableDiagnosticIds { get; } = ImmutableArray.Create(Descriptors.UnfinishedScope.Id);

    private protected override Task<IEnumerable<VerifiedEdit>> PlanAsync(Document document, FixInputs inputs, SyntaxNode node, CancellationToken cancellationToken)
    {
        IEnumerable<VerifiedEdit> edits = node is ExpressionSyntax begin && Rewrite(begin, inputs.Model, cancellationToken) is { } rewrite
            ? new[] { new VerifiedEdit("End the scope with 'await using'", FixVerifier.MemberOf(begin), new Dictionary<SyntaxNode, SyntaxNode> { [rewrite.Old] = rewrite.New }) }
            : Array.Empty<VerifiedEdit>();
        return Task.FromResult(edits);
    }

    /// <summary>The statement that begins the scope, and what replaces it, if the fix applies there.</summary>
    private static (StatementSyntax Old, StatementSyntax New)? Rewrite(ExpressionSyntax begin, SemanticModel model, CancellationToken cancellationToken)
    {
        SyntaxNode? up = begin.Parent;
        if (up is AssignmentExpressionSyntax { Left: IdentifierNameSyntax { Identifier.ValueText: "_" } } discard && discard.Right == begin)
        {
            up = discard.Parent;
        }

        StatementSyntax? statement = up switch
        {
            ExpressionStatementSyntax expression => expression,
            EqualsValueClauseSyntax { Parent: VariableDeclaratorSyntax { Parent: VariableDeclarationSyntax { Variables.Count: 1, Parent: LocalDeclarationStatementSyntax local } } }
                when local.UsingKeyword == default && !local.IsConst => local,
            _ => null,
        };
        if (statement is null || statement.Parent is not (BlockSyntax or GlobalStatementSyntax) || !InAsyncCode(statement))
        {
            return null;
        }

        SyntaxToken awaitKeyword = SyntaxFactory.Token(SyntaxKind.AwaitKeyword).WithTrailingTrivia(SyntaxFactory.Space);
        SyntaxToken usingKeyword = SyntaxFactory.Token(SyntaxKind.UsingKeyword).WithTrailingTrivia(SyntaxFactory.Space);
        if (statement is LocalDeclarationStatementSyntax declaration)
        {
            LocalDeclarationStatementSyntax withUsing = declaration.WithoutLeadingTrivia()
                .WithAwaitKeyword(awaitKeyword.WithLeadingTrivia(declaration.GetLeadingTrivia()))
                .WithUsingKeyword(usingKeyword);
            return (declaration, withUsing);
        }

        string name = FreeName(model, statement, "scope", cancellationToken);
        LocalDeclarationStatementSyntax created = SyntaxFactory.LocalDeclarationStatement(
                SyntaxFactory.VariableDeclaration(
                    SyntaxFactory.IdentifierName("var").WithTrailingTrivia(SyntaxFactory.Space),
                    SyntaxFactory.SingletonSeparatedList(SyntaxFactory.VariableDeclarator(SyntaxFactory.Identifier(name).WithTrailingTrivia(SyntaxFactory.Space))
                        .WithInitializer(SyntaxFactory.EqualsValueClause(
                            SyntaxFactory.Token(SyntaxKind.EqualsToken).WithTrailingTrivia(SyntaxFactory.Space), begin.WithoutTrivia())))))
            .WithAwaitKeyword(awaitKeyword)
            .WithUsingKeyword(usingKeyword)
            .WithLeadingTrivia(statement.GetLeadingTrivia())
            .WithTrailingTrivia(statement.GetTrailingTrivia());
        return (statement, created);
    }

    private static bool InAsyncCode(SyntaxNode statement)
    {
        foreach (SyntaxNode node in statement.Ancestors())
        {
            switch (node)
            {
                case AnonymousFunctionExpressionSyntax lambda:
                    return lambda.AsyncKeyword != default;
                case LocalFunctionStatementSyntax local:
                    return local.Modifiers.Any(SyntaxKind.AsyncKeyword);
                case MethodDeclarationSyntax method:
                    return method.Modifiers.Any(SyntaxKind.AsyncKeyword);
                case BaseMethodDeclarationSyntax or AccessorDeclarationSyntax:
                    return false;
                case CompilationUnitSyntax:
                    // Top-level statements: an await makes the program's entry point async.
                    return true;
            }
        }

        return false;
    }

    /// <summary><paramref name="wanted"/>, or wanted2, wanted3, …: the first name that nothing in scope or in the enclosing member uses.</summary>
    internal static string FreeName(SemanticModel model, SyntaxNode at, string wanted, CancellationToken cancellationToken)
    {
        var taken = new HashSet<string>(model.LookupSymbols(at.SpanStart).Select(s => s.Name));
        SyntaxNode scope = FixVerifier.MemberOf(at);
        foreach (SyntaxToken token in scope.DescendantTokens())
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (token.IsKind(SyntaxKind.IdentifierToken))
            {
                taken.Add(token.ValueText);
            }
        }

        string name = wanted;
        for (int i = 2; taken.Contains(name); i++)
        {
            name = wanted + i.ToString(System.Globalization.CultureInfo.InvariantCulture);
        }

        return name;
    }
}
