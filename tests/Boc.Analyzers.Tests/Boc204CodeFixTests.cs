using System.Collections.Immutable;
using Boc.Analyzers.CodeFixes;
using Microsoft.CodeAnalysis.Diagnostics;
using static Boc.Analyzers.Tests.CodeFixHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// BOC204's fix: <c>await using</c> on the scope. The fixed programs run: a member's failure, lost before the fix, comes
/// out of the method after it; and the fix is not offered where ending the scope would wait for a behaviour queued
/// behind the body, nor where it would not compile.
/// </summary>
public class Boc204CodeFixTests
{
    private static readonly ImmutableArray<DiagnosticAnalyzer> s_analyzers = [new UnfinishedScopeAnalyzer()];

    // Runs C.M and reports what came out of it: 0 if it returned, the number of member failures if the scope threw them.
    private const string Program = """

        public static class Program
        {
            public static async Task<long> Run(BocRuntime runtime)
            {
                var account = new Cown<Account>(new Account { Balance = 5 });
                try
                {
                    await new C().M(runtime, account);
                    return 0;
                }
                catch (AggregateException failures)
                {
                    return failures.InnerExceptions.Count;
                }
            }
        }
        """;

    [Fact]
    public Task A_dropped_scope_becomes_an_await_using_declaration() => VerifyFixAsync(new AwaitUsingScopeCodeFix(), s_analyzers,
        """
        class C
        {
            public async Task M(BocRuntime runtime, Cown<Account> account)
            {
                runtime.BeginScope();
                runtime.When(account, a => { if (a.Balance < 10) throw new InvalidOperationException("low"); });
                await Task.Yield();
            }
        }
        """,
        """
        class C
        {
            public async Task M(BocRuntime runtime, Cown<Account> account)
            {
                await using var scope = runtime.BeginScope();
                runtime.When(account, a => { if (a.Balance < 10) throw new InvalidOperationException("low"); });
                await Task.Yield();
            }
        }
        """,
        Program,
        expected: 1);

    [Fact]
    public Task A_scope_local_gets_await_using() => VerifyFixAsync(new AwaitUsingScopeCodeFix(), s_analyzers,
        """
        class C
        {
            public async Task M(BocRuntime runtime, Cown<Account> account)
            {
                var scope = runtime.BeginScope(TimeSpan.FromSeconds(30));
                runtime.When(account, a => throw new InvalidOperationException("first"));
                if (scope.IsCancellationRequested)
                {
                    return;
                }

                await Task.Yield();
            }
        }
        """,
        """
        class C
        {
            public async Task M(BocRuntime runtime, Cown<Account> account)
            {
                await using var scope = runtime.BeginScope(TimeSpan.FromSeconds(30));
                runtime.When(account, a => throw new InvalidOperationException("first"));
                if (scope.IsCancellationRequested)
                {
                    return;
                }

                await Task.Yield();
            }
        }
        """,
        Program,
        expected: 1);

    [Fact]
    public Task A_discarded_scope_gets_a_name_nothing_else_uses() => VerifyFixAsync(new AwaitUsingScopeCodeFix(), s_analyzers,
        """
        class C
        {
            public async Task M(BocRuntime runtime, Cown<Account> account)
            {
                string scope = "audit";
                _ = Behaviours.BeginScope();
                runtime.When(account, a => a.Log.Add(scope));
                runtime.When(account, a => throw new InvalidOperationException(scope));
                await Task.Yield();
            }
        }
        """,
        """
        class C
        {
            public async Task M(BocRuntime runtime, Cown<Account> account)
            {
                string scope = "audit";
                await using var scope2 = Behaviours.BeginScope();
                runtime.When(account, a => a.Log.Add(scope));
                runtime.When(account, a => throw new InvalidOperationException(scope));
                await Task.Yield();
            }
        }
        """,
        Program,
        expected: 1);

    [Fact]
    public async Task Not_offered_where_the_end_would_wait_for_a_member_queued_behind_the_body_or_would_not_compile()
    {
        var fixes = await FixesAsync("""
            class C
            {
                public void M(BocRuntime runtime, Cown<Account> c, Cown<Account> d)
                {
                    runtime.When(c, async a =>
                    {
                        runtime.BeginScope();
                        runtime.When(c, x => x.Balance++);
                        await Task.Yield();
                    });

                    runtime.BeginScope();
                    runtime.When(d, x => x.Balance++);
                }

                public async Task N(BocRuntime runtime, Cown<Account> d, bool flag)
                {
                    if (flag)
                        runtime.BeginScope();
                    var scope = runtime.BeginScope();
                    scope = runtime.BeginScope();
                    await Task.Yield();
                }
            }
            """, s_analyzers, [new AwaitUsingScopeCodeFix()]);
        Assert.Empty(fixes);
    }
}
