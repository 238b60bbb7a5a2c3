using System.Collections.Immutable;
using Boc.Analyzers.CodeFixes;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CodeActions;
using Microsoft.CodeAnalysis.CodeFixes;
using Microsoft.CodeAnalysis.CSharp;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// Fix all for BOC101 (what <c>dotnet format analyzers</c> and "Fix all occurrences" run): every fixable diagnostic is
/// fixed, also when fixes touch the same <c>When</c> call, and the result compiles with no Boc diagnostic left.
/// </summary>
public class Boc101FixAllTests
{
    [Fact]
    public Task Fixes_independent_spawns_in_one_document() => VerifyFixAllAsync(
        """
        class C
        {
            void M(Cown<Account> a, Cown<Account> b, Cown<Account> c)
            {
                When(a, x => When(b, y => y.Balance += x.Balance));
                When(b, x => When(c, y => y.Balance += x.Balance));
            }
        }
        """,
        """
        class C
        {
            void M(Cown<Account> a, Cown<Account> b, Cown<Account> c)
            {
                When(a, x => When(b, a, (y, x) => y.Balance += x.Balance));
                When(b, x => When(c, b, (y, x) => y.Balance += x.Balance));
            }
        }
        """);

    [Fact]
    public Task Fixes_that_rewrite_the_same_When_are_applied_one_after_the_other() => VerifyFixAllAsync(
        """
        class C
        {
            void M(Cown<Account> a, Cown<Account> b, Cown<Account> c) =>
                When(a, x => When(b, y => When(c, z => z.Balance += x.Balance + y.Balance)));
        }
        """,
        """
        class C
        {
            void M(Cown<Account> a, Cown<Account> b, Cown<Account> c) =>
                When(a, x => When(b, y => When(c, a, b, (z, x, y) => z.Balance += x.Balance + y.Balance)));
        }
        """);

    [Fact]
    public Task Fixes_a_spawn_and_the_spawn_nested_in_it() => VerifyFixAllAsync(
        """
        class C
        {
            void M(Cown<Account> a, Cown<Account> b, Cown<Account> c) =>
                When(a, x => When(b, y =>
                {
                    y.Balance += x.Balance;
                    When(c, z => z.Balance += y.Balance);
                }));
        }
        """,
        """
        class C
        {
            void M(Cown<Account> a, Cown<Account> b, Cown<Account> c) =>
                When(a, x => When(b, a, (y, x) =>
                {
                    y.Balance += x.Balance;
                    When(c, b, (z, y) => z.Balance += y.Balance);
                }));
        }
        """);

    [Fact]
    public async Task Leaves_what_it_cannot_fix_and_fixes_the_rest()
    {
        // A part of the outer state (x.Log) cannot be rewritten mechanically; the other spawn is fixed.
        const string before = """
            class C
            {
                void M(Cown<Account> a, Cown<Account> b)
                {
                    When(a, x => { var log = x.Log; When(b, y => log.Add("")); });
                    When(a, x => When(b, y => y.Balance += x.Balance));
                }
            }
            """;
        string fixedText = await FixAllAsync(before);
        Assert.Contains("""When(b, a, (y, x) => y.Balance += x.Balance)""", fixedText, StringComparison.Ordinal);
        Assert.Contains("""When(b, y => log.Add(""))""", fixedText, StringComparison.Ordinal);
        ImmutableArray<Diagnostic> left = await AnalyzeAsync(Compile([fixedText]), [new NonAcquiredStateAnalyzer()]);
        Assert.Single(left);
    }

    [Fact]
    public void The_code_fix_offers_fix_all_for_the_usual_scopes()
    {
        FixAllProvider? provider = new AcquireOuterCownCodeFix().GetFixAllProvider();
        Assert.NotNull(provider);
        Assert.Contains(FixAllScope.Document, provider.GetSupportedFixAllScopes());
        Assert.Contains(FixAllScope.Project, provider.GetSupportedFixAllScopes());
        Assert.Contains(FixAllScope.Solution, provider.GetSupportedFixAllScopes());
    }

    private static async Task VerifyFixAllAsync(string before, string after)
    {
        string fixedText = await FixAllAsync(before);
        Assert.Equal(Usings + after + SharedTypes, fixedText);
        // The fixed source compiles (AnalyzeAsync asserts no errors) and no Boc rule fires any more.
        Assert.Empty(await AnalyzeAsync(Compile([fixedText])));
    }

    private static async Task<string> FixAllAsync(string source)
    {
        Document document = CodeFixHarness.DocumentFor(Usings + source + SharedTypes);
        ImmutableArray<Diagnostic> diagnostics = await AnalyzeAsync((await document.Project.GetCompilationAsync())!, [new NonAcquiredStateAnalyzer()]);
        Assert.True(diagnostics.Length >= 2, "a fix-all test needs several diagnostics");

        var fix = new AcquireOuterCownCodeFix();
        var context = new FixAllContext(
            document, fix, FixAllScope.Document, nameof(AcquireOuterCownCodeFix), fix.FixableDiagnosticIds,
            new Diagnostics(diagnostics), CancellationToken.None);
        CodeAction action = (await fix.GetFixAllProvider()!.GetFixAsync(context))!;
        ImmutableArray<CodeActionOperation> operations = await action.GetOperationsAsync(CancellationToken.None);
        Solution changed = Assert.IsType<ApplyChangesOperation>(Assert.Single(operations)).ChangedSolution;
        return (await changed.GetDocument(document.Id)!.GetTextAsync()).ToString();
    }

    private sealed class Diagnostics(ImmutableArray<Diagnostic> all) : FixAllContext.DiagnosticProvider
    {
        public override Task<IEnumerable<Diagnostic>> GetAllDiagnosticsAsync(Project project, CancellationToken cancellationToken) =>
            Task.FromResult<IEnumerable<Diagnostic>>(all);

        public override Task<IEnumerable<Diagnostic>> GetDocumentDiagnosticsAsync(Document document, CancellationToken cancellationToken) =>
            Task.FromResult<IEnumerable<Diagnostic>>(all);

        public override Task<IEnumerable<Diagnostic>> GetProjectDiagnosticsAsync(Project project, CancellationToken cancellationToken) =>
            Task.FromResult<IEnumerable<Diagnostic>>([]);
    }
}
