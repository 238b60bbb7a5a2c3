using System.Collections.Immutable;
using Boc.Analyzers.CodeFixes;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CodeActions;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// The BOC101 fixes: the result is what a person would write, it compiles, no Boc rule fires on it, and it RUNS to
/// completion with the expected result (a fix must never produce code that cannot complete). Each source has a
/// <c>Program.Run(BocRuntime)</c> that drives the fixed code on a fresh runtime.
/// </summary>
public class Boc101CodeFixTests
{
    private const string Acquire = "Acquire";
    private const string Capture = "Capture";

    [Fact]
    public Task Adds_the_outer_cown_to_a_simple_lambda() => VerifyFixAsync(Acquire,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) =>
                runtime.When(src, s => runtime.When(dst, d => d.Balance += s.Balance));
        }
        """,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) =>
                runtime.When(src, s => runtime.When(dst, src, (d, s) => d.Balance += s.Balance));
        }
        """,
        ProgramFor("new C().M(runtime, src, dst);"),
        expected: 42);

    [Fact]
    public Task Captures_the_value_instead_when_asked() => VerifyFixAsync(Capture,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) =>
                runtime.When(src, s => runtime.When(dst, d => d.Balance += s.Balance));
        }
        """,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) =>
                runtime.When(src, s =>
                {
                    var balance = s.Balance;
                    runtime.When(dst, d => d.Balance += balance);
                });
        }
        """,
        ProgramFor("new C().M(runtime, src, dst);"),
        expected: 42);

    [Fact]
    public Task Replaces_aliases_keeps_read_only_and_typed_parameters_before_the_state() => VerifyFixAsync(Acquire,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) => runtime.When(Read(src), s =>
            {
                var a = s;
                runtime.When(dst, (Account d, long n) => d.Balance += a.Balance + n + a.Log.Count, 5L);
            });
        }
        """,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) => runtime.When(Read(src), s =>
            {
                var a = s;
                runtime.When(dst, Read(src), (Account d, Account s, long n) => d.Balance += s.Balance + n + s.Log.Count, 5L);
            });
        }
        """,
        ProgramFor("new C().M(runtime, src, dst);"),
        // 12 + 30 + 5 + one log entry.
        expected: 48);

    [Fact]
    public async Task Awaited_inner_behaviour_gets_the_value_not_the_outer_cown()
    {
        // The case: the outer body holds src while it awaits. Acquiring src in the inner When would make the
        // outer body wait for a behaviour queued behind itself; the fix passes the value instead.
        const string before = """
            class C
            {
                public Task<long> M(BocRuntime runtime, Cown<Account> src, Cown<Options> rates) => runtime.WhenAsync(src, async s =>
                {
                    var t = await runtime.WhenAsync(Read(rates), r => s.Balance * r.Limit / 100);
                    s.Balance -= t;
                    return s.Balance;
                }).AsTask();
            }
            """;
        Assert.DoesNotContain(await TitlesAsync(before + RatesProgram), t => t.StartsWith(Acquire, StringComparison.Ordinal));
        await VerifyFixAsync(Capture, before,
            """
            class C
            {
                public Task<long> M(BocRuntime runtime, Cown<Account> src, Cown<Options> rates) => runtime.WhenAsync(src, async s =>
                {
                    var balance = s.Balance;
                    var t = await runtime.WhenAsync(Read(rates), r => balance * r.Limit / 100);
                    s.Balance -= t;
                    return s.Balance;
                }).AsTask();
            }
            """,
            RatesProgram,
            // 1000 - 1000 * 5 / 100.
            expected: 950);
    }

    [Fact]
    public async Task Blocked_on_or_returned_inner_behaviour_gets_the_value_in_a_new_block()
    {
        const string before = """
            class C
            {
                public Task<long> M(BocRuntime runtime, Cown<Account>[] accounts, int i, Cown<Account> dst) =>
                    runtime.WhenAsync(accounts[i], s => runtime.WhenAsync(dst, d => d.Balance + s.Balance + s.Log.Count).AsTask()).AsTask();
            }
            """;
        string program = ProgramFor("return await new C().M(runtime, new[] { src }, 0, dst);", awaitsResult: true);
        Assert.DoesNotContain(await TitlesAsync(before + program), t => t.StartsWith(Acquire, StringComparison.Ordinal));
        await VerifyFixAsync(Capture, before,
            """
            class C
            {
                public Task<long> M(BocRuntime runtime, Cown<Account>[] accounts, int i, Cown<Account> dst) =>
                    runtime.WhenAsync(accounts[i], s =>
                    {
                        var balance = s.Balance;
                        var logCount = s.Log.Count;
                        return runtime.WhenAsync(dst, d => d.Balance + balance + logCount).AsTask();
                    }).AsTask();
            }
            """,
            program,
            expected: 43);
    }

    [Fact]
    public Task Capture_names_do_not_collide_and_repeated_uses_share_one_local() => VerifyFixAsync(Capture,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) => runtime.When(src, s =>
            {
                long balance = 1;
                runtime.When(dst, d => d.Balance += s.Balance + s.Balance - balance);
            });
        }
        """,
        """
        class C
        {
            public void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) => runtime.When(src, s =>
            {
                long balance = 1;
                var balance2 = s.Balance;
                runtime.When(dst, d => d.Balance += balance2 + balance2 - balance);
            });
        }
        """,
        ProgramFor("new C().M(runtime, src, dst);"),
        expected: 71);

    [Fact]
    public async Task Is_not_offered_for_a_state_argument_or_a_part_of_the_state()
    {
        Assert.Empty(await TitlesAsync("""
            class C
            {
                void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) =>
                    runtime.When(src, s => runtime.When(dst, static (d, other) => d.Balance = other.Balance, s));
            }
            """));
        Assert.Empty(await TitlesAsync("""
            class C
            {
                void M(Cown<Account> src, Cown<Account> dst) => When(src, s =>
                {
                    var log = s.Log;
                    When(dst, d => log.Add("x"));
                });
            }
            """));
    }

    [Fact]
    public async Task Offers_nothing_when_an_awaited_inner_body_writes_the_outer_state()
    {
        // Acquiring would deadlock, and a write cannot be passed in as a value.
        Assert.Empty(await TitlesAsync("""
            class C
            {
                void M(Cown<Account> src, Cown<Account> dst) => When(src, async s =>
                {
                    await WhenAsync(dst, d => s.Balance = d.Balance);
                    await WhenAsync(dst, d => d.Log.Add(s.Log[0]));
                });
            }
            """));
    }

    [Fact]
    public async Task Capture_is_not_offered_for_a_written_or_whole_object_use()
    {
        List<string> titles = await TitlesAsync("""
            class C
            {
                void M(Cown<Account> src, Cown<Account> dst)
                {
                    When(src, s => When(dst, d => s.Balance = d.Balance));
                    When(src, s => When(dst, d => d.Partner = s));
                    When(src, s => When(dst, d => s.Log.Add("x")));
                }
            }
            """);
        Assert.NotEmpty(titles);
        Assert.All(titles, t => Assert.StartsWith(Acquire, t, StringComparison.Ordinal));
    }

    [Fact]
    public async Task Capture_is_not_offered_where_the_new_local_would_not_sit_next_to_the_inner_when()
    {
        List<string> titles = await TitlesAsync("""
            class C
            {
                void M(Cown<Account> src, Cown<Account> dst, bool flag, List<int> items)
                {
                    When(src, s => { for (int i = 0; i < 2; i++) When(dst, d => d.Balance += s.Balance); });
                    When(src, s => { if (flag) When(dst, d => d.Balance += s.Balance); });
                    When(src, s => _ = flag ? WhenAsync(dst, d => d.Balance + s.Balance) : default);
                    When(src, s => new[] { 1 }.ToList().ForEach(_ => When(dst, d => d.Balance += s.Balance)));
                }
            }
            """);
        Assert.DoesNotContain(titles, t => t.StartsWith(Capture, StringComparison.Ordinal));
    }

    [Fact]
    public async Task Capture_is_not_offered_for_state_of_a_behaviour_further_out()
    {
        // Reading a.Balance in the middle body would be a BOC101 there: the middle behaviour does not hold a's cown.
        List<string> titles = await TitlesAsync("""
            class C
            {
                void M(Cown<Account> x, Cown<Account> y, Cown<Account> z) =>
                    When(x, a => When(y, b => When(z, c => c.Balance = a.Balance + b.Balance)));
            }
            """);
        Assert.Contains(titles, t => t == "Capture the value of 'b.Balance' before this When");
        Assert.DoesNotContain(titles, t => t.Contains("a.Balance", StringComparison.Ordinal));
    }

    private const string RatesProgram = """

        public static class Program
        {
            public static async Task<long> Run(BocRuntime runtime)
            {
                var src = new Cown<Account>(new Account { Balance = 1000 });
                var rates = new Cown<Options>(new Options { Limit = 5 });
                return await new C().M(runtime, src, rates);
            }
        }
        """;

    /// <summary>
    /// A driver that makes src (30, one log entry) and dst (12), runs <paramref name="call"/>, waits for quiescence
    /// and returns dst's balance, or returns what <paramref name="call"/> returns.
    /// </summary>
    private static string ProgramFor(string call, bool awaitsResult = false)
    {
        string tail = awaitsResult ? "" : """

                    await runtime.WaitForQuiescenceAsync();
                    return await runtime.WhenAsync(dst, d => d.Balance);
            """;
        return $$"""

            public static class Program
            {
                public static async Task<long> Run(BocRuntime runtime)
                {
                    var src = new Cown<Account>(new Account { Balance = 30, Log = { "opened" } });
                    var dst = new Cown<Account>(new Account { Balance = 12 });
                    {{call}}{{tail}}
                }
            }
            """;
    }

    private static async Task VerifyFixAsync(string titlePrefix, string before, string after, string program, long expected)
    {
        List<(Document Document, CodeAction Action)> fixes = (await FixesAsync(before + program))
            .Where(f => f.Action.Title.StartsWith(titlePrefix, StringComparison.Ordinal)).ToList();
        // Each use of the outer state is a diagnostic; all of them offer the same rewrite.
        Assert.NotEmpty(fixes);
        Assert.Single(fixes.Select(f => f.Action.Title).Distinct());
        (Document document, CodeAction action) = fixes[0];
        ImmutableArray<CodeActionOperation> operations = await action.GetOperationsAsync(CancellationToken.None);
        Solution changed = Assert.IsType<ApplyChangesOperation>(Assert.Single(operations)).ChangedSolution;
        string fixedText = (await changed.GetDocument(document.Id)!.GetTextAsync()).ToString();
        Assert.Equal(Usings + after + program + SharedTypes, fixedText);

        // The fixed source compiles (AnalyzeAsync asserts no errors) and no Boc rule fires any more, BOC203 included.
        Compilation compilation = Compile([fixedText]);
        Assert.Empty(await AnalyzeAsync(compilation));

        // And it completes, with the result the original meant.
        Assert.Equal(expected, await CodeFixHarness.RunAsync(compilation));
    }

    private static async Task<List<string>> TitlesAsync(string source) =>
        (await FixesAsync(source)).Select(f => f.Action.Title).Distinct().ToList();

    /// <summary>
    /// The fixes the BOC101 providers offer for <paramref name="source"/> (wrapped in the harness's usings and shared types,
    /// then <paramref name="suffix"/>), for the diagnostics of <paramref name="analyzers"/> (BOC101's by default).
    /// </summary>
    internal static Task<List<(Document Document, CodeAction Action)>> FixesAsync(string source,
        ImmutableArray<Microsoft.CodeAnalysis.Diagnostics.DiagnosticAnalyzer>? analyzers = null, string suffix = "") =>
        CodeFixHarness.FixesAsync(source, analyzers ?? [new NonAcquiredStateAnalyzer()], [new AcquireOuterCownCodeFix(), new CaptureOuterValueCodeFix()], suffix);
}
