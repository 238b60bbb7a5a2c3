using System.Collections.Immutable;
using System.Text.RegularExpressions;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// Every C# block of the user-facing documents compiles as written, with the console project's implicit usings, and the
/// Boc analyzers find nothing in it. A block that is a fragment says what it assumes in an HTML comment right above it,
/// visible in the Markdown source: <c>&lt;!-- compile-with: statements --&gt;</c> (declarations its statements use, put
/// after its usings) and <c>&lt;!-- compile-types: types --&gt;</c> (types, compiled next to it); a fragment also gets
/// <c>using Boc;</c>, as in the quick start it continues. A block that shows a mistake names the diagnostics it must
/// produce: <c>&lt;!-- compile-expect: BOC203 --&gt;</c>.
/// </summary>
public partial class DocumentationSnippetTests
{
    private static readonly string[] Documents =
    [
        "README.md",
        "src/Boc/PACKAGE.md",
        "src/Boc.Extensions.Hosting/PACKAGE.md",
        "docs/porting-actors.md",
        .. GuidePages(),
    ];

    // Every page of docs/guide, so a new page's examples are compiled without being listed here; the index has none.
    private static string[] GuidePages() =>
        Directory.GetFiles(Path.Combine(InRepoCodeTests.RepoRoot(), "docs", "guide"), "*.md")
            .Select(path => "docs/guide/" + Path.GetFileName(path))
            .Where(path => path != "docs/guide/README.md")
            .Order(StringComparer.Ordinal)
            .ToArray();

    public static TheoryData<string, int> Snippets()
    {
        var data = new TheoryData<string, int>();
        foreach (string document in Documents)
        {
            for (int i = 0; i < Extract(document).Count; i++)
            {
                data.Add(document, i);
            }
        }

        return data;
    }

    [Fact]
    public void Every_document_has_snippets_and_the_quick_starts_are_programs()
    {
        Assert.NotEmpty(GuidePages());
        foreach (string document in Documents)
        {
            Assert.NotEmpty(Extract(document));
        }

        // The install-and-run examples at the top must be whole programs, not fragments.
        Assert.Empty(Extract("src/Boc/PACKAGE.md")[0].With);
        Assert.Empty(Extract("README.md")[0].With);
    }

    [Theory]
    [MemberData(nameof(Snippets))]
    public async Task Snippet_compiles_and_is_clean(string document, int index)
    {
        Snippet snippet = Extract(document)[index];
        CompilationUnitSyntax parsed = (CompilationUnitSyntax)CSharpSyntaxTree.ParseText(snippet.Code).GetRoot();
        string usings = string.Concat(parsed.Usings.Select(u => u.ToFullString()));
        string rest = snippet.Code[(parsed.Usings.LastOrDefault()?.FullSpan.End ?? 0)..];
        bool program = parsed.Members.OfType<GlobalStatementSyntax>().Any() || snippet.With.Length > 0;
        string source = usings + snippet.With + "\n" + rest;

        var sources = new List<string> { source, InRepoCodeTests.ImplicitUsings };
        if (snippet.Types.Length > 0 || snippet.With.Length > 0)
        {
            // A fragment continues the quick start, which has `using Boc;`.
            sources.Add("global using Boc;\n" + snippet.Types);
        }

        CSharpCompilation compilation = Compile(sources, InRepoCodeTests.ProgramReferences(),
            program ? OutputKind.ConsoleApplication : OutputKind.DynamicallyLinkedLibrary);
        ImmutableArray<Diagnostic> errors = compilation.GetDiagnostics().Where(d => d.Severity == DiagnosticSeverity.Error).ToImmutableArray();
        Assert.True(errors.IsEmpty, $"{document}, C# block {index + 1} (line {snippet.Line}) does not compile:\n{string.Join("\n", errors)}\n---\n{source}");
        ImmutableArray<Diagnostic> boc = await AnalyzeAsync(compilation);
        string[] expected = snippet.Expect.Split(' ', StringSplitOptions.RemoveEmptyEntries);
        Assert.True(boc.Select(d => d.Id).Order().SequenceEqual(expected.Order()), $"{document}, C# block {index + 1} (line {snippet.Line}), expected [{snippet.Expect}]:\n" + string.Join("\n", boc));
    }

    [Fact]
    public void A_block_that_does_not_compile_is_caught()
    {
        // The extraction itself: a fragment without its compile-with comment must fail to compile, so the test above
        // cannot pass by skipping blocks.
        List<Snippet> snippets = Parse("""
            text
            <!-- compile-with: int x = 1; -->
            ```csharp
            Console.WriteLine(x);
            ```
            ```csharp
            Console.WriteLine(y);
            ```
            """);
        Assert.Equal(2, snippets.Count);
        Assert.Equal("int x = 1;", snippets[0].With);
        Assert.Equal("", snippets[1].With);
        CSharpCompilation broken = Compile([snippets[1].Code, InRepoCodeTests.ImplicitUsings], kind: OutputKind.ConsoleApplication);
        Assert.Contains(broken.GetDiagnostics(), d => d.Id == "CS0103");
    }

    private static List<Snippet> Extract(string document) =>
        Parse(File.ReadAllText(Path.Combine(InRepoCodeTests.RepoRoot(), document)));

    private static List<Snippet> Parse(string markdown)
    {
        var snippets = new List<Snippet>();
        string[] lines = markdown.Replace("\r\n", "\n", StringComparison.Ordinal).Split('\n');
        for (int i = 0; i < lines.Length; i++)
        {
            if (lines[i].Trim() != "```csharp")
            {
                continue;
            }

            string with = "", types = "", expect = "";
            for (int j = i - 1; j >= 0 && Comment().Match(lines[j].Trim()) is { Success: true } comment; j--)
            {
                switch (comment.Groups[1].Value)
                {
                    case "with":
                        with = comment.Groups[2].Value.Trim();
                        break;
                    case "types":
                        types = comment.Groups[2].Value.Trim();
                        break;
                    default:
                        expect = comment.Groups[2].Value.Trim();
                        break;
                }
            }

            int start = i + 1;
            int end = start;
            while (end < lines.Length && lines[end].Trim() != "```")
            {
                end++;
            }

            snippets.Add(new Snippet(string.Join("\n", lines[start..end]), with, types, expect, i + 1));
            i = end;
        }

        return snippets;
    }

    [GeneratedRegex(@"^<!-- compile-(with|types|expect): (.*) -->$")]
    private static partial Regex Comment();

    private sealed record Snippet(string Code, string With, string Types, string Expect, int Line);
}
