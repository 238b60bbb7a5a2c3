using System.Collections.Generic;
using System.Collections.Immutable;
using System.Composition;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CodeActions;
using Microsoft.CodeAnalysis.CodeFixes;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers.CodeFixes;

/// <summary>
/// BOC101, and BOC105 for a cluster body's copy: read the values the inner body needs from the outer state in the
/// enclosing body, where the cown is held, and capture the values instead (<c>var balance = s.Balance; When(dst, d =&gt;
/// d.Balance += balance);</c>). This is the fix that stays correct when the enclosing behaviour waits for the inner one,
/// where acquiring the cown would deadlock. Offered when every use of the enclosing behaviour's state in the inner body reads a value of immutable type
/// through fields and properties (<c>s.Balance</c>, <c>s.Log.Count</c>, <c>a.Details.Name</c>) and the inner
/// <c>When</c> sits in a statement of the enclosing body (or is its expression body) that runs it exactly once.
/// </summary>
[ExportCodeFixProvider(LanguageNames.CSharp, Name = nameof(CaptureOuterValueCodeFix)), Shared]
public sealed class CaptureOuterValueCodeFix : CodeFixProvider
{
    // BOC105 too, where a cluster body's copy is used by another behaviour: reading the value in the cluster body, where
    // the copy is the cown's state, is the same fix.
    public override ImmutableArray<string> FixableDiagnosticIds { get; } = ImmutableArray.Create(Descriptors.NonAcquiredState.Id, Descriptors.ClusterCopyKept.Id);

    // Each fix rewrites the enclosing body around one inner When; batching could overlap, so no fix-all.
    public override FixAllProvider? GetFixAllProvider() => null;

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

