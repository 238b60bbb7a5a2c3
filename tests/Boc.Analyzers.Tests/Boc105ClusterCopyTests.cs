using System.Collections.Immutable;
using System.Globalization;
using Microsoft.CodeAnalysis;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// BOC105 (issue 47): a cluster body's state is a private copy, committed when the body ends; a reference to it (or to a
/// mutable part of it) kept past the body is not the cown's state. The Orleans types are the stand-ins of
/// <see cref="ClusterStubs"/>.
/// </summary>
public class Boc105ClusterCopyTests
{
    [Fact]
    public Task Flags_a_copy_stored_outside_the_body() => ClusterStubs.VerifyAsync("""
        class C
        {
            private static readonly ConcurrentBag<Account> s_seen = new();

            async Task M(IBocCluster cluster, ConcurrentQueue<List<string>> sink, ConcurrentQueue<Action> pending)
            {
                var alice = cluster.Cown<Account>("alice");
                Account? kept = null;
                await cluster.WhenAsync(alice, a => { kept = {|BOC105:a|}; });
                await cluster.WhenAsync(alice, a => s_seen.Add({|BOC105:a|}));
                await cluster.WhenAsync(alice, a => { var log = a.Log; sink.Enqueue({|BOC105:log|}); });
                await cluster.WhenAsync(alice, a => pending.Enqueue({|BOC105:() => a.Balance++|}));
                await cluster.WhenAsync(alice, async a => { await Task.Yield(); sink.Enqueue({|BOC105:a.Log|}); });
                await cluster.WhenAsync(new[] { alice, alice }, states => s_seen.Add({|BOC105:states[0]|}));
            }
        }
        """);

    [Fact]
    public Task Flags_a_copy_returned_handed_to_later_code_or_stored_in_another_state() => ClusterStubs.VerifyAsync("""
        class C
        {
            async Task M(IBocCluster cluster)
            {
                var alice = cluster.Cown<Account>("alice");
                var bob = cluster.Cown<Account>("bob");
                Account copy = await cluster.WhenAsync(alice, a => {|BOC105:a|});
                List<string> log = await cluster.WhenAsync(alice, a => {|BOC105:a.Log|});
                IEnumerable<string> recent = await cluster.WhenAsync(alice, a => {|BOC105:a.Log.Where(x => x.Length > 3)|});
                await cluster.WhenAsync(alice, a => { _ = Task.Run({|BOC105:() => a.Balance++|}); });
                await cluster.WhenAsync(alice, bob, (a, b) => b.Partner = {|BOC105:a|});
            }
        }
        """);

    [Fact]
    public Task Flags_a_copy_used_by_another_behaviour_the_body_does_not_wait_for() => ClusterStubs.VerifyAsync("""
        class C
        {
            async Task M(IBocCluster cluster, Cown<Account> local)
            {
                var alice = cluster.Cown<Account>("alice");
                var bob = cluster.Cown<Account>("bob");
                await cluster.WhenAsync(alice, a => When(local, l => l.Balance = {|BOC105:a|}.Balance));
                await cluster.WhenAsync(alice, a => { var partner = a.Partner; When(local, l => {|BOC105:partner|}!.Balance = l.Balance); });
                await cluster.WhenAsync(alice, a => { _ = cluster.WhenAsync(bob, b => b.Balance = {|BOC105:a|}.Balance); });
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_values_copied_out_of_the_state() => ClusterStubs.VerifyAsync("""
        class C
        {
            async Task M(IBocCluster cluster, ConcurrentDictionary<string, long> totals, ConcurrentBag<long> balances)
            {
                var alice = cluster.Cown<Account>("alice");
                long balance = await cluster.WhenAsync(BocCluster.Read(alice), a => a.Balance);
                Snapshot snap = await cluster.WhenAsync(alice, a => new Snapshot(a.Balance, a.Details.Name));
                List<string> log = await cluster.WhenAsync(alice, a => a.Log.ToList());
                ImmutableArray<string> tags = await cluster.WhenAsync(alice, a => a.Tags.ToImmutableArray());
                (long b, int n) = await cluster.WhenAsync(alice, a => (a.Balance, a.Log.Count));
                await cluster.WhenAsync(alice, a => { balances.Add(a.Balance); totals.AddOrUpdate(a.Details.Name, a.Balance, (_, old) => old + a.Balance); });
                await cluster.WhenAsync(alice, a => { long v = a.Balance; _ = Task.Run(() => Console.WriteLine(v)); });
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_writes_to_the_copy_and_references_kept_inside_it() => ClusterStubs.VerifyAsync("""
        class C
        {
            async Task M(IBocCluster cluster)
            {
                var alice = cluster.Cown<Account>("alice");
                var bob = cluster.Cown<Account>("bob");
                await cluster.WhenAsync(alice, a => { a.Balance++; a.Log.Add("x"); a.Partner = a; });
                await cluster.WhenAsync(alice, a => { var scratch = new List<Account> { a }; scratch.Clear(); });
                await cluster.WhenAsync(alice, bob, (a, b) => { a.Balance -= 10; b.Balance += 10; b.Log.AddRange(a.Log); });
                await cluster.WhenAsync(alice, a => { a.Log.ForEach(x => a.Balance += x.Length); Parallel.ForEach(a.Log, x => Interlocked.Add(ref a.Counter, x.Length)); });
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_a_copy_used_by_code_the_body_waits_for() => ClusterStubs.VerifyAsync("""
        class C
        {
            async Task M(IBocCluster cluster, Cown<Account> local)
            {
                var alice = cluster.Cown<Account>("alice");
                var bob = cluster.Cown<Account>("bob");
                await cluster.WhenAsync(alice, async a => { a.Balance += await WhenAsync(local, l => l.Balance + a.Balance); });
                await cluster.WhenAsync(alice, async a => { await cluster.WhenAsync(bob, b => { b.Balance = a.Balance; a.Counter++; }); });
                await cluster.WhenAsync(alice, async a => await Task.Run(() => a.Log.Sort()));
                await cluster.WhenAsync(alice, a => cluster.WhenAsync(bob, b => b.Balance = a.Balance));
            }
        }
        """);

    [Fact]
    public async Task The_message_says_what_is_kept_and_why_it_matters()
    {
        Diagnostic diagnostic = await ClusterStubs.SingleDiagnosticAsync("""
            class C
            {
                async Task<Account> M(IBocCluster cluster) => await cluster.WhenAsync(cluster.Cown<Account>("a"), a => a);
            }
            """);
        Assert.Equal("BOC105", diagnostic.Id);
        Assert.Equal("'a' is this cluster behaviour's copy of its cown's state, kept after the body: returned as a mutable result, usable after the cown is released; once the body ends it is not the cown's state, and changes to it are lost",
            diagnostic.GetMessage(CultureInfo.InvariantCulture));
    }

    [Fact]
    public async Task Local_behaviours_keep_reporting_boc101_and_boc102()
    {
        // The same shapes on Boc's own When are BOC101 and BOC102, not BOC105: only a cluster body works on a copy.
        ImmutableArray<Diagnostic> diagnostics = await AnalyzeAsync(Compile([Usings + ClusterStubs.Using + """
            class C
            {
                private static readonly ConcurrentBag<Account> s_seen = new();

                void M(Cown<Account> src, Cown<Account> dst) => When(src, s => { s_seen.Add(s); When(dst, d => d.Balance = s.Balance); });
            }
            """ + SharedTypes + ClusterStubs.Source]));
        Assert.Equal(["BOC101", "BOC102"], diagnostics.Select(d => d.Id).Order(StringComparer.Ordinal));
    }
}
