using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;

namespace Boc.Analyzers;

/// <summary>
/// BOC105: a cluster body (<c>IBocCluster.WhenAsync</c>) gets a private copy of each state, committed when the body
/// ends. A reference to the copy, or to a mutable part of it, that outlives the body (stored outside, handed to code that
/// runs later, returned as a mutable result, or used by another behaviour the body does not wait for) sees none of the
/// cown's later changes, and whatever is written through it is never committed.
/// </summary>
[DiagnosticAnalyzer(LanguageNames.CSharp)]
public sealed class ClusterCopyAnalyzer : BocAnalyzer
{
    public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics { get; } = ImmutableArray.Create(Descriptors.ClusterCopyKept);

    private protected override void Analyze(BehaviourIndex index, System.Action<Diagnostic> report)
    {
        if (!index.HasClusterSpawn)
        {
            return;
        }

        foreach (Spawn spawn in index.Spawns)
        {
            if (spawn.IsCluster)
            {
                Escapes.Find(index, spawn, (at, taint, how) => Report(report, at, taint.Origin.Name, how));
            }
        }

        foreach (NonAcquiredStateAnalyzer.Finding finding in index.NonAcquiredFindings())
        {
            // A behaviour the cluster body waits for runs while the body still holds its cowns, on the copy the body
            // will commit: that is part of the body.
            if (finding.Outer.IsCluster && !Waits.WaitsFor(index, finding.Outer, finding.Inner))
            {
                string user = finding.Name == finding.Taint.Origin.Name ? "" : $" (through '{finding.Name}')";
                Report(report, finding.Use, finding.Taint.Origin.Name,
                    $"used{user} by another behaviour, which this body does not wait for, so it may run after the commit");
            }
        }
    }

    private static void Report(System.Action<Diagnostic> report, IOperation at, string name, string how) =>
        report(Diagnostic.Create(Descriptors.ClusterCopyKept, at.Syntax.GetLocation(), name, how));
}
