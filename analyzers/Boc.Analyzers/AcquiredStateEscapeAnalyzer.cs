using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;

namespace Boc.Analyzers;

/// <summary>
/// BOC102: the acquired object, or a mutable object reachable from it, is stored where code outside the behaviour can
/// reach it, handed to code that runs later, or returned as a mutable result (see <see cref="Escapes"/>). A cluster
/// body's copies are BOC105's business.
/// </summary>
[DiagnosticAnalyzer(LanguageNames.CSharp)]
public sealed class AcquiredStateEscapeAnalyzer : BocAnalyzer
{
    public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics { get; } = ImmutableArray.Create(Descriptors.StateEscapes);

    private protected override void Analyze(BehaviourIndex index, System.Action<Diagnostic> report)
    {
        foreach (Spawn spawn in index.Spawns)
        {
            if (!spawn.IsCluster)
            {
                Escapes.Find(index, spawn, (at, taint, how) =>
                    report(Diagnostic.Create(Descriptors.StateEscapes, at.Syntax.GetLocation(), taint.Origin.Name, how)));
            }
        }
    }
}
