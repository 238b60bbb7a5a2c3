using System.Collections.Immutable;
using Boc.Analyzers.CodeFixes;
using Microsoft.CodeAnalysis.Diagnostics;
using static Boc.Analyzers.Tests.CodeFixHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// BOC202's fix: the body becomes an <c>async Task</c>, so the behaviour keeps its cowns until the body's task
/// completes. Each fixed program runs: after quiescence the write after the await is there (12 + 30).
/// </summary>
public class Boc202CodeFixTests
{
    private static readonly ImmutableArray<DiagnosticAnalyzer> s_analyzers = [new AsyncVoidBodyAnalyzer()];

    [Fact]
    public Task An_Action_created_around_an_async_lambda_becomes_the_lambda() => VerifyFixAsync(new AsyncTaskBodyCodeFix(), s_analyzers,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> dst) =>
                runtime.When(dst, new Action<Account>(async d => { await Task.Yield(); d.Balance += 30; }));
        }
        """,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> dst) =>
                runtime.When(dst, async d => { await Task.Yield(); d.Balance += 30; });
        }
        """,
        DstBalanceProgram,
        expected: 42);

    [Fact]
    public Task A_cast_to_Action_is_removed() => VerifyFixAsync(new AsyncTaskBodyCodeFix(), s_analyzers,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> dst) =>
                runtime.When(dst, (Action<Account>)(async d =>
                {
                    await Task.Yield();
                    d.Balance += 30;
                }));
        }
        """,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> dst) =>
                runtime.When(dst, async d =>
                {
                    await Task.Yield();
                    d.Balance += 30;
                });
        }
        """,
        DstBalanceProgram,
        expected: 42);

    [Fact]
    public Task An_Action_local_becomes_a_Func_returning_a_task() => VerifyFixAsync(new AsyncTaskBodyCodeFix(), s_analyzers,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> dst)
            {
                Action<Account> body = async d => { await Task.Yield(); d.Balance += 30; };
                runtime.When(dst, body);
            }
        }
        """,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> dst)
            {
                Func<Account, Task> body = async d => { await Task.Yield(); d.Balance += 30; };
                runtime.When(dst, body);
            }
        }
        """,
        DstBalanceProgram,
        expected: 42);

    [Fact]
    public Task An_async_void_method_becomes_async_Task() => VerifyFixAsync(new AsyncTaskBodyCodeFix(), s_analyzers,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> dst) => runtime.When(dst, Deposit);

            private static async void Deposit(Account d)
            {
                await Task.Yield();
                d.Balance += 30;
            }
        }
        """,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> dst) => runtime.When(dst, Deposit);

            private static async Task Deposit(Account d)
            {
                await Task.Yield();
                d.Balance += 30;
            }
        }
        """,
        DstBalanceProgram,
        expected: 42);

    [Fact]
    public Task An_async_void_local_function_becomes_async_Task() => VerifyFixAsync(new AsyncTaskBodyCodeFix(), s_analyzers,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> dst)
            {
                async void Deposit(Account d) { await Task.Yield(); d.Balance += 15; }
                runtime.When(dst, Deposit);
                runtime.When(dst, Deposit);
            }
        }
        """,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> dst)
            {
                async Task Deposit(Account d) { await Task.Yield(); d.Balance += 15; }
                runtime.When(dst, Deposit);
                runtime.When(dst, Deposit);
            }
        }
        """,
        DstBalanceProgram,
        expected: 42);

    [Fact]
    public async Task Not_offered_where_the_method_or_local_has_other_uses_or_the_body_is_a_branch()
    {
        var fixes = await FixesAsync("""
            class C
            {
                public event Action<Account>? Changed;

                public void M(BocRuntime runtime, Cown<Account> dst, bool flag)
                {
                    runtime.When(dst, OnChanged);
                    Changed += OnChanged;

                    runtime.When(dst, Audit);
                    Audit(new Account());

                    Action<Account> body = async d => { await Task.Yield(); d.Balance++; };
                    runtime.When(dst, body);
                    body(new Account());

                    runtime.When(dst, flag ? Audit : Touch);
                }

                private static async void OnChanged(Account a) { await Task.Yield(); a.Balance++; }

                private static async void Audit(Account a) { await Task.Yield(); a.Log.Add("audit"); }

                private static void Touch(Account a) => a.Balance++;
            }
            """, s_analyzers, [new AsyncTaskBodyCodeFix()]);
        Assert.Empty(fixes);
    }
}
