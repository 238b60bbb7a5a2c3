using System.Collections.Immutable;
using System.Runtime.CompilerServices;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;

namespace Boc.Analyzers;

/// <summary>
/// Shared plumbing of the rules: nothing is registered unless the compilation references Boc, and each member body
/// is indexed once (spawns, bodies, references) however many rules look at it.
/// </summary>
public abstract class BocAnalyzer : DiagnosticAnalyzer
{
    // Keyed by objects that live exactly as long as the compilation or the operation tree they describe, so that the
    // rules share work without holding on to anything.
    private static readonly ConditionalWeakTable<Compilation, TypesHolder> s_types = new();
    private static readonly ConditionalWeakTable<IOperation, IndexHolder> s_indexes = new();

    public sealed override void Initialize(AnalysisContext context)
    {
        context.ConfigureGeneratedCodeAnalysis(GeneratedCodeAnalysisFlags.None);
        context.EnableConcurrentExecution();
        context.RegisterCompilationStartAction(start =>
        {
            BocTypes? types = s_types.GetValue(start.Compilation, c => new TypesHolder(BocTypes.Create(c))).Types;
            if (types is null)
            {
                return;
            }

            start.RegisterOperationBlockAction(block =>
            {
                if (block.OperationBlocks.IsEmpty)
                {
                    return;
                }

                // Every rule meets every block: look the index up without allocating a factory unless it must be built.
                IOperation first = block.OperationBlocks[0];
                BehaviourIndex? index = (s_indexes.TryGetValue(first, out IndexHolder? holder) ? holder : IndexOf(block, types)).Index;
                if (index is not null)
                {
                    Analyze(index, block.ReportDiagnostic);
                }
            });
        });
    }

    private protected abstract void Analyze(BehaviourIndex index, System.Action<Diagnostic> report);

    // Apart from the lookup above, so that the closure is allocated only when the index is built.
    private static IndexHolder IndexOf(OperationBlockAnalysisContext block, BocTypes types) =>
        s_indexes.GetValue(block.OperationBlocks[0], first => new IndexHolder(BehaviourIndex.Build(block.OperationBlocks, types,
            types.MutabilityFor(ShareableTypesOption(block.Options.AnalyzerConfigOptionsProvider, first.Syntax.SyntaxTree)))));

    /// <summary>The file's <c>boc.shareable_types</c> option (an <c>.editorconfig</c> section or a global config).</summary>
    internal static string? ShareableTypesOption(AnalyzerConfigOptionsProvider provider, SyntaxTree tree) =>
        provider.GetOptions(tree).TryGetValue(UserShareableTypes.OptionName, out string? value)
        || provider.GlobalOptions.TryGetValue(UserShareableTypes.OptionName, out value)
            ? value
            : null;

    private sealed class TypesHolder
    {
        public TypesHolder(BocTypes? types) => Types = types;

        public BocTypes? Types { get; }
    }

    private sealed class IndexHolder
    {
        public IndexHolder(BehaviourIndex? index) => Index = index;

        public BehaviourIndex? Index { get; }
    }
}
