using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CodeActions;
using Microsoft.CodeAnalysis.Diagnostics;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// The fixes around cluster bodies: BOC105's "capture the value" (the BOC101 fix, reading the copy while the cluster
/// body holds it), and no "acquire the cown" where the two behaviours are of different kinds (a cluster behaviour cannot
/// acquire a local cown, nor a local behaviour a cluster cown).
/// </summary>
public class Boc105CodeFixTests
{
    private static readonly ImmutableArray<DiagnosticAnalyzer> s_analyzers = [new NonAcquiredStateAnalyzer(), new ClusterCopyAnalyzer()];

    [Fact]
    public async Task Captures_the_copy_s_value_in_the_cluster_body()
    {
        List<(Document Document, CodeAction Action)> fixes = await Boc101CodeFixTests.FixesAsync(ClusterStubs.Using + """
            class C
            {
                public Task M(IBocCluster cluster, Cown<Account> local) =>
                    cluster.WhenAsync(cluster.Cown<Account>("alice"), a => When(local, l => l.Balance += a.Balance + a.Log.Count));
            }
            """, s_analyzers, ClusterStubs.Source);
        (Document document, CodeAction action) = Assert.Single(fixes.GroupBy(f => f.Action.Title).Select(g => g.First()));
        Assert.Equal("Capture the values of 'a.Balance', 'a.Log.Count' before this When", action.Title);
        ImmutableArray<CodeActionOperation> operations = await action.GetOperationsAsync(CancellationToken.None);
        Solution changed = Assert.IsType<ApplyChangesOperation>(Assert.Single(operations)).ChangedSolution;
        string fixedText = (await changed.GetDocument(document.Id)!.GetTextAsync()).ToString();
        Assert.Contains("""
                    cluster.WhenAsync(cluster.Cown<Account>("alice"), a =>
                    {
                        var balance = a.Balance;
                        var logCount = a.Log.Count;
                        When(local, l => l.Balance += balance + logCount);
                    });
            """, fixedText, StringComparison.Ordinal);
        Assert.Empty(await AnalyzeAsync(Compile([fixedText])));
    }

    [Fact]
    public async Task Offers_no_fix_for_a_copy_stored_or_returned_and_no_acquire_across_kinds()
    {
        List<(Document Document, CodeAction Action)> fixes = await Boc101CodeFixTests.FixesAsync(ClusterStubs.Using + """
            class C
            {
                private static readonly ConcurrentBag<Account> s_seen = new();

                async Task M(IBocCluster cluster, Cown<Account> local)
                {
                    var alice = cluster.Cown<Account>("alice");
                    await cluster.WhenAsync(alice, a => s_seen.Add(a));
                    Account copy = await cluster.WhenAsync(alice, a => a);
                    When(local, s => { _ = cluster.WhenAsync(alice, a => a.Partner = s); });
                    await cluster.WhenAsync(alice, a => When(local, l => l.Partner = a));
                }
            }
            """, s_analyzers, ClusterStubs.Source);
        Assert.Empty(fixes);
    }
}
