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
using Microsoft.CodeAnalysis.FindSymbols;

namespace Boc.Analyzers.CodeFixes;

/// <summary>
/// BOC202: make the body an <c>async Task</c>, so that it binds to the overload that keeps the cowns until the body's
/// task completes. <c>new Action&lt;T&gt;(async …)</c> and <c>(Action&lt;T&gt;)(async …)</c> become the lambda itself; an
/// <c>Action&lt;…&gt;</c> local that holds the async lambda becomes a <c>Func&lt;…, Task&gt;</c>; an <c>async void</c> method
/// or local function declared in this document becomes <c>async Task</c>. The local and the method are changed only if
/// every use of them is as a body of <c>When</c>/<c>WhenAsync</c>/<c>TryWhen</c> (elsewhere, an event handler or a call
/// whose result is ignored, the change would break or alter that use), and the result must pass
/// <see cref="FixVerifier"/>.
/// </summary>
[ExportCodeFixProvider(LanguageNames.CSharp, Name = nameof(AsyncTaskBodyCodeFix)), Shared]
public sealed class AsyncTaskBodyCodeFix : VerifiedCodeFix
{
    public override ImmutableArray<string> FixableDiagnosticIds { get; } = ImmutableArray.Create(Descriptors.AsyncVoidBody.Id);

    private protected override async Task<IEnumerable<VerifiedEdit>> PlanAsync(Document document, FixInputs inputs, SyntaxNode node, CancellationToken cancellationToken)
    {
        if ((node as ArgumentSyntax ?? node.FirstAncestorOrSelf<ArgumentSyntax>()) is not { } argument
            || await PlanAsync(document, inputs.Model, inputs.Types, argument.Expression, cancellationToken).ConfigureAwait(false) is not { } replacements)
        {
            return Array.Empty<VerifiedEdit>();
        }

        return new[] { new VerifiedEdit("Make the body an async Task", FixVerifier.MemberOf(argument), replacements) };
    }

    private static async Task<Dictionary<SyntaxNode, SyntaxNode>?> PlanAsync(Document document, SemanticModel model, BocTypes types, ExpressionSyntax body,
        CancellationToken cancellationToken)
    {
        ExpressionSyntax value = Unparenthesized(body);
        switch (value)
        {
            case ObjectCreationExpressionSyntax { ArgumentList.Arguments.Count: 1 } creation
                when Unparenthesized(creation.ArgumentList!.Arguments[0].Expression) is AnonymousFunctionExpressionSyntax { AsyncKeyword.RawKind: (int)SyntaxKind.AsyncKeyword } lambda:
                return new Dictionary<SyntaxNode, SyntaxNode> { [creation] = lambda.WithTriviaFrom(creation) };
            case CastExpressionSyntax cast when Unparenthesized(cast.Expression) is AnonymousFunctionExpressionSyntax { AsyncKeyword.RawKind: (int)SyntaxKind.AsyncKeyword } lambda:
                return new Dictionary<SyntaxNode, SyntaxNode> { [cast] = lambda.WithTriviaFrom(cast) };
        }

        ISymbol? symbol = model.GetSymbolInfo(value, cancellationToken).Symbol;
        return symbol switch
        {
            ILocalSymbol local => await LocalPlanAsync(document, model, types, local, cancellationToken).ConfigureAwait(false),
            IMethodSymbol { IsAsync: true, ReturnsVoid: true } method => await MethodPlanAsync(document, model, types, method, cancellationToken).ConfigureAwait(false),
            _ => null,
        };
    }

    /// <summary><c>Action&lt;A&gt; body = async a =&gt; …;</c> becomes <c>Func&lt;A, Task&gt; body = …;</c>.</summary>
    private static async Task<Dictionary<SyntaxNode, SyntaxNode>?> LocalPlanAsync(Document document, SemanticModel model, BocTypes types, ILocalSymbol local,
        CancellationToken cancellationToken)
    {
        if (local.Type is not INamedTypeSymbol { DelegateInvokeMethod: { ReturnsVoid: true } invoke } || types.Task is null
            || local.DeclaringSyntaxReferences.FirstOrDefault()?.GetSyntax(cancellationToken) is not VariableDeclaratorSyntax
            {
                Parent: VariableDeclarationSyntax { Variables.Count: 1, Type: { IsVar: false } declared },
                Initializer.Value: { } initial,
            }
            || Unparenthesized(initial) is not AnonymousFunctionExpressionSyntax { AsyncKeyword.RawKind: (int)SyntaxKind.AsyncKeyword }
            || model.Compilation.GetTypeByMetadataName("System.Func`" + (invoke.Parameters.Length + 1).ToString(System.Globalization.CultureInfo.InvariantCulture)) is not { } func
            || !await OnlyBodiesAsync(document, types, local, cancellationToken).ConfigureAwait(false))
        {
            return null;
        }

        INamedTypeSymbol funcType = func.Construct(invoke.Parameters.Select(p => p.Type).Append(types.Task).ToArray());
        TypeSyntax type = SyntaxFactory.ParseTypeName(funcType.ToMinimalDisplayString(model, declared.SpanStart)).WithTriviaFrom(declared);
        return new Dictionary<SyntaxNode, SyntaxNode> { [declared] = type };
    }

