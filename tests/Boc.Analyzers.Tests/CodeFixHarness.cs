using System.Collections.Immutable;
using System.Reflection;
using System.Runtime.Loader;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CodeActions;
using Microsoft.CodeAnalysis.CodeFixes;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Diagnostics;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// Runs code fixes the way an IDE does (an ad hoc workspace, a document, the diagnostics of the given analyzers, the
/// providers' registered actions), and runs fixed programs: a fix must produce code that compiles, that no Boc rule
/// reports, and that completes.
/// </summary>
internal static class CodeFixHarness
{
    /// <summary>
    /// A driver for a fixed <c>C.M(BocRuntime, Cown&lt;Account&gt; dst)</c>: dst starts at 12; after <c>M</c> and
    /// quiescence, <c>Program.Run</c> returns dst's balance.
    /// </summary>
    public const string DstBalanceProgram = """

        public static class Program
        {
            public static async Task<long> Run(BocRuntime runtime)
            {
                var dst = new Cown<Account>(new Account { Balance = 12 });
                new C().M(runtime, dst);
                await runtime.WaitForQuiescenceAsync();
                return await runtime.WhenAsync(dst, d => d.Balance);
            }
        }
        """;

    // Generous: the fixed programs finish in milliseconds; only a deadlock gets near this.
    private static readonly TimeSpan s_hangGuard = TimeSpan.FromSeconds(60);

    /// <summary>
    /// The fixes <paramref name="providers"/> offer for <paramref name="source"/> (wrapped in the harness's usings and
    /// shared types, then <paramref name="suffix"/>), for the diagnostics of <paramref name="analyzers"/>.
    /// </summary>
    public static async Task<List<(Document Document, CodeAction Action)>> FixesAsync(string source, ImmutableArray<DiagnosticAnalyzer> analyzers,
        IReadOnlyList<CodeFixProvider> providers, string suffix = "", IEnumerable<MetadataReference>? extra = null)
    {
        Document document = DocumentFor(Usings + source + SharedTypes + suffix, extra);
        Compilation compilation = (await document.Project.GetCompilationAsync())!;
        ImmutableArray<Diagnostic> diagnostics = await AnalyzeAsync(compilation, analyzers);
        var fixes = new List<(Document Document, CodeAction Action)>();
        foreach (CodeFixProvider provider in providers)
        {
            foreach (Diagnostic diagnostic in diagnostics.Where(d => provider.FixableDiagnosticIds.Contains(d.Id)))
            {
                var context = new CodeFixContext(document, diagnostic, (action, _) => fixes.Add((document, action)), CancellationToken.None);
                await provider.RegisterCodeFixesAsync(context);
            }
        }

        return fixes;
    }

    /// <summary>A document of <paramref name="text"/> in a project of its own, as the tests compile sources (C# preview, nullable, Boc).</summary>
    public static Document DocumentFor(string text, IEnumerable<MetadataReference>? extra = null)
    {
        using var workspace = new AdhocWorkspace();
        var projectId = ProjectId.CreateNewId();
        var documentId = DocumentId.CreateNewId(projectId);
        return workspace.CurrentSolution
            .AddProject(projectId, "Test", "Test", LanguageNames.CSharp)
            .WithProjectCompilationOptions(projectId, new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, nullableContextOptions: NullableContextOptions.Enable))
            .WithProjectParseOptions(projectId, new CSharpParseOptions(LanguageVersion.Preview))
            .AddMetadataReferences(projectId, References.AddRange(extra ?? []))
            .AddDocument(documentId, "Test.cs", text)
            .GetDocument(documentId)!;
    }

    /// <summary>The text of <paramref name="document"/> after <paramref name="action"/>.</summary>
    public static async Task<string> ApplyAsync(Document document, CodeAction action)
    {
        ImmutableArray<CodeActionOperation> operations = await action.GetOperationsAsync(CancellationToken.None);
        Solution changed = Assert.IsType<ApplyChangesOperation>(Assert.Single(operations)).ChangedSolution;
        return (await changed.GetDocument(document.Id)!.GetTextAsync()).ToString();
    }

    /// <summary>
    /// Applies the one fix <paramref name="provider"/> offers for <paramref name="before"/> (all its diagnostics offer the
    /// same rewrite), checks the text against <paramref name="after"/>, that the result compiles and that no Boc rule
    /// reports anything on it, and runs it: <c>Program.Run</c> (in <paramref name="program"/>) must return
    /// <paramref name="expected"/>.
    /// </summary>
    public static async Task VerifyFixAsync(CodeFixProvider provider, ImmutableArray<DiagnosticAnalyzer> analyzers, string before, string after,
        string program, long expected)
    {
        List<(Document Document, CodeAction Action)> fixes = await FixesAsync(before + program, analyzers, [provider]);
        Assert.NotEmpty(fixes);
        Assert.Single(fixes.Select(f => f.Action.Title).Distinct());
        (Document document, CodeAction action) = fixes[0];
        string fixedText = await ApplyAsync(document, action);
        Assert.Equal(Usings + after + program + SharedTypes, fixedText);

        // The fixed source compiles (AnalyzeAsync asserts no errors) and no Boc rule fires any more, BOC203 included.
        Compilation compilation = Compile([fixedText]);
        Assert.Empty(await AnalyzeAsync(compilation));

        // And it completes, with the result the original meant.
        Assert.Equal(expected, await RunAsync(compilation));
    }

    /// <summary>Emits, loads into a collectible context (Boc resolves to the test's own copy) and runs Program.Run.</summary>
    public static async Task<long> RunAsync(Compilation compilation)
    {
        using var image = new MemoryStream();
        Microsoft.CodeAnalysis.Emit.EmitResult emitted = compilation.Emit(image);
        Assert.True(emitted.Success, string.Join("\n", emitted.Diagnostics));
        image.Position = 0;
        var context = new AssemblyLoadContext("fixed-code", isCollectible: true);
        try
        {
            Assembly assembly = context.LoadFromStream(image);
            MethodInfo run = assembly.GetType("Program", throwOnError: true)!.GetMethod("Run")!;
            var runtime = new BocRuntime();
            var running = (Task<long>)run.Invoke(null, [runtime])!;
            Task finished = await Task.WhenAny(running, Task.Delay(s_hangGuard));
            // On a hang the runtime is left alone: disposing it would wait for the stuck behaviour forever.
            Assert.True(finished == running, $"the fixed code did not complete within {s_hangGuard.TotalSeconds} s: it deadlocks");
            long result = await running;
            await runtime.DisposeAsync();
            return result;
        }
        finally
        {
            context.Unload();
        }
    }
}
