using System.Collections.Immutable;
using Boc.Analyzers.CodeFixes;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CodeActions;
using Microsoft.CodeAnalysis.CodeFixes;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Diagnostics;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>The BOC101 fix: the result is what a person would write, it compiles, and no Boc rule fires on it.</summary>
public class Boc101CodeFixTests
{
    [Fact]
    public Task Adds_the_outer_cown_to_a_simple_lambda() => VerifyFixAsync(
        """
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) =>
                When(src, s => When(dst, d => d.Balance += s.Balance));
        }
        """,
        """
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) =>
                When(src, s => When(dst, src, (d, s) => d.Balance += s.Balance));
        }
        """);

    [Fact]
    public Task Replaces_aliases_keeps_read_only_and_typed_parameters_before_the_state() => VerifyFixAsync(
        """
        class C
        {
            void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) => runtime.When(Read(src), s =>
            {
                var a = s;
                runtime.When(dst, (Account d, long n) => d.Balance += a.Balance + n + a.Log.Count, 5L);
            });
        }
        """,
        """
        class C
        {
            void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) => runtime.When(Read(src), s =>
            {
                var a = s;
                runtime.When(dst, Read(src), (Account d, Account s, long n) => d.Balance += s.Balance + n + s.Log.Count, 5L);
            });
        }
        """);

    [Fact]
    public Task Works_in_async_bodies_and_result_forms() => VerifyFixAsync(
        """
        class C
        {
            void M(Cown<Account>[] accounts, int i, Cown<Account> dst) => When(accounts[i], async s =>
            {
                await Task.Yield();
                s.Balance = await WhenAsync(dst, d => d.Balance + s.Balance);
            });
        }
        """,
        """
        class C
        {
            void M(Cown<Account>[] accounts, int i, Cown<Account> dst) => When(accounts[i], async s =>
            {
                await Task.Yield();
                s.Balance = await WhenAsync(dst, accounts[i], (d, s) => d.Balance + s.Balance);
            });
        }
        """);

    [Fact]
    public async Task Is_not_offered_for_a_state_argument_or_a_part_of_the_state()
    {
        Assert.Empty(await FixesAsync("""
            class C
            {
                void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) =>
                    runtime.When(src, s => runtime.When(dst, static (d, other) => d.Balance = other.Balance, s));
            }
            """));
        Assert.Empty(await FixesAsync("""
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

    private static async Task VerifyFixAsync(string before, string after)
    {
        List<(Document Document, CodeAction Action)> fixes = await FixesAsync(before);
        // Each use of the outer state is a diagnostic; all of them offer the same rewrite of the inner When.
        Assert.NotEmpty(fixes);
        Assert.Single(fixes.Select(f => f.Action.Title).Distinct());
        (Document document, CodeAction action) = fixes[0];
        ImmutableArray<CodeActionOperation> operations = await action.GetOperationsAsync(CancellationToken.None);
        Solution changed = Assert.IsType<ApplyChangesOperation>(Assert.Single(operations)).ChangedSolution;
        string fixedText = (await changed.GetDocument(document.Id)!.GetTextAsync()).ToString();
        Assert.Equal(Usings + after + SharedTypes, fixedText);

        // The fixed source compiles (AnalyzeAsync asserts no errors) and no Boc rule fires any more.
        Assert.Empty(await AnalyzeAsync(Compile([fixedText])));
    }

    private static async Task<List<(Document, CodeAction)>> FixesAsync(string source)
    {
        using var workspace = new AdhocWorkspace();
        var projectId = ProjectId.CreateNewId();
        var documentId = DocumentId.CreateNewId(projectId);
        Solution solution = workspace.CurrentSolution
            .AddProject(projectId, "Test", "Test", LanguageNames.CSharp)
            .WithProjectCompilationOptions(projectId, new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, nullableContextOptions: NullableContextOptions.Enable))
            .WithProjectParseOptions(projectId, new CSharpParseOptions(LanguageVersion.Preview))
            .AddMetadataReferences(projectId, References)
            .AddDocument(documentId, "Test.cs", Usings + source + SharedTypes);
        Document document = solution.GetDocument(documentId)!;
        Compilation compilation = (await document.Project.GetCompilationAsync())!;
        ImmutableArray<Diagnostic> diagnostics = await AnalyzeAsync(compilation, [new NonAcquiredStateAnalyzer()]);
        var provider = new AcquireOuterCownCodeFix();
        var fixes = new List<(Document, CodeAction)>();
        foreach (Diagnostic diagnostic in diagnostics.Where(d => provider.FixableDiagnosticIds.Contains(d.Id)))
        {
            var context = new CodeFixContext(document, diagnostic, (action, _) => fixes.Add((document, action)), CancellationToken.None);
            await provider.RegisterCodeFixesAsync(context);
        }

        return fixes;
    }
}
