using System.Collections.Generic;
using System.Collections.Immutable;
using System.Composition;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Boc.Analyzers;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CodeActions;
using Microsoft.CodeAnalysis.CodeFixes;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers.CodeFixes;

/// <summary>
/// BOC101: acquire the enclosing behaviour's cown in the inner <c>When</c> and use the new parameter instead of the
/// outer state (or its whole-object aliases). Not offered where the enclosing behaviour (which holds that cown) waits
/// for the inner one: the inner behaviour would be queued behind the body that waits for it, and never run
/// (<see cref="CaptureOuterValueCodeFix"/> is the fix there).
/// </summary>
[ExportCodeFixProvider(LanguageNames.CSharp, Name = nameof(AcquireOuterCownCodeFix)), Shared]
public sealed partial class AcquireOuterCownCodeFix : CodeFixProvider
{
    private const int MaxSingleCowns = 8;

    public override ImmutableArray<string> FixableDiagnosticIds { get; } = ImmutableArray.Create(Descriptors.NonAcquiredState.Id);

    // Each fix rewrites a whole When call, so fixes in one document can overlap: they are applied one at a time (see
    // AcquireOuterCownCodeFix.FixAll.cs).
    public override FixAllProvider? GetFixAllProvider() => s_fixAll;

    public override async Task RegisterCodeFixesAsync(CodeFixContext context)
    {
        if (await FixInputs.GetAsync(context.Document, context.CancellationToken).ConfigureAwait(false) is not { } inputs)
        {
            return;
        }

        SyntaxNode root = inputs.Root;
        foreach (Diagnostic diagnostic in context.Diagnostics)
        {
            SyntaxNode node = root.FindNode(diagnostic.Location.SourceSpan, getInnermostNodeForTie: true);
            if (Plan(node, inputs.Model, inputs.Types, inputs.Mutability, context.CancellationToken) is not { } plan)
            {
                continue;
            }

            context.RegisterCodeFix(
                CodeAction.Create(
                    $"Acquire '{plan.CownExpression}' in this When",
                    ct => Task.FromResult(context.Document.WithSyntaxRoot(Apply(root, plan))),
                    equivalenceKey: nameof(AcquireOuterCownCodeFix)),
                diagnostic);
        }
    }

    private sealed class FixPlan
    {
        public FixPlan(InvocationExpressionSyntax invocation, AnonymousFunctionExpressionSyntax lambda, int cownCount,
            ArgumentSyntax lastCown, ExpressionSyntax cownExpression, string name, TypeSyntax type, List<SyntaxNode> uses)
        {
            Invocation = invocation;
            Lambda = lambda;
            CownCount = cownCount;
            LastCown = lastCown;
            CownExpression = cownExpression;
            Name = name;
            Type = type;
            Uses = uses;
        }

        public InvocationExpressionSyntax Invocation { get; }

        public AnonymousFunctionExpressionSyntax Lambda { get; }

        public int CownCount { get; }

        public ArgumentSyntax LastCown { get; }

        public ExpressionSyntax CownExpression { get; }

        public string Name { get; }

        public TypeSyntax Type { get; }

        public List<SyntaxNode> Uses { get; }
    }

    private static FixPlan? Plan(SyntaxNode node, SemanticModel model, BocTypes types, Mutability mutability, CancellationToken cancellationToken)
    {
        if (FixContext.Find(node, model, types, mutability, cancellationToken) is not { } found)
        {
            return null;
        }

        (BehaviourIndex index, List<NonAcquiredStateAnalyzer.Finding> findings, NonAcquiredStateAnalyzer.Finding finding) = found;

        // The enclosing behaviour holds the cown; if it waits for the inner behaviour, acquiring the cown there would
        // make it wait for a behaviour queued behind itself.
        if (Waits.WaitsFor(index, finding.Outer, finding.Inner))
        {
            return null;
        }

        Spawn inner = finding.Inner;
        if (inner.IsCluster || finding.Outer.IsCluster)
        {
            // A cluster behaviour acquires cluster cowns only, and a local one local cowns only.
            return null;
        }

        IParameterSymbol origin = finding.Taint.Origin;
        CownArgument? outerCown = finding.Outer.CownFor(origin);
        if (inner.Body?.Function?.Syntax is not AnonymousFunctionExpressionSyntax lambda
            || lambda is AnonymousMethodExpressionSyntax
            || inner.Invocation.Syntax is not InvocationExpressionSyntax invocation
            || inner.Cowns.Length == 0 || inner.Cowns.Length >= MaxSingleCowns || inner.Cowns.Any(c => c.IsSet)
            || outerCown is null || outerCown.IsSet
            || outerCown.Argument.Value.Syntax is not ExpressionSyntax cownExpression || !IsSimple(cownExpression)
            || inner.Cowns[inner.Cowns.Length - 1].Argument.Syntax is not ArgumentSyntax lastCown)
        {
            return null;
        }

        // Every use of this cown's state in the body must become the new parameter; a part of the state (an alias of a
        // member) cannot be rewritten mechanically.
        var sameOrigin = findings.Where(f => f.Inner == inner && SymbolEqualityComparer.Default.Equals(f.Taint.Origin, origin)).ToList();
        if (sameOrigin.Any(f => !f.Taint.Whole || f.Use is not (ILocalReferenceOperation or IParameterReferenceOperation)))
        {
            return null;
        }

        var taken = new HashSet<string>(lambda.DescendantNodesAndSelf()
            .Select(n => n switch
            {
                ParameterSyntax p => p.Identifier.ValueText,
                VariableDeclaratorSyntax v => v.Identifier.ValueText,
                SingleVariableDesignationSyntax d => d.Identifier.ValueText,
                _ => null,
            })
            .Where(n => n is not null)!);
        string name = origin.Name;
        for (int i = 2; taken.Contains(name); i++)
        {
            name = origin.Name + i;
        }

        TypeSyntax type = SyntaxFactory.ParseTypeName(origin.Type.ToMinimalDisplayString(model, lambda.SpanStart));
        return new FixPlan(invocation, lambda, inner.Cowns.Length, lastCown, cownExpression, name, type,
            sameOrigin.Select(f => f.Use.Syntax).ToList());
    }

