using System.Threading;
using System.Threading.Tasks;
using Microsoft.CodeAnalysis;

namespace Boc.Analyzers.CodeFixes;

/// <summary>What every fix starts from: the document's root and semantic model, Boc's types, and the mutability model its options give.</summary>
internal sealed class FixInputs
{
    private FixInputs(SyntaxNode root, SemanticModel model, BocTypes types, Mutability mutability)
    {
        Root = root;
        Model = model;
        Types = types;
        Mutability = mutability;
    }

    public SyntaxNode Root { get; }

    public SemanticModel Model { get; }

    public BocTypes Types { get; }

    public Mutability Mutability { get; }

    /// <summary>The inputs for <paramref name="document"/>, or null if it cannot be analysed or does not reference Boc.</summary>
    public static async Task<FixInputs?> GetAsync(Document document, CancellationToken cancellationToken)
    {
        SyntaxNode? root = await document.GetSyntaxRootAsync(cancellationToken).ConfigureAwait(false);
        SemanticModel? model = await document.GetSemanticModelAsync(cancellationToken).ConfigureAwait(false);
        if (root is null || model is null || BocTypes.Create(model.Compilation) is not { } types)
        {
            return null;
        }

        // As the analyzer does: the project's shareable-types configuration decides what is mutable.
        Mutability mutability = types.MutabilityFor(BocAnalyzer.ShareableTypesOption(document.Project.AnalyzerOptions.AnalyzerConfigOptionsProvider, model.SyntaxTree));
        return new FixInputs(root, model, types, mutability);
    }
}
