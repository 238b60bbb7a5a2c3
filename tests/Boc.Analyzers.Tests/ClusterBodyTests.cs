using System.Collections.Immutable;
using System.Globalization;
using Microsoft.CodeAnalysis;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// Bodies given to Boc.Orleans' <c>IBocCluster.WhenAsync</c> (issue 47) are behaviour bodies: BOC101-BOC104 and
/// BOC201-BOC203 apply to them as to local ones. (What is particular to their copies of the states is BOC105, in
/// <see cref="Boc105ClusterCopyTests"/>.) The Orleans types are the stand-ins of <see cref="ClusterStubs"/>.
/// </summary>
public class ClusterBodyTests
{
    [Fact]
    public Task Flags_local_state_used_by_a_cluster_body_and_captures_shared_with_the_spawner() => ClusterStubs.VerifyAsync("""
        class C
        {
            async Task M(IBocCluster cluster, Cown<Account> local)
            {
                ClusterCown<Account> alice = cluster.Cown<Account>("alice");
                When(local, s => { _ = cluster.WhenAsync(alice, a => a.Balance = {|BOC101:s|}.Balance); });

                int total = 0;
                var pending = cluster.WhenAsync(alice, a => a.Balance = {|BOC103:total|});
                total = 5;
                await pending;

                var log = new List<string>();
                var adding = cluster.WhenAsync(alice, a => {|BOC103:log|}.Add(a.Details.Name));
                log.Clear();
                await adding;
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_values_copied_before_the_spawn_or_created_in_the_body() => ClusterStubs.VerifyAsync("""
        class C
        {
            async Task M(IBocCluster cluster, Cown<Account> local)
            {
                ClusterCown<Account> alice = cluster.Cown<Account>("alice");
                When(local, s => { long b = s.Balance; _ = cluster.WhenAsync(alice, a => a.Balance = b); });

                const int limit = 10;
                string note = "opened";
                await cluster.WhenAsync(alice, a => { var scratch = new List<string> { note }; a.Log.AddRange(scratch); a.Balance = limit; });

                for (int i = 0; i < 3; i++)
                {
                    int copy = i;
                    await cluster.WhenAsync(alice, a => a.Balance += copy);
                }
            }
        }
        """);

    [Fact]
    public Task Flags_writes_through_read_only_cluster_acquisitions_on_every_overload() => ClusterStubs.VerifyAsync("""
        class C
        {
            async Task M(IBocCluster cluster, BocCluster implementation, CancellationToken ct)
            {
                var alice = cluster.Cown<Account>("alice");
                var bob = cluster.Cown<Account>("bob");
                await cluster.WhenAsync(BocCluster.Read(alice), a => {|BOC104:a.Balance|} = 0);
                await cluster.WhenAsync(BocCluster.Read(alice), bob, (r, w) => {|BOC104:r.Balance|} = w.Balance, ct);
                await cluster.WhenAsync("transfer-1", BocCluster.Read(alice), r => {|BOC104:r.Balance|}++);
                await cluster.WhenAsync(new[] { BocCluster.Read(alice), BocCluster.Read(bob) }, all => {|BOC104:all[0].Balance|}++);
                await implementation.WhenAsync(BocCluster.Read(alice), r => {|BOC104:r.Log.Add("x")|});
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_reads_and_writes_to_written_cluster_cowns() => ClusterStubs.VerifyAsync("""
        class C
        {
            async Task M(IBocCluster cluster, CancellationToken ct)
            {
                var alice = cluster.Cown<Account>("alice");
                var bob = cluster.Cown<Account>("bob");
                await cluster.WhenAsync(BocCluster.Read(alice), bob, (r, w) => w.Balance = r.Balance, ct);
                long sum = await cluster.WhenAsync(new ClusterAcquirable<Account>[] { BocCluster.Read(alice), bob }, all => all.Sum(a => a.Balance));
                await cluster.WhenAsync(alice, BocCluster.Read(alice), (w, r) => w.Balance = r.Balance + 1);
                bool moved = await cluster.WhenAsync(alice, bob, (src, dst) =>
                {
                    if (src.Balance < 10) return false;
                    src.Balance -= 10;
                    dst.Balance += 10;
                    return true;
                });
            }
        }
        """);

    [Fact]
    public Task Flags_blocking_async_void_and_self_waits_in_cluster_bodies() => ClusterStubs.VerifyAsync("""
        class C
        {
            async Task M(IBocCluster cluster, Task<long> load)
            {
                var alice = cluster.Cown<Account>("alice");
                await cluster.WhenAsync(alice, a => { {|BOC201:Thread.Sleep(10)|}; a.Balance = {|BOC201:load.Result|}; });
                await cluster.WhenAsync(alice, {|BOC202:new Action<Account>(async a => { await Task.Yield(); a.Balance++; })|});
                await cluster.WhenAsync(alice, async a =>
                {
                    a.Balance = {|BOC203:await cluster.WhenAsync(BocCluster.Read(alice), b => b.Balance + 1)|};
                });
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_awaits_async_bodies_and_waits_on_other_cowns() => ClusterStubs.VerifyAsync("""
        class C
        {
            async Task M(IBocCluster cluster, Task<long> load)
            {
                var alice = cluster.Cown<Account>("alice");
                var bob = cluster.Cown<Account>("bob");
                await cluster.WhenAsync(alice, async a => { a.Balance = await load; await Task.Delay(1); });
                await cluster.WhenAsync(alice, async a => { await Task.Yield(); a.Balance++; });
                await cluster.WhenAsync(alice, async a =>
                {
                    long other = await cluster.WhenAsync(BocCluster.Read(bob), b => b.Balance);
                    a.Balance += other;
                });
            }
        }
        """);

    [Fact]
    public Task Ignores_a_when_async_of_a_type_that_is_not_a_cluster() => ClusterStubs.VerifyAsync("""
        class C
        {
            async Task M(IBocCluster cluster, Lookalike other)
            {
                var alice = cluster.Cown<Account>("alice");
                Account? kept = null;
                await other.WhenAsync(BocCluster.Read(alice), r => { r.Balance = 1; kept = r; Thread.Sleep(1); });
            }
        }

        sealed class Lookalike
        {
            public Task WhenAsync<T>(ClusterAcquirable<T> c, Action<T> body) where T : class, new() => Task.CompletedTask;
        }
        """);

    [Fact]
    public async Task A_read_only_cluster_write_says_the_change_is_lost()
    {
        Diagnostic diagnostic = await ClusterStubs.SingleDiagnosticAsync("""
            class C
            {
                Task M(IBocCluster cluster) => cluster.WhenAsync(BocCluster.Read(cluster.Cown<Account>("a")), a => a.Balance = 0);
            }
            """);
        Assert.Equal("BOC104", diagnostic.Id);
        Assert.Equal("'a' was acquired read-only (Read(...)); this assignment writes to it but a cluster behaviour never writes a read-only copy back: the change is lost",
            diagnostic.GetMessage(CultureInfo.InvariantCulture));
    }

    [Fact]
    public Task Works_without_boc_itself_when_only_the_cluster_types_exist() => VerifyClusterOnlyAsync();

    private static async Task VerifyClusterOnlyAsync()
    {
        // A project that references Boc.Orleans and not Boc (Boc.Orleans does not depend on Boc): the analyzer must still
        // see cluster bodies. Compiled without the Boc assembly.
        string source = """
            using System;
            using System.Collections.Generic;
            using System.Threading;
            using System.Threading.Tasks;
            using Boc.Orleans;

            class C
            {
                Task M(IBocCluster cluster) => cluster.WhenAsync(BocCluster.Read(cluster.Cown<Account>("a")), a => a.Balance = 0);
            }

            public sealed class Account { public long Balance { get; set; } }
            """ + ClusterStubs.Source;
        var compilation = Microsoft.CodeAnalysis.CSharp.CSharpCompilation.Create("ClusterOnly",
            [Microsoft.CodeAnalysis.CSharp.CSharpSyntaxTree.ParseText(source, new Microsoft.CodeAnalysis.CSharp.CSharpParseOptions(Microsoft.CodeAnalysis.CSharp.LanguageVersion.Preview))],
            References.Where(r => !(r.Display ?? "").EndsWith("Boc.dll", StringComparison.Ordinal)),
            new Microsoft.CodeAnalysis.CSharp.CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, nullableContextOptions: NullableContextOptions.Enable));
        Assert.Null(compilation.GetTypeByMetadataName("Boc.Cown`1"));
        ImmutableArray<Diagnostic> diagnostics = await AnalyzeAsync(compilation);
        Assert.Equal("BOC104", Assert.Single(diagnostics).Id);
    }
}
