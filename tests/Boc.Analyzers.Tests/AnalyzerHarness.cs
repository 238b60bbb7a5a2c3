using System.Collections.Immutable;
using System.Text;
using System.Text.RegularExpressions;
using Boc.Analyzers;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Diagnostics;

namespace Boc.Analyzers.Tests;

/// <summary>
/// A compact stand-in for Microsoft.CodeAnalysis.Testing: compiles sources against the running runtime's own
/// assemblies (no reference-pack download) plus Boc, runs the analyzers, and compares with markup.
/// Markup: <c>{|BOC101:text|}</c> marks the exact span where a diagnostic is expected.
/// </summary>
internal static partial class AnalyzerHarness
{
    public const string Usings = """
        using System;
        using System.Collections.Concurrent;
        using System.Collections.Generic;
        using System.Collections.Immutable;
        using System.Linq;
        using System.Text;
        using System.Threading;
        using System.Threading.Tasks;
        using Boc;
        using static Boc.Behaviours;

        """;

    /// <summary>State types the test sources share (appended after the markup, so spans are unaffected).</summary>
    public const string SharedTypes = """

        public sealed class Account
        {
            public long Balance { get; set; }
            public long Counter;
            public List<string> Log { get; } = new();
            public HashSet<string> Tags { get; } = new();
            public Account? Partner { get; set; }
            public Details Details { get; } = new();
            public Cown<Account>? Next { get; set; }
            public void Deconstruct(out long balance, out List<string> log) { balance = Balance; log = Log; }
        }

        public sealed class Details { public string Name { get; set; } = ""; }

        public sealed record Snapshot(long Balance, string Owner);

        public sealed class Options { public int Limit { get; set; } }
        """;