    /// <summary><c>async void M(…)</c> (a method or local function of this document) becomes <c>async Task M(…)</c>.</summary>
    private static async Task<Dictionary<SyntaxNode, SyntaxNode>?> MethodPlanAsync(Document document, SemanticModel model, BocTypes types, IMethodSymbol method,
        CancellationToken cancellationToken)
    {
        if (types.Task is null || method.IsOverride || method.IsAbstract || method.IsExtern || method.IsPartialDefinition
            || !method.ExplicitInterfaceImplementations.IsEmpty || ImplementsInterface(method)
            || method.DeclaringSyntaxReferences.FirstOrDefault() is not { } reference || reference.SyntaxTree != model.SyntaxTree)
        {
            return null;
        }

        TypeSyntax? returnType = reference.GetSyntax(cancellationToken) switch
        {
            MethodDeclarationSyntax declaration => declaration.ReturnType,
            LocalFunctionStatementSyntax local => local.ReturnType,
            _ => null,
        };
        if (returnType is null || !await OnlyBodiesAsync(document, types, method, cancellationToken).ConfigureAwait(false))
        {
            return null;
        }

        TypeSyntax task = SyntaxFactory.ParseTypeName(types.Task.ToMinimalDisplayString(model, returnType.SpanStart)).WithTriviaFrom(returnType);
        return new Dictionary<SyntaxNode, SyntaxNode> { [returnType] = task };
    }

    private static bool ImplementsInterface(IMethodSymbol method) =>
        method.ContainingType.AllInterfaces.SelectMany(i => i.GetMembers().OfType<IMethodSymbol>())
            .Any(m => SymbolEqualityComparer.Default.Equals(method.ContainingType.FindImplementationForInterfaceMember(m), method));

    /// <summary>Whether every reference to <paramref name="symbol"/> is a body argument of a spawn (nothing else would see the change).</summary>
    private static async Task<bool> OnlyBodiesAsync(Document document, BocTypes types, ISymbol symbol, CancellationToken cancellationToken)
    {
        IEnumerable<ReferencedSymbol> found = await SymbolFinder.FindReferencesAsync(symbol, document.Project.Solution, cancellationToken).ConfigureAwait(false);
        bool any = false;
        foreach (ReferenceLocation location in found.SelectMany(r => r.Locations))
        {
            if (location.Document.Id != document.Id)
            {
                return false;
            }

            SyntaxNode? root = await location.Document.GetSyntaxRootAsync(cancellationToken).ConfigureAwait(false);
            SemanticModel? model = await location.Document.GetSemanticModelAsync(cancellationToken).ConfigureAwait(false);
            SyntaxNode? use = root?.FindNode(location.Location.SourceSpan, getInnermostNodeForTie: true);
            if (use is null || model is null || !IsBodyArgument(use, model, types, cancellationToken))
            {
                return false;
            }

            any = true;
        }

        return any;
    }

    private static bool IsBodyArgument(SyntaxNode use, SemanticModel model, BocTypes types, CancellationToken cancellationToken)
    {
        SyntaxNode current = use;
        while (current.Parent is MemberAccessExpressionSyntax access && access.Name == current || current.Parent is ParenthesizedExpressionSyntax)
        {
            current = current.Parent!;
        }

        return current.Parent is ArgumentSyntax argument
            && argument.Parent?.Parent is InvocationExpressionSyntax invocation
            && model.GetSymbolInfo(invocation, cancellationToken).Symbol is IMethodSymbol { Name: "When" or "WhenAsync" or "TryWhen" } spawn
            && types.IsSpawner(spawn.ContainingType)
            && model.GetOperation(argument, cancellationToken) is Microsoft.CodeAnalysis.Operations.IArgumentOperation { Parameter.Name: "body" };
    }

    private static ExpressionSyntax Unparenthesized(ExpressionSyntax expression)
    {
        while (expression is ParenthesizedExpressionSyntax parenthesized)
        {
            expression = parenthesized.Expression;
        }

        return expression;
    }
}
