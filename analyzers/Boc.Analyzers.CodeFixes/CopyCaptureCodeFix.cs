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
using Microsoft.CodeAnalysis.Formatting;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers.CodeFixes;

/// <summary>
/// BOC103: give the behaviour its own copy of a captured value: <c>var iCopy = i;</c> just before the statement that
/// spawns it, and the body reads the copy, which nothing writes (a loop body without braces gets them). For a local or
/// parameter of immutable type that the body only reads, raced by a later write or shared by a loop's behaviours.
/// Mutable objects (a copy of the reference still shares the object), writes inside the body (the copy would take
/// them), <c>this</c> and statics are left to the user: keep such state in a cown. Offered only if the result passes
/// <see cref="FixVerifier"/>.
/// </summary>
[ExportCodeFixProvider(LanguageNames.CSharp, Name = nameof(CopyCaptureCodeFix)), Shared]
public sealed class CopyCaptureCodeFix : VerifiedCodeFix
{
    public override ImmutableArray<string> FixableDiagnosticIds { get; } = ImmutableArray.Create(Descriptors.SharedMutableCapture.Id);

    private protected override Task<IEnumerable<VerifiedEdit>> PlanAsync(Document document, FixInputs inputs, SyntaxNode node, CancellationToken cancellationToken)
    {
        IEnumerable<VerifiedEdit> edits = node is IdentifierNameSyntax captured && Plan(captured, inputs.Model, inputs.Types, inputs.Mutability, cancellationToken) is { } plan
            ? new[]
            {
                new VerifiedEdit($"Copy '{captured.Identifier.ValueText}' into a local before the When", FixVerifier.MemberOf(plan.Statement),
                    new Dictionary<SyntaxNode, SyntaxNode> { [plan.Replaced] = plan.Replacement }),
            }
            : Array.Empty<VerifiedEdit>();
        return Task.FromResult(edits);
    }

    private sealed class FixPlan
    {
        public FixPlan(StatementSyntax statement, SyntaxNode replaced, SyntaxNode replacement)
        {
            Statement = statement;
            Replaced = replaced;
            Replacement = replacement;
        }

        public StatementSyntax Statement { get; }

        public SyntaxNode Replaced { get; }

        public SyntaxNode Replacement { get; }
    }

    private static FixPlan? Plan(IdentifierNameSyntax captured, SemanticModel model, BocTypes types, Mutability mutability, CancellationToken cancellationToken)
    {
        ISymbol? symbol = model.GetSymbolInfo(captured, cancellationToken).Symbol;
        ITypeSymbol? type = symbol switch { ILocalSymbol { IsConst: false, RefKind: RefKind.None } l => l.Type, IParameterSymbol { RefKind: RefKind.None } p => p.Type, _ => null };
        if (type is null || mutability.IsMutable(type) || SpawnBody(captured, model, types, cancellationToken) is not { } body
            || model.GetOperation(body, cancellationToken) is not { } function)
        {
            return null;
        }

        // Every use in the body becomes the copy; a write there would then change the copy, not the variable.
        var uses = function.Descendants()
            .Where(o => o is ILocalReferenceOperation or IParameterReferenceOperation && SymbolEqualityComparer.Default.Equals(Operations.ReferencedSymbol(o), symbol))
            .ToList();
        if (uses.Count == 0 || uses.Any(Operations.IsWrite) || uses.Any(u => u.Syntax is not IdentifierNameSyntax))
        {
            return null;
        }

        // The statement that spawns, in the function where the variable lives (no lambda between).
        SyntaxNode spawn = body.Parent!.Parent!.Parent!;
        StatementSyntax? statement = null;
        for (SyntaxNode? node = spawn; node is not null; node = node.Parent)
        {
            if (node is AnonymousFunctionExpressionSyntax or LocalFunctionStatementSyntax)
            {
                return null;
            }

            if (node is StatementSyntax found)
            {
                statement = found;
                break;
            }
        }

        if (statement is null)
        {
            return null;
        }

        string name = AwaitUsingScopeCodeFix.FreeName(model, statement, symbol!.Name + "Copy", cancellationToken);
        StatementSyntax reading = statement.ReplaceNodes(uses.Select(u => u.Syntax), (original, _) => SyntaxFactory.IdentifierName(name).WithTriviaFrom(original));
        // Built with elastic trivia, which the formatter lays out where the fix leaves the layout to it.
        LocalDeclarationStatementSyntax copy = SyntaxFactory.LocalDeclarationStatement(
            SyntaxFactory.VariableDeclaration(SyntaxFactory.IdentifierName("var"))
                .AddVariables(SyntaxFactory.VariableDeclarator(name).WithInitializer(SyntaxFactory.EqualsValueClause(SyntaxFactory.IdentifierName(symbol.Name)))));
        switch (statement.Parent)
        {
            case BlockSyntax block:
            {
                SyntaxTriviaList indentation = SyntaxFactory.TriviaList(statement.GetLeadingTrivia().Where(t => t.IsKind(SyntaxKind.WhitespaceTrivia)).LastOrDefault());
                SyntaxTrivia newLine = statement.GetTrailingTrivia().FirstOrDefault(t => t.IsKind(SyntaxKind.EndOfLineTrivia));
                copy = copy.NormalizeWhitespace().WithLeadingTrivia(statement.GetLeadingTrivia()).WithTrailingTrivia(newLine == default ? SyntaxFactory.ElasticLineFeed : newLine);
                reading = reading.WithLeadingTrivia(indentation);
                return new FixPlan(statement, block, block.WithStatements(block.Statements.ReplaceRange(statement, new StatementSyntax[] { copy, reading })));
            }

            case ForStatementSyntax or ForEachStatementSyntax or WhileStatementSyntax or DoStatementSyntax or IfStatementSyntax or ElseClauseSyntax:
                // An embedded statement: it becomes a block of two, laid out by the formatter.
                return new FixPlan(statement, statement, SyntaxFactory.Block(copy, reading.WithoutTrivia().WithTrailingTrivia(SyntaxFactory.ElasticLineFeed))
                    .WithTriviaFrom(statement)
                    .WithAdditionalAnnotations(Formatter.Annotation));
            default:
                return null;
        }
    }

    /// <summary>The lambda, passed as a spawn's body, that the captured reference is in (the innermost such).</summary>
    private static AnonymousFunctionExpressionSyntax? SpawnBody(SyntaxNode captured, SemanticModel model, BocTypes types, CancellationToken cancellationToken)
    {
        foreach (AnonymousFunctionExpressionSyntax lambda in captured.Ancestors().OfType<AnonymousFunctionExpressionSyntax>())
        {
            if (lambda.Parent is ArgumentSyntax { Parent.Parent: InvocationExpressionSyntax invocation }
                && model.GetSymbolInfo(invocation, cancellationToken).Symbol is IMethodSymbol method && Spawn.IsCandidateName(method.Name)
                && types.IsSpawner(method.ContainingType))
            {
                return lambda;
            }
        }

        return null;
    }
}