    private static readonly Lazy<ImmutableArray<MetadataReference>> s_references = new(() =>
    {
        string tpa = (string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!;
        var paths = tpa.Split(Path.PathSeparator)
            .Where(p => Path.GetFileName(p).StartsWith("System.", StringComparison.Ordinal)
                || Path.GetFileName(p) is "mscorlib.dll" or "netstandard.dll")
            .ToList();
        paths.Add(typeof(Cown<>).Assembly.Location);
        return paths.Distinct().Select(p => (MetadataReference)MetadataReference.CreateFromFile(p)).ToImmutableArray();
    });

    public static ImmutableArray<DiagnosticAnalyzer> AllAnalyzers { get; } = Rules.All();

    public static ImmutableArray<MetadataReference> References => s_references.Value;

    public static CSharpCompilation Compile(IEnumerable<string> sources, IEnumerable<MetadataReference>? extra = null,
        OutputKind kind = OutputKind.DynamicallyLinkedLibrary) =>
        CSharpCompilation.Create(
            "Test" + Guid.NewGuid().ToString("N"),
            sources.Select(s => CSharpSyntaxTree.ParseText(s, new CSharpParseOptions(LanguageVersion.Preview))),
            References.AddRange(extra ?? []),
            new CSharpCompilationOptions(kind, nullableContextOptions: NullableContextOptions.Enable));

    public static async Task<ImmutableArray<Diagnostic>> AnalyzeAsync(Compilation compilation, ImmutableArray<DiagnosticAnalyzer>? analyzers = null,
        IReadOnlyDictionary<string, string>? editorConfig = null)
    {
        ImmutableArray<Diagnostic> errors = compilation.GetDiagnostics().Where(d => d.Severity == DiagnosticSeverity.Error).ToImmutableArray();
        Assert.True(errors.IsEmpty, "The test source does not compile:\n" + string.Join("\n", errors));
        var options = new AnalyzerOptions([], new EditorConfigOptions(editorConfig ?? new Dictionary<string, string>()));
        ImmutableArray<Diagnostic> diagnostics = await compilation
            .WithAnalyzers(analyzers ?? AllAnalyzers, new CompilationWithAnalyzersOptions(
                options, onAnalyzerException: null, concurrentAnalysis: false, logAnalyzerExecutionTime: false, reportSuppressedDiagnostics: false))
            .GetAllDiagnosticsAsync();
        ImmutableArray<Diagnostic> crashes = diagnostics.Where(d => d.Id is "AD0001" or "AD0002").ToImmutableArray();
        Assert.True(crashes.IsEmpty, "An analyzer threw:\n" + string.Join("\n", crashes));
        ImmutableArray<Diagnostic> boc = diagnostics.Where(d => d.Id.StartsWith("BOC", StringComparison.Ordinal)).ToImmutableArray();

        // MSBuild prints only a message's first line on the command line: every message must read whole on one line.
        foreach (Diagnostic diagnostic in boc)
        {
            string message = diagnostic.GetMessage(System.Globalization.CultureInfo.InvariantCulture);
            Assert.False(message.Contains('\n', StringComparison.Ordinal) || message.Contains('\r', StringComparison.Ordinal),
                $"{diagnostic.Id}'s message spans several lines: {message}");
        }

        return boc;
    }

    /// <summary>Checks that exactly the marked diagnostics are reported (all Boc rules run, so other rules must be quiet too).</summary>
    public static Task VerifyAsync(string markup) => VerifyAsync(markup, editorConfig: null, extra: null);

    /// <summary>
    /// As <see cref="VerifyAsync(string)"/>, with <c>.editorconfig</c> options for the source file and extra metadata
    /// references.
    /// </summary>
    public static async Task VerifyAsync(string markup, IReadOnlyDictionary<string, string>? editorConfig,
        IEnumerable<MetadataReference>? extra = null)
    {
        (string source, List<(string Id, int Start, int End)> expected) = Parse(Usings + markup + SharedTypes);
        ImmutableArray<Diagnostic> actual = await AnalyzeAsync(Compile([source], extra), editorConfig: editorConfig);
        var got = actual.Select(d => (d.Id, d.Location.SourceSpan.Start, d.Location.SourceSpan.End)).OrderBy(x => x.Start).ThenBy(x => x.Id).ToList();
        var want = expected.OrderBy(x => x.Start).ThenBy(x => x.Id).ToList();
        if (!got.SequenceEqual(want))
        {
            var message = new StringBuilder("Diagnostics differ.\nExpected:\n");
            foreach ((string id, int start, int end) in want)
            {
                message.Append("  ").Append(id).Append(" '").Append(source[start..end]).Append("'\n");
            }

            message.Append("Actual:\n");
            foreach (Diagnostic d in actual)
            {
                message.Append("  ").Append(d.Id).Append(" '").Append(source[d.Location.SourceSpan.Start..d.Location.SourceSpan.End])
                    .Append("': ").Append(d.GetMessage()).Append('\n');
            }

            Assert.Fail(message.ToString());
        }
    }

    public static (string Source, List<(string Id, int Start, int End)> Expected) Parse(string markup)
    {
        var expected = new List<(string, int, int)>();
        var output = new StringBuilder();
        var open = new Stack<(string Id, int Start)>();
        int i = 0;
        while (i < markup.Length)
        {
            Match match = OpenMarker().Match(markup, i);
            if (match.Success && match.Index == i)
            {
                open.Push((match.Groups[1].Value, output.Length));
                i += match.Length;
            }
            else if (i + 1 < markup.Length && markup[i] == '|' && markup[i + 1] == '}' && open.Count > 0)
            {
                (string id, int start) = open.Pop();
                expected.Add((id, start, output.Length));
                i += 2;
            }
            else
            {
                output.Append(markup[i]);
                i++;
            }
        }

        return (output.ToString(), expected);
    }

    [GeneratedRegex(@"\{\|(BOC\d+):")]
    private static partial Regex OpenMarker();

    /// <summary>The options an <c>.editorconfig</c> gives every file (and the global options), from a dictionary.</summary>
    private sealed class EditorConfigOptions(IReadOnlyDictionary<string, string> values) : AnalyzerConfigOptionsProvider
    {
        private readonly Options _options = new(values);

        public override AnalyzerConfigOptions GlobalOptions => _options;

        public override AnalyzerConfigOptions GetOptions(SyntaxTree tree) => _options;

        public override AnalyzerConfigOptions GetOptions(AdditionalText textFile) => _options;

        private sealed class Options(IReadOnlyDictionary<string, string> values) : AnalyzerConfigOptions
        {
            public override bool TryGetValue(string key, [System.Diagnostics.CodeAnalysis.NotNullWhen(true)] out string? value) =>
                values.TryGetValue(key, out value);
        }
    }
}
