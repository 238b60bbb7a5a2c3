using System.Collections.Generic;
using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Text;

namespace Boc.Analyzers;

/// <summary>
/// BOC101: a When body uses state acquired by an enclosing behaviour (directly, through an alias, a deconstruction, a
/// member, a lambda or local function, or as the state argument). The nested body runs after the enclosing behaviour
/// has released that cown.
/// </summary>
[DiagnosticAnalyzer(LanguageNames.CSharp)]
public sealed class NonAcquiredStateAnalyzer : BocAnalyzer
{
    public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics { get; } = ImmutableArray.Create(Descriptors.NonAcquiredState);

    /// <summary>One use of another behaviour's state inside <see cref="Inner"/>.</summary>
    internal sealed class Finding
    {
        public Finding(IOperation use, string name, TaintInfo taint, Spawn outer, Spawn inner)
        {
            Use = use;
            Name = name;
            Taint = taint;
            Outer = outer;
            Inner = inner;
        }

        public IOperation Use { get; }

        public string Name { get; }

        public TaintInfo Taint { get; }

        public Spawn Outer { get; }

        public Spawn Inner { get; }
    }

    internal static IEnumerable<Finding> Find(BehaviourIndex index)
    {
        foreach (Spawn spawn in index.Spawns)
        {
            if (spawn.Body?.Function is not { } function)
            {
                continue;
            }

            var reported = new HashSet<TextSpan>();
            foreach (Spawn outer in index.EnclosingBehaviours(spawn.Invocation))
            {
                Taint taint = index.TaintOf(outer);
                if (taint.IsEmpty)
                {
                    continue;
                }

                foreach (IOperation operation in index.BodyOperations(spawn))
                {
                    ISymbol? symbol = Operations.ReferencedSymbol(operation);
                    if (taint.Get(symbol) is { } info && !Operations.IsDeclaredInside(symbol!, function)
                        && reported.Add(operation.Syntax.Span))
                    {
                        yield return new Finding(operation, symbol!.Name, info, outer, spawn);
                    }
                }

                if (spawn.StateArgument is { } state && taint.Of(state.Value) is { } stateTaint && reported.Add(state.Syntax.Span))
                {
                    yield return new Finding(state, Operations.Quote(state.Syntax), stateTaint, outer, spawn);
                }
            }
        }
    }

    private protected override void Analyze(BehaviourIndex index, System.Action<Diagnostic> report)
    {
        foreach (Finding finding in index.NonAcquiredFindings())
        {
            if (finding.Outer.IsCluster)
            {
                // A cluster body's state is a copy: using it from another behaviour is BOC105's business.
                continue;
            }

            report(Diagnostic.Create(Descriptors.NonAcquiredState, finding.Use.Syntax.GetLocation(), finding.Name,
                finding.Name == finding.Taint.Origin.Name ? "" : $" (it holds '{finding.Taint.Origin.Name}' or part of it)"));
        }
    }
}
