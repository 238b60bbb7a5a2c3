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
/// BOC102: hand out a copy instead of the state: the collection that leaves the behaviour (returned, stored, published)
/// becomes a copy made while the cown is held: <c>ToList()</c> for a list or a sequence (a deferred query, a read-only
/// view), <c>ToArray()</c> for an array, <c>ToHashSet()</c>, <c>ToDictionary()</c>. If what leaves is built from such a
/// collection (<c>Results.Json(a.Log)</c>), the argument is copied. Offered only for collections of immutable elements
/// (a copied list of accounts still shares the accounts), and only if the result passes <see cref="FixVerifier"/>: it
/// compiles (a copy of another type may not fit where the value goes) and the escape is gone.
/// </summary>
[ExportCodeFixProvider(LanguageNames.CSharp, Name = nameof(CopyEscapingStateCodeFix)), Shared]
public sealed class CopyEscapingStateCodeFix : VerifiedCodeFix
{
    public override ImmutableArray<string> FixableDiagnosticIds { get; } = ImmutableArray.Create(Descriptors.StateEscapes.Id);

    private protected override Task<IEnumerable<VerifiedEdit>> PlanAsync(Document document, FixInputs inputs, SyntaxNode node, CancellationToken cancellationToken) =>
        Task.FromResult(Edits(inputs, node, cancellationToken));

    private static IEnumerable<VerifiedEdit> Edits(FixInputs inputs, SyntaxNode node, CancellationToken cancellationToken)
    {
        if ((node as ExpressionSyntax ?? (node as ArgumentSyntax)?.Expression) is not { } escaping)
        {
            yield break;
        }

        foreach (ExpressionSyntax candidate in Candidates(escaping))
        {
            if (CopyMethod(inputs.Model.GetTypeInfo(candidate, cancellationToken).Type, inputs.Mutability) is { } method)
            {
                yield return new VerifiedEdit($"Hand out a copy: {Operations.Quote(candidate)}.{method}()", FixVerifier.MemberOf(escaping),
                    new Dictionary<SyntaxNode, SyntaxNode> { [candidate] = Copy(candidate, method) },
                    root => WithLinq(root, inputs.Model, candidate.SpanStart));
            }
        }
    }

    /// <summary>The value that leaves, or else the arguments it is built from.</summary>
    private static IEnumerable<ExpressionSyntax> Candidates(ExpressionSyntax escaping)
    {
        yield return escaping;
        ArgumentListSyntax? arguments = escaping switch
        {
            InvocationExpressionSyntax invocation => invocation.ArgumentList,
            ObjectCreationExpressionSyntax creation => creation.ArgumentList,
            _ => null,
        };
        foreach (ArgumentSyntax argument in arguments?.Arguments ?? default)
        {
            yield return argument.Expression;
        }
    }

    /// <summary>The LINQ method that copies a value of <paramref name="type"/> into a new collection of the same elements, if they are immutable.</summary>
    private static string? CopyMethod(ITypeSymbol? type, Mutability mutability)
    {
        if (type is IArrayTypeSymbol array)
        {
            return mutability.IsMutable(array.ElementType) ? null : "ToArray";
        }

        if (type is not INamedTypeSymbol named || Taint.ElementType(named) is not { } element || SymbolEqualityComparer.Default.Equals(element, named)
            || mutability.IsMutable(element))
        {
            return null;
        }

        return named.Name switch
        {
            "HashSet" => "ToHashSet",
            "Dictionary" when element is INamedTypeSymbol { Name: "KeyValuePair" } => "ToDictionary",
            "Dictionary" => null,
            _ => "ToList",
        };
    }

    private static InvocationExpressionSyntax Copy(ExpressionSyntax value, string method)
    {
        ExpressionSyntax receiver = value.WithoutTrivia();
        if (receiver is not (IdentifierNameSyntax or MemberAccessExpressionSyntax or InvocationExpressionSyntax or ElementAccessExpressionSyntax
            or ParenthesizedExpressionSyntax or ThisExpressionSyntax))
        {
            receiver = SyntaxFactory.ParenthesizedExpression(receiver);
        }

        return SyntaxFactory.InvocationExpression(
                SyntaxFactory.MemberAccessExpression(SyntaxKind.SimpleMemberAccessExpression, receiver, SyntaxFactory.IdentifierName(method)))
            .WithTriviaFrom(value);
    }

    /// <summary>Adds <c>using System.Linq;</c> if LINQ's extension methods are not in scope where the copy is made.</summary>
    private static SyntaxNode WithLinq(SyntaxNode root, SemanticModel model, int position)
    {
        bool inScope = model.LookupNamespacesAndTypes(position, name: "Enumerable")
            .Any(s => s is INamedTypeSymbol { ContainingNamespace: { Name: "Linq", ContainingNamespace.Name: "System" } });
        if (inScope || root is not CompilationUnitSyntax unit)
        {
            return root;
        }

        return unit.AddUsings(SyntaxFactory.UsingDirective(SyntaxFactory.ParseName("System.Linq")).WithTrailingTrivia(SyntaxFactory.ElasticLineFeed));
    }
}