            string values = string.Join(", ", plan.Captures.Select(c => $"'{c.Expression}'"));
            context.RegisterCodeFix(
                CodeAction.Create(
                    plan.Captures.Count == 1 ? $"Capture the value of {values} before this When" : $"Capture the values of {values} before this When",
                    ct => Task.FromResult(context.Document.WithSyntaxRoot(Apply(root, plan))),
                    equivalenceKey: nameof(CaptureOuterValueCodeFix)),
                diagnostic);
        }
    }

    private sealed class Capture
    {
        public Capture(string name, ExpressionSyntax expression, List<SyntaxNode> uses)
        {
            Name = name;
            Expression = expression;
            Uses = uses;
        }

        public string Name { get; }

        /// <summary>The first use, copied into the new local's initializer.</summary>
        public ExpressionSyntax Expression { get; }

        public List<SyntaxNode> Uses { get; }
    }

    private sealed class FixPlan
    {
        public FixPlan(List<Capture> captures, StatementSyntax? before, AnonymousFunctionExpressionSyntax? expressionBodied, bool returns)
        {
            Captures = captures;
            Before = before;
            ExpressionBodied = expressionBodied;
            Returns = returns;
        }

        public List<Capture> Captures { get; }

        /// <summary>The statement of the enclosing body to put the new locals before, or null when <see cref="ExpressionBodied"/> is set.</summary>
        public StatementSyntax? Before { get; }

        /// <summary>The enclosing lambda, when its expression body holds the inner When and becomes a block.</summary>
        public AnonymousFunctionExpressionSyntax? ExpressionBodied { get; }

        /// <summary>Whether the block made from the expression body returns the expression.</summary>
        public bool Returns { get; }
    }

    private static FixPlan? Plan(SyntaxNode node, SemanticModel model, BocTypes types, Mutability mutability, CancellationToken cancellationToken)
    {
        if (FixContext.Find(node, model, types, mutability, cancellationToken) is not { } found)
        {
            return null;
        }

        (_, List<NonAcquiredStateAnalyzer.Finding> findings, NonAcquiredStateAnalyzer.Finding finding) = found;
        Spawn inner = finding.Inner;
        Spawn outer = finding.Outer;
        if (outer.Body?.Function is not IAnonymousFunctionOperation { Syntax: AnonymousFunctionExpressionSyntax outerLambda } outerFunction
            || Operations.EnclosingFunction(inner.Invocation) != outerFunction)
        {
            return null;
        }

        // Every use of the enclosing behaviour's state in this inner body becomes a value read in the enclosing body (or
        // the fix is not offered). State of behaviours further out cannot be read there either; its uses are left to
        // their own diagnostics.
        var byText = new Dictionary<string, (ExpressionSyntax Expression, List<SyntaxNode> Uses, string BaseName)>();
        foreach (NonAcquiredStateAnalyzer.Finding use in findings.Where(f => f.Inner == inner && f.Outer == outer))
        {
            if (CapturedValue(use.Use, mutability) is not { } value
                || value.Syntax is not ExpressionSyntax expression)
            {
                return null;
            }

            string key = string.Concat(expression.ToString().Where(c => !char.IsWhiteSpace(c)));
            if (!byText.TryGetValue(key, out var entry))
            {
                byText[key] = entry = (expression, new List<SyntaxNode>(), BaseName(value));
            }

            entry.Uses.Add(expression);
        }

        if (byText.Count == 0 || InsertionPoint(inner.Invocation.Syntax, outerLambda) is not { } insertion)
        {
            return null;
        }

        var taken = new HashSet<string>(model.LookupSymbols(insertion.Position).Select(s => s.Name));
        taken.UnionWith(DeclaredNames(outerLambda));
        var captures = new List<Capture>();
        foreach ((ExpressionSyntax expression, List<SyntaxNode> uses, string baseName) in byText.Values.OrderBy(v => v.Expression.SpanStart))
        {
            string name = baseName;
            for (int i = 2; taken.Contains(name); i++)
            {
                name = baseName + i;
            }

            taken.Add(name);
            captures.Add(new Capture(name, expression, uses));
        }

        bool returns = !outerFunction.Symbol.ReturnsVoid
            && !(outerFunction.Symbol.IsAsync && outerFunction.Symbol.ReturnType is INamedTypeSymbol { IsGenericType: false });
        return new FixPlan(captures, insertion.Statement, insertion.Statement is null ? outerLambda : null, returns);
    }

    /// <summary>
    /// From a use of outer state, the member chain up to the first value of immutable type (<c>s</c> → <c>s.Log.Count</c>),
    /// if the use reads it through fields and properties and nothing writes through it.
    /// </summary>
    private static IOperation? CapturedValue(IOperation use, Mutability mutability)
    {
        if (use is not (ILocalReferenceOperation or IParameterReferenceOperation))
        {
            return null;
        }

        IOperation current = use;
        while (current == use || mutability.IsMutable(current.Type))
        {
            switch (current.Parent)
            {
                case IPropertyReferenceOperation { Property.IsIndexer: false, Property.IsStatic: false } property when property.Instance == current:
                    current = property;
                    continue;
                case IFieldReferenceOperation { Field.IsStatic: false } field when field.Instance == current:
                    current = field;
                    continue;
                default:
                    return null;
            }
        }

        // A write into the value (s.Point.X = 1 on a struct) would change the copy, not the state.
        IOperation top = current;
        while (top.Parent is IMemberReferenceOperation member && member.Instance == top)
        {
            top = member;
        }

        return Operations.IsWrite(top) || top.Parent is IAssignmentOperation assignment && assignment.Target == top
            || top.Parent is IIncrementOrDecrementOperation ? null : current;
    }

    /// <summary><c>s.Balance</c> → <c>balance</c>; <c>s.Log.Count</c> → <c>logCount</c>.</summary>
    private static string BaseName(IOperation value)
    {
        var names = new List<string>();
        for (IOperation? current = value; current is IMemberReferenceOperation member; current = member.Instance)
        {
            names.Insert(0, member.Member.Name);
        }

        string joined = string.Concat(names.Select((n, i) => i == 0 ? char.ToLowerInvariant(n[0]) + n.Substring(1) : n));
        return SyntaxFacts.GetKeywordKind(joined) != SyntaxKind.None || SyntaxFacts.GetContextualKeywordKind(joined) != SyntaxKind.None
            ? joined + "Value"
            : joined;
    }

    private sealed class Insertion
    {
        public Insertion(StatementSyntax? statement, int position)
        {
            Statement = statement;
            Position = position;
        }

        public StatementSyntax? Statement { get; }

        public int Position { get; }
    }

    /// <summary>
    /// Where the values are read: before the statement of the enclosing body that runs the inner When, if it runs it
    /// exactly once (not in a loop, a lambda, a branch of ?:, the right of &amp;&amp;/||/??, an embedded statement), or at
    /// the start of the enclosing lambda's expression body.
    /// </summary>
    private static Insertion? InsertionPoint(SyntaxNode invocation, AnonymousFunctionExpressionSyntax outerLambda)
    {
        for (SyntaxNode node = invocation; node.Parent is { } parent; node = parent)
        {
            if (parent == outerLambda)
            {
                return node == outerLambda.ExpressionBody ? new Insertion(null, node.SpanStart) : null;
            }

            switch (parent)
            {
                case AnonymousFunctionExpressionSyntax or LocalFunctionStatementSyntax:
                case ConditionalExpressionSyntax conditional when node != conditional.Condition:
                case BinaryExpressionSyntax binary when node == binary.Right && binary.Kind() is SyntaxKind.LogicalAndExpression
                    or SyntaxKind.LogicalOrExpression or SyntaxKind.CoalesceExpression:
                case ConditionalAccessExpressionSyntax access when node == access.WhenNotNull:
                case SwitchExpressionArmSyntax or QueryExpressionSyntax or CatchClauseSyntax or FinallyClauseSyntax:
                    return null;
            }

            if (node is StatementSyntax statement)
            {
                return parent is BlockSyntax && statement is ExpressionStatementSyntax or LocalDeclarationStatementSyntax
                    or ReturnStatementSyntax or IfStatementSyntax
                    ? new Insertion(statement, statement.SpanStart)
                    : null;
            }
        }

        return null;
    }

    private static IEnumerable<string> DeclaredNames(SyntaxNode scope) => scope.DescendantNodesAndSelf()
        .Select(n => n switch
        {
            ParameterSyntax p => p.Identifier.ValueText,
            VariableDeclaratorSyntax v => v.Identifier.ValueText,
            SingleVariableDesignationSyntax d => d.Identifier.ValueText,
            LocalFunctionStatementSyntax f => f.Identifier.ValueText,
            ForEachStatementSyntax e => e.Identifier.ValueText,
            _ => null,
        })
        .Where(n => n is not null)!;

    private static SyntaxNode Apply(SyntaxNode root, FixPlan plan)
    {
        SyntaxNode anchor = (SyntaxNode?)plan.Before ?? plan.ExpressionBodied!;
        var nameOf = new Dictionary<SyntaxNode, string>();
        foreach (Capture capture in plan.Captures)
        {
            foreach (SyntaxNode use in capture.Uses)
            {
                nameOf[use] = capture.Name;
            }
        }

        SyntaxNode tracked = root.TrackNodes(nameOf.Keys.Append(anchor));
        Dictionary<SyntaxNode, string> current = nameOf.ToDictionary(kv => tracked.GetCurrentNode(kv.Key)!, kv => kv.Value);
        tracked = tracked.ReplaceNodes(current.Keys,
            (original, _) => SyntaxFactory.IdentifierName(current[original]).WithTriviaFrom(original));

        SyntaxTrivia newLine = root.DescendantTrivia().FirstOrDefault(t => t.IsKind(SyntaxKind.EndOfLineTrivia));
        if (newLine == default)
        {
            newLine = SyntaxFactory.EndOfLine("\n");
        }

        if (plan.Before is not null)
        {
            StatementSyntax before = tracked.GetCurrentNode(plan.Before)!;
            SyntaxTriviaList indentation = SyntaxFactory.TriviaList(before.GetLeadingTrivia().Where(t => t.IsKind(SyntaxKind.WhitespaceTrivia)).LastOrDefault());
            IEnumerable<StatementSyntax> declarations = plan.Captures.Select(c => Declaration(c)
                .WithLeadingTrivia(indentation)
                .WithTrailingTrivia(newLine));
            return tracked.InsertNodesBefore(before, declarations);
        }

        // The expression body becomes a block laid out as people write it: braces under the line the lambda starts on,
        // statements one level in.
        var lambda = (LambdaExpressionSyntax)tracked.GetCurrentNode(plan.ExpressionBodied!)!;
        var body = (ExpressionSyntax)lambda.ExpressionBody!;
        string line = root.SyntaxTree.GetText().Lines.GetLineFromPosition(plan.ExpressionBodied!.SpanStart).ToString();
        SyntaxTrivia outerIndent = SyntaxFactory.Whitespace(line.Substring(0, line.Length - line.TrimStart().Length));
        SyntaxTriviaList innerIndent = SyntaxFactory.TriviaList(outerIndent, SyntaxFactory.Whitespace("    "));
        StatementSyntax last = plan.Returns
            ? SyntaxFactory.ReturnStatement(SyntaxFactory.Token(SyntaxKind.ReturnKeyword).WithTrailingTrivia(SyntaxFactory.Space),
                body.WithoutTrivia(), SyntaxFactory.Token(SyntaxKind.SemicolonToken))
            : SyntaxFactory.ExpressionStatement(body.WithoutTrivia());
        BlockSyntax block = SyntaxFactory.Block(
            SyntaxFactory.Token(SyntaxKind.OpenBraceToken).WithLeadingTrivia(outerIndent).WithTrailingTrivia(newLine),
            SyntaxFactory.List(plan.Captures.Select(Declaration).Append(last).Select(s => s.WithLeadingTrivia(innerIndent).WithTrailingTrivia(newLine))),
            SyntaxFactory.Token(SyntaxKind.CloseBraceToken).WithLeadingTrivia(outerIndent).WithTrailingTrivia(body.GetTrailingTrivia()));
        LambdaExpressionSyntax withBlock = lambda
            .WithArrowToken(lambda.ArrowToken.WithTrailingTrivia(newLine))
            .WithExpressionBody(null)
            .WithBlock(block);
        return tracked.ReplaceNode(lambda, withBlock);
    }

    private static StatementSyntax Declaration(Capture capture) =>
        SyntaxFactory.LocalDeclarationStatement(
            SyntaxFactory.VariableDeclaration(SyntaxFactory.IdentifierName("var"))
                .AddVariables(SyntaxFactory.VariableDeclarator(capture.Name)
                    .WithInitializer(SyntaxFactory.EqualsValueClause(capture.Expression.WithoutTrivia()))))
            .NormalizeWhitespace();
}
