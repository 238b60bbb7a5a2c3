using System.Collections.Immutable;
using Microsoft.CodeAnalysis.Diagnostics;

namespace Boc.Analyzers;

/// <summary>Every rule, one analyzer each: for the code fixes' check and the tests, so that a new rule is in both.</summary>
internal static class Rules
{
    public static ImmutableArray<DiagnosticAnalyzer> All() => ImmutableArray.Create<DiagnosticAnalyzer>(
        new NonAcquiredStateAnalyzer(),
        new AcquiredStateEscapeAnalyzer(),
        new SharedMutableCaptureAnalyzer(),
        new ReadOnlyWriteAnalyzer(),
        new BlockingCallAnalyzer(),
        new AsyncVoidBodyAnalyzer(),
        new SelfWaitAnalyzer(),
        new ClusterCopyAnalyzer(),
        new UnfinishedScopeAnalyzer());
}
