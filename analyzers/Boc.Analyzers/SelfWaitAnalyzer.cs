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
/// sides the wait completes unless a writer is spawned on the cown in between, which it then cannot escape. The same for
/// the end of a scope the body begins and waits for (see <see cref="ScopeWaits"/>): it waits for every member.
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

            // A scope's end waits for every member: one that needs a held cown is queued behind this body.
            foreach (ScopeWait scope in ScopeWaits.Of(index, spawn, function))
            {
                if (ScopeConflict(index, spawn, function, held, scope) is { } found)
                {
                    report(Diagnostic.Create(Descriptors.SelfWait, scope.Wait.At.Syntax.GetLocation(), ScopeMessage(found.Conflict, scope.Wait, found.Direct)));
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

    /// <summary>The held cown a member of <paramref name="scope"/> needs, and whether the body spawned that member itself.</summary>
    internal static ((CownRef Held, CownRef Needed) Conflict, bool Direct)? ScopeConflict(BehaviourIndex index, Spawn spawn, IOperation function,
        List<CownRef> held, ScopeWait scope)
    {
        foreach ((Spawn member, bool direct) in ScopeWaits.Members(index, spawn, function, scope.Block))
        {
            foreach (CownRef needed in CownRef.Of(member, index))
            {
                foreach (CownRef cown in held)
                {
                    if (cown.Overlaps(needed))
                    {
                        return ((cown, needed), direct);
                    }
                }
            }
        }

        return null;
    }

    private static string ScopeMessage((CownRef Held, CownRef Needed) conflict, Wait wait, bool direct)
    {
        string cown = Operations.Quote(conflict.Held.Syntax);
        if (conflict.Held.IsReadOnly && conflict.Needed.IsReadOnly)
        {
            string reader = direct ? "a member that reads it too" : "a member whose body spawns another reader of it";
            return $"This behaviour reads '{cown}' and {wait.How} the end of a scope with {reader}: a writer spawned on it in between would queue behind this body and that reader behind the writer, so the scope could never finish";
        }

        string member = direct ? "a member that needs it" : "a member whose body spawns a behaviour that needs it";
        return $"This behaviour holds '{cown}' and {wait.How} the end of a scope with {member}: that behaviour is queued behind this body and cannot start before this body ends, so the scope never finishes";
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
