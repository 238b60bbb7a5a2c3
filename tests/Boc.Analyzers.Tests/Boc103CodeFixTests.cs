using System.Collections.Immutable;
using Boc.Analyzers.CodeFixes;
using Microsoft.CodeAnalysis.Diagnostics;
using static Boc.Analyzers.Tests.CodeFixHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// BOC103's fix: the behaviour reads its own copy of a captured value. The fixed programs run to the balance the code
/// meant (12, plus each iteration's value or the value at the spawn), whatever the spawning code does afterwards.
/// </summary>
public class Boc103CodeFixTests
{
    private static readonly ImmutableArray<DiagnosticAnalyzer> s_analyzers = [new SharedMutableCaptureAnalyzer()];

    [Fact]
    public Task A_for_loop_variable_is_copied_inside_the_loop() => VerifyFixAsync(new CopyCaptureCodeFix(), s_analyzers,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> dst)
            {
                for (int i = 1; i <= 3; i++)
                    runtime.When(dst, d => d.Balance += i);
            }
        }
        """,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> dst)
            {
                for (int i = 1; i <= 3; i++)
                {
                    var iCopy = i;
                    runtime.When(dst, d => d.Balance += iCopy);
                }
            }
        }
        """,
        DstBalanceProgram,
        expected: 18);

    [Fact]
    public Task A_value_written_after_the_spawn_is_copied_before_it() => VerifyFixAsync(new CopyCaptureCodeFix(), s_analyzers,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> dst)
            {
                long bonus = 30;
                runtime.When(dst, d => d.Balance += bonus);
                bonus = 1000;
            }
        }
        """,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> dst)
            {
                long bonus = 30;
                var bonusCopy = bonus;
                runtime.When(dst, d => d.Balance += bonusCopy);
                bonus = 1000;
            }
        }
        """,
        DstBalanceProgram,
        expected: 42);

    [Fact]
    public async Task Not_offered_for_mutable_objects_writes_in_the_body_this_or_statics()
    {
        var fixes = await FixesAsync("""
            class C
            {
                private static int s_total;
                private int _hits;

                public void M(BocRuntime runtime, Cown<Account> c)
                {
                    var items = new List<int>();
                    runtime.When(c, a => items.Add(1));
                    Console.WriteLine(items.Count);

                    int count = 0;
                    runtime.When(c, a => count++);

                    runtime.When(c, a => a.Balance = _hits + s_total);
                }
            }
            """, s_analyzers, [new CopyCaptureCodeFix()]);
        Assert.Empty(fixes);
    }
}