    /// <summary>Expressions that are safe to evaluate again at the inner spawn: names, member and element access, Read(x).</summary>
    private static bool IsSimple(ExpressionSyntax expression) => expression switch
    {
        IdentifierNameSyntax or ThisExpressionSyntax or LiteralExpressionSyntax => true,
        MemberAccessExpressionSyntax member => IsSimple(member.Expression),
        ElementAccessExpressionSyntax element => IsSimple(element.Expression) && element.ArgumentList.Arguments.All(a => IsSimple(a.Expression)),
        InvocationExpressionSyntax { Expression: IdentifierNameSyntax { Identifier.ValueText: "Read" } or MemberAccessExpressionSyntax { Name.Identifier.ValueText: "Read" } } read
            => read.ArgumentList.Arguments.Count == 1 && IsSimple(read.ArgumentList.Arguments[0].Expression),
        _ => false,
    };

    private static SyntaxNode Apply(SyntaxNode root, FixPlan plan)
    {
        AnonymousFunctionExpressionSyntax lambda = plan.Lambda.ReplaceNodes(
            plan.Uses.Where(u => plan.Lambda.Span.Contains(u.Span)),
            (original, _) => SyntaxFactory.IdentifierName(plan.Name).WithTriviaFrom(original));
        lambda = AddParameter(lambda, plan);

        InvocationExpressionSyntax invocation = plan.Invocation.ReplaceNode(plan.Lambda, lambda);
        int at = plan.Invocation.ArgumentList.Arguments.IndexOf(plan.LastCown) + 1;
        ArgumentSyntax cown = SyntaxFactory.Argument(plan.CownExpression.WithoutTrivia());
        invocation = invocation.WithArgumentList(invocation.ArgumentList.WithArguments(InsertAt(invocation.ArgumentList.Arguments, at, cown)));
        return root.ReplaceNode(plan.Invocation, invocation);
    }

    private static AnonymousFunctionExpressionSyntax AddParameter(AnonymousFunctionExpressionSyntax lambda, FixPlan plan)
    {
        ParameterSyntax parameter = SyntaxFactory.Parameter(SyntaxFactory.Identifier(plan.Name));
        switch (lambda)
        {
            case SimpleLambdaExpressionSyntax simple:
            {
                var parameters = new List<ParameterSyntax> { simple.Parameter.WithoutTrivia() };
                parameters.Insert(plan.CownCount, parameter);
                ParameterListSyntax list = SyntaxFactory.ParameterList(CommaSeparated(parameters));
                return SyntaxFactory.ParenthesizedLambdaExpression(simple.Modifiers, list, simple.Block, simple.ExpressionBody)
                    .WithArrowToken(simple.ArrowToken)
                    .WithTriviaFrom(simple);
            }

            case ParenthesizedLambdaExpressionSyntax parenthesized:
            {
                SeparatedSyntaxList<ParameterSyntax> parameters = parenthesized.ParameterList.Parameters;
                if (parameters.Any(p => p.Type is not null))
                {
                    parameter = parameter.WithType(plan.Type.WithTrailingTrivia(SyntaxFactory.Space));
                }

                return parenthesized.WithParameterList(parenthesized.ParameterList.WithParameters(InsertAt(parameters, plan.CownCount, parameter)));
            }

            default:
                return lambda;
        }
    }

    private static SeparatedSyntaxList<T> CommaSeparated<T>(List<T> nodes)
        where T : SyntaxNode =>
        SyntaxFactory.SeparatedList(nodes, Enumerable.Repeat(Comma(), System.Math.Max(0, nodes.Count - 1)));

    /// <summary>Inserts a node, keeping the existing separators (and their line breaks) as they are.</summary>
    private static SeparatedSyntaxList<T> InsertAt<T>(SeparatedSyntaxList<T> list, int index, T node)
        where T : SyntaxNode
    {
        var items = list.GetWithSeparators().ToList();
        if (index >= list.Count)
        {
            items.Add(Comma());
            items.Add(node);
        }
        else
        {
            items.Insert(2 * index, node);
            items.Insert((2 * index) + 1, Comma());
        }

        return SyntaxFactory.SeparatedList<T>(new SyntaxNodeOrTokenList(items));
    }

    private static SyntaxToken Comma() => SyntaxFactory.Token(SyntaxKind.CommaToken).WithTrailingTrivia(SyntaxFactory.Space);
}
