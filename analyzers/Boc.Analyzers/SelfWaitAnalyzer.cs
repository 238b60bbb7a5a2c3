using System.Collections.Generic;
using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Operations;

namespace Boc.Analyzers;

/// <summary>
/// BOC203: a behaviour body awaits or blocks on (see <see cref="Waits"/>) a behaviour that needs a cown the body holds,
/// directly or through behaviours it waits for. That behaviour is queued behind the body on that cown, so it cannot
/// start before the body ends, and the body does not end before it completes. With a read-only acquisition on both
/// sides the wait completes unless a writer is spawned on the cown in between, which it then cannot escape.
/// </summary>
[DiagnosticAnalyzer(LanguageNames.CSharp)]
public sealed class SelfWaitAnalyzer : BocAnalyzer
{
    private const int MaxDepth = 4;

    public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics { get; } = ImmutableArray.Create(Descriptors.SelfWait);

    private protected override void Analyze(BehaviourIndex index, System.Action<Diagnostic> report)
    {
        foreach (Spawn spawn in index.Spawns)
        {
            if (spawn.Body?.Function is not { } function)
            {
                continue;
            }

            List<CownRef> held = CownRef.Of(spawn, index);
            if (held.Count == 0)
            {
                continue;
            }

            foreach ((Spawn waited, Wait wait) in WaitedSpawns(index, spawn, function))
            {
                if (Conflict(index, held, waited, depth: 0, out bool direct) is { } conflict)
                {
                    report(Diagnostic.Create(Descriptors.SelfWait, wait.At.Syntax.GetLocation(), Message(conflict, wait, direct)));
                }
            }
        }
    }

    /// <summary>The spawns in <paramref name="spawn"/>'s body whose behaviours the body waits for, with where it waits.</summary>
    private static IEnumerable<(Spawn Spawn, Wait Wait)> WaitedSpawns(BehaviourIndex index, Spawn spawn, IOperation function)
    {
        foreach (IOperation operation in index.BodyOperations(spawn))
        {
            if (operation is IInvocationOperation && index.SpawnOfInvocation(operation) is { } inner && inner != spawn
                && Waits.WaitOn(operation, function, index) is { } wait)
            {
                yield return (inner, wait);
            }
        }
    }

    /// <summary>The held cown, and the one that needs it, if <paramref name="waited"/> or what it waits for needs a held cown.</summary>
    private static (CownRef Held, CownRef Needed)? Conflict(BehaviourIndex index, List<CownRef> held, Spawn waited, int depth, out bool direct)
    {
        direct = depth == 0;
        foreach (CownRef needed in CownRef.Of(waited, index))
        {
            foreach (CownRef cown in held)
            {
                if (cown.Overlaps(needed))
                {
                    return (cown, needed);
                }
            }
        }

        if (depth < MaxDepth && waited.Body?.Function is { } function)
        {
            foreach ((Spawn next, Wait _) in WaitedSpawns(index, waited, function))
            {
                if (Conflict(index, held, next, depth + 1, out _) is { } deeper)
                {
                    direct = false;
                    return deeper;
                }
            }
        }

        return null;
    }

    private static string Message((CownRef Held, CownRef Needed) conflict, Wait wait, bool direct)
    {
        string cown = Operations.Quote(conflict.Held.Syntax);
        string through = direct ? "" : " (through a behaviour it waits for)";
        if (conflict.Held.IsReadOnly && conflict.Needed.IsReadOnly)
        {
            return $"This behaviour reads '{cown}' and {wait.How} another reader of it{through}: a writer spawned on it in between would queue behind this body and that reader behind the writer, so the wait could never complete";
        }

        return $"This behaviour holds '{cown}' and {wait.How} a behaviour that needs it{through}: that behaviour is queued behind this one and cannot start before this body ends, so the wait never completes";
    }
}
