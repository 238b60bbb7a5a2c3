using System.Collections.Immutable;
using System.Runtime.CompilerServices;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>
/// Shared plumbing of the rules: nothing is registered unless the compilation references Boc, and each member body
/// is indexed once (spawns, bodies, references, the scopes it begins) however many rules look at it.
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
                IndexHolder holder = s_indexes.TryGetValue(first, out IndexHolder? found) ? found : IndexOf(block, types);
                if (!holder.BeginScopes.IsEmpty)
                {
                    AnalyzeScopes(holder.BeginScopes, block.ReportDiagnostic);
                }

                if (holder.Index is not null)
                {
                    Analyze(holder.Index, block.ReportDiagnostic);
                }
            });
        });
    }

    /// <summary>A rule's look at a block that spawns (the others have no index).</summary>
    private protected virtual void Analyze(BehaviourIndex index, System.Action<Diagnostic> report)
    {
    }

    /// <summary>
    /// A rule's look at the scopes a block begins, whether it spawns or not (found by the walk that indexes it, so that
    /// no rule needs a callback per invocation of the whole compilation).
    /// </summary>
    private protected virtual void AnalyzeScopes(ImmutableArray<IInvocationOperation> beginScopes, System.Action<Diagnostic> report)
    {
    }

    // Apart from the lookup above, so that the closure is allocated only when the index is built.
    private static IndexHolder IndexOf(OperationBlockAnalysisContext block, BocTypes types) =>
        s_indexes.GetValue(block.OperationBlocks[0], first =>
        {
            BehaviourIndex? index = BehaviourIndex.Build(block.OperationBlocks, types,
                types.MutabilityFor(ShareableTypesOption(block.Options.AnalyzerConfigOptionsProvider, first.Syntax.SyntaxTree)),
                out ImmutableArray<IInvocationOperation> beginScopes);
            return new IndexHolder(index, beginScopes);
        });

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
        public IndexHolder(BehaviourIndex? index, ImmutableArray<IInvocationOperation> beginScopes)
        {
            Index = index;
            BeginScopes = beginScopes;
        }

        public BehaviourIndex? Index { get; }

        /// <summary>The <c>BeginScope</c> calls of the block, spawning or not.</summary>
        public ImmutableArray<IInvocationOperation> BeginScopes { get; }
    }
}
