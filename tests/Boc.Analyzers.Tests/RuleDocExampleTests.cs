using System.Collections.Immutable;
using System.Text;
using System.Text.RegularExpressions;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// The rule pages (docs/analyzers/BOC*.md) tell users what each rule reports and what it leaves alone; a user reads
/// a silence as "safe" only if those lists are exact. So every C# block of a rule page is compiled and analysed, and
/// must produce exactly the diagnostics its annotation names (an HTML comment right above the block):
/// <list type="bullet">
/// <item><c>&lt;!-- expect-each-line: BOC101 --&gt;</c>: every line is an example of its own, and must produce
/// BOC101 and nothing else; <c>expect-each-line: none</c>: every line must produce nothing.</item>
/// <item><c>&lt;!-- expect: BOC101 --&gt;</c> (or <c>none</c>): the whole block is one example.</item>
/// </list>
/// A line (or block) whose comment says <c>also BOC201</c> must produce that rule too. Each example is compiled on its
/// own, with the declarations in <see cref="Context"/> (the names the pages use: <c>src</c>, <c>dst</c>, <c>c</c>,
/// <c>Account</c>, ...) where the example does not declare them itself. An example is read as a C# script would be:
/// statements run in an async method; fields with modifiers, properties and types are declared around it; a method
/// is a local function when the example has statements, a member otherwise.
/// </summary>
public partial class RuleDocExampleTests
{
    private static readonly string[] Pages = ["BOC101", "BOC102", "BOC103", "BOC104", "BOC105", "BOC201", "BOC202", "BOC203", "BOC204"];

    /// <summary>Locals the examples' statements may use (declared in front of them unless the example declares the name).</summary>
    private static readonly (string Name, string Declaration)[] Locals =
    [
        ("runtime", "BocRuntime runtime = BocRuntime.Default;"),
        ("src", "Cown<Account> src = new(new Account());"),
        ("dst", "Cown<Account> dst = new(new Account());"),
        ("c", "Cown<Account> c = new(new Account());"),
        ("d", "Cown<Account> d = new(new Account());"),
        ("c1", "Cown<Account> c1 = new(new Account());"),
        ("c2", "Cown<Account> c2 = new(new Account());"),
        ("left", "Cown<Account> left = new(new Account());"),
        ("right", "Cown<Account> right = new(new Account());"),
        ("rates", "Cown<Account> rates = new(new Account());"),
        ("gauge", "Cown<Account> gauge = new(new Account());"),
        ("account", "Cown<Account> account = new(new Account());"),
        ("catalog", "Cown<Catalog> catalog = new(new Catalog());"),
        ("profile", "Cown<Profile> profile = new(new Profile(\"p\", new List<string>()));"),
        ("meter", "Cown<Meter> meter = new(new Meter());"),
        ("cowns", "Cown<Account>[] cowns = [new(new Account()), new(new Account())];"),
        ("accounts", "Cown<Account>[] accounts = [new(new Account()), new(new Account())];"),
        ("set", "IReadOnlyList<IAcquirable<Account>> set = [c1, Read(c2)];"),
        ("keys", "int[] keys = [1, 2];"),
        ("flag", "bool flag = Environment.TickCount > 0;"),
        ("mode", "int mode = Environment.TickCount % 2;"),
        ("seen", "var seen = new ConcurrentBag<Account>();"),
        ("totals", "var totals = new ConcurrentDictionary<string, long>();"),
        ("lazies", "var lazies = new ConcurrentDictionary<string, Lazy<long>>();"),
        ("done", "var done = new TaskCompletionSource<Account>();"),
        ("ticker", "var ticker = new Ticker();"),
        ("queue", "var queue = new BlockingCollection<int>();"),
        ("rw", "var rw = new ReaderWriterLockSlim();"),
        ("op", "var op = new Operation();"),
        ("t1", "Task t1 = Task.CompletedTask;"),
        ("t2", "Task t2 = Task.CompletedTask;"),
        // Boc.Orleans' real API (the pages compile against the distributed benchmark's build); examples are not run.
        ("cluster", "IBocCluster cluster = null!;"),
        ("alice", "ClusterCown<Account> alice = cluster.Cown<Account>(\"alice\");"),
        ("bob", "ClusterCown<Account> bob = cluster.Cown<Account>(\"bob\");"),
    ];

    /// <summary>The types and helpers the pages' examples use.</summary>
    internal const string Context = """
        public sealed class Account
        {
            public long Balance { get; set; }
            public long Counter;
            public long Total;
            public int Limit { get; set; }
            public string Name { get; set; } = "";
            public string Kind { get; set; } = "";
            public string Text { get; set; } = "";
            public string Url { get; set; } = "http://localhost/";
            public string Page { get; set; } = "";
            public string Json { get; set; } = "";
            public int Words { get; set; }
            public List<string> Log { get; } = new();
            public HashSet<string> Tags { get; } = new();
            public long[] History { get; set; } = new long[4];
            public List<Account> Accounts { get; } = new();
            public Account? Partner { get; set; }
            public Account? Owner { get; set; }
            public Details Details { get; } = new();
            public Cown<Account>? Next { get; set; }
            public Ticker Own { get; } = new();
            public void OnTick(object? sender, EventArgs e) => Balance++;
            public void Deconstruct(out long balance, out List<string> log) { balance = Balance; log = Log; }
        }

        public sealed class Details { public string Name { get; set; } = ""; }

        public sealed record Snapshot(long Balance, string Name);

        public sealed record Profile(string Name, List<string> Tags);

        public sealed class Catalog { public ImmutableArray<string> Names { get; init; } = ImmutableArray<string>.Empty; }

        public sealed class Meter { public int Count; public void Bump() => Count++; public int AddUp(int x) => Count + x; }

        public sealed class Ticker { public event EventHandler? Tick; public void Fire() => Tick?.Invoke(this, EventArgs.Empty); }

        /// <summary>A user type with a Wait method: not a BCL wait.</summary>
        public sealed class Operation { public void Wait() { } public long Result => 1; }

        public static class Handlers
        {
            public static async void OnAccount(Account a) { await Task.Yield(); a.Balance++; }
            public static async Task OnAccountAsync(Account a) { await Task.Yield(); a.Balance++; }
            public static void Touch(Account a) => a.Balance++;
            public static async void Fire(long balance) { await Task.Yield(); Console.WriteLine(balance); }
        }

        public abstract class ExampleContext
        {
            protected static readonly object Gate = new();
            protected static readonly SemaphoreSlim Sem = new(1);
            protected static readonly ConcurrentDictionary<int, List<string>> Logs = new();
            protected static Account? s_last;
            protected static Task<long> LoadAsync() => Task.FromResult(1L);
            protected static async Task SaveAsync(Account a) { await Task.Yield(); a.Log.Add("saved"); }
            protected static async void Fire(Account a) { await Task.Yield(); a.Log.Add("fired"); }
            protected static void Print<T>(T value) => Console.WriteLine(value);
            protected static void Log(object? sender, EventArgs e) { }
        }
        """;

    private const string ExtraUsings = """
        using System.Buffers;
        using System.Collections.Frozen;
        using System.Collections.ObjectModel;
        using System.Net.Http;
        using System.Text.Json;
        using System.Text.RegularExpressions;
        using Boc.Orleans;
        using Microsoft.AspNetCore.Http;
        using Microsoft.Extensions.Logging;

        """;

    public static TheoryData<string, int> Examples()
    {
        var data = new TheoryData<string, int>();
        foreach (string page in Pages)
        {
            for (int i = 0; i < Extract(page).Count; i++)
            {
                data.Add(page, i);
            }
        }

        return data;
    }

    [Fact]
    public void Every_rule_page_has_annotated_examples_of_both_kinds()
    {
        foreach (string page in Pages)
        {
            List<Example> examples = Extract(page);
            Assert.Contains(examples, e => e.Expected.Contains(page));
            Assert.Contains(examples, e => !e.Expected.Contains(page));
        }
    }

    [Theory]
    [MemberData(nameof(Examples))]
    public async Task Example_produces_exactly_the_documented_diagnostics(string page, int index)
    {
        Example example = Extract(page)[index];
        string source = Assemble(example.Code);
        CSharpCompilation compilation = Compile([source, Usings + Context], InRepoCodeTests.ProgramReferences());
        ImmutableArray<Diagnostic> errors = compilation.GetDiagnostics().Where(d => d.Severity == DiagnosticSeverity.Error).ToImmutableArray();
        Assert.True(errors.IsEmpty, $"{page}.md line {example.Line} does not compile:\n{string.Join("\n", errors)}\n---\n{source}");

        ImmutableArray<Diagnostic> boc = await AnalyzeAsync(compilation);
        string[] actual = boc.Select(d => d.Id).Distinct().Order(StringComparer.Ordinal).ToArray();
        string[] expected = example.Expected.Order(StringComparer.Ordinal).ToArray();
        Assert.True(actual.SequenceEqual(expected),
            $"{page}.md line {example.Line}: `{example.Code}` documents [{string.Join(", ", expected)}] but produces:\n{string.Join("\n", boc)}");
    }

    /// <summary>
    /// The shareable-types page declares types rather than examples of one rule: its blocks are compiled together,
    /// each as a file, and must compile and be clean; without the attributes they declare, the last would not be.
    /// </summary>
    [Fact]
    public async Task Shareable_types_page_compiles_and_its_declarations_work()
    {
        List<Example> blocks = Parse(File.ReadAllText(Path.Combine(InRepoCodeTests.RepoRoot(), "docs", "analyzers", "shareable-types.md")), "shareable-types");
        Assert.Equal(2, blocks.Count);
        Assert.All(blocks, b => Assert.Empty(b.Expected));
        string[] files = blocks.Select(b => HoistUsings(Usings, b.Code)).ToArray();
        ImmutableArray<Diagnostic> clean = await AnalyzeAsync(Compile([.. files, Usings + Context]));
        Assert.Empty(clean);

        string[] unmarked = files.Select(f => f.Replace("[Immutable] ", "", StringComparison.Ordinal).Replace("[ThreadSafe] ", "", StringComparison.Ordinal)).ToArray();
        ImmutableArray<Diagnostic> reported = await AnalyzeAsync(Compile([.. unmarked, Usings + Context]));
        Assert.Equal(["BOC103", "BOC103"], reported.Select(d => d.Id));
    }

    /// <summary>Puts a block's own usings after the shared ones (a using must come before any declaration).</summary>
    private static string HoistUsings(string usings, string code)
    {
        var unit = (CompilationUnitSyntax)CSharpSyntaxTree.ParseText(code).GetRoot();
        string own = string.Concat(unit.Usings.Select(u => u.ToFullString()));
        string rest = code[(unit.Usings.LastOrDefault()?.FullSpan.End ?? 0)..];
        return usings + own + rest;
    }

    [Fact]
    public async Task The_check_can_fail()
    {
        // A flagged example must not pass by compiling to nothing: the line below is BOC101's first example, and it
        // must produce BOC101 (and a silent variant must not).
        Example flagged = Parse("<!-- expect-each-line: BOC101 -->\n```csharp\nWhen(src, s => When(dst, d => d.Balance += s.Balance));\n```", "X")[0];
        Assert.Equal(["BOC101"], flagged.Expected);
        ImmutableArray<Diagnostic> found = await AnalyzeAsync(Compile([Assemble(flagged.Code), Usings + Context], InRepoCodeTests.ProgramReferences()));
        Assert.Contains(found, d => d.Id == "BOC101");
        ImmutableArray<Diagnostic> quiet = await AnalyzeAsync(Compile([Assemble("When(src, dst, (s, d) => d.Balance += s.Balance);"), Usings + Context], InRepoCodeTests.ProgramReferences()));
        Assert.Empty(quiet);

        // A block without an annotation is an error, not a skip.
        Assert.Throws<InvalidOperationException>(() => Parse("```csharp\nWhen(c, a => a.Balance++);\n```", "X"));
    }

    /// <summary>Turns an example into a compilation unit (see the class comment for how its parts are placed).</summary>
    private static string Assemble(string code)
    {
        var unit = (CompilationUnitSyntax)CSharpSyntaxTree.ParseText(code, new CSharpParseOptions(LanguageVersion.Preview, kind: SourceCodeKind.Script)).GetRoot();
        bool hasStatements = unit.Members.Any(m => m is GlobalStatementSyntax || m is FieldDeclarationSyntax { Modifiers.Count: 0 });
        var statements = new StringBuilder();
        var members = new StringBuilder();
        var types = new StringBuilder();
        var declared = new HashSet<string>(StringComparer.Ordinal);
        foreach (MemberDeclarationSyntax member in unit.Members)
        {
            switch (member)
            {
                case GlobalStatementSyntax statement:
                    statements.AppendLine(statement.Statement.ToFullString());
                    break;
                case FieldDeclarationSyntax { Modifiers.Count: 0 } local:
                    statements.AppendLine(local.Declaration.ToFullString() + ";");
                    break;
                case MethodDeclarationSyntax method when hasStatements:
                    statements.AppendLine(method.ToFullString());
                    break;
                case BaseTypeDeclarationSyntax type:
                    types.AppendLine(type.ToFullString());
                    break;
                default:
                    members.AppendLine(member.ToFullString());
                    break;
            }
        }

        Assert.False(unit.ContainsDiagnostics, $"`{code}` does not parse: {string.Join("; ", unit.GetDiagnostics())}");
        foreach (SyntaxToken token in unit.DescendantNodes().Select(DeclaredName).Where(t => t != default))
        {
            declared.Add(token.ValueText);
        }

        string prologue = string.Concat(Locals.Where(l => !declared.Contains(l.Name)).Select(l => l.Declaration + "\n"));
        return Usings + ExtraUsings + "\n"
            + "public sealed class Example : ExampleContext\n{\n" + members
            + "    public async Task Run()\n    {\n" + prologue + statements + "\n        await Task.Yield();\n    }\n}\n"
            + types;
    }

    private static SyntaxToken DeclaredName(SyntaxNode node) => node switch
    {
        VariableDeclaratorSyntax v => v.Identifier,
        LocalFunctionStatementSyntax f => f.Identifier,
        MethodDeclarationSyntax m => m.Identifier,
        ParameterSyntax p => p.Identifier,
        SingleVariableDesignationSyntax s => s.Identifier,
        ForEachStatementSyntax e => e.Identifier,
        _ => default,
    };

    private static List<Example> Extract(string page) =>
        Parse(File.ReadAllText(Path.Combine(InRepoCodeTests.RepoRoot(), "docs", "analyzers", page + ".md")), page);

    private static List<Example> Parse(string markdown, string page)
    {
        var examples = new List<Example>();
        string[] lines = markdown.Replace("\r\n", "\n", StringComparison.Ordinal).Split('\n');
        for (int i = 0; i < lines.Length; i++)
        {
            if (lines[i].Trim() != "```csharp")
            {
                continue;
            }

            Match annotation = i > 0 ? Annotation().Match(lines[i - 1].Trim()) : Match.Empty;
            if (!annotation.Success)
            {
                throw new InvalidOperationException($"{page}.md line {i + 1}: a C# block without an <!-- expect: ... --> or <!-- expect-each-line: ... --> comment above it");
            }

            string[] ids = annotation.Groups[2].Value.Trim() == "none" ? [] : annotation.Groups[2].Value.Split(' ', StringSplitOptions.RemoveEmptyEntries);
            int start = i + 1;
            int end = start;
            while (end < lines.Length && lines[end].Trim() != "```")
            {
                end++;
            }

            if (annotation.Groups[1].Value == "-each-line")
            {
                for (int j = start; j < end; j++)
                {
                    string line = lines[j].Trim();
                    if (line.Length > 0 && !line.StartsWith("//", StringComparison.Ordinal))
                    {
                        examples.Add(new Example(line, With(ids, line), j + 1));
                    }
                }
            }
            else
            {
                string block = string.Join("\n", lines[start..end]);
                examples.Add(new Example(block, With(ids, block), start + 1));
            }

            i = end;
        }

        return examples;
    }

    /// <summary>The expected rules plus those the example's comments name with "also".</summary>
    private static string[] With(string[] ids, string code) =>
        ids.Concat(Also().Matches(code).Select(m => m.Groups[1].Value)).Distinct().ToArray();

    [GeneratedRegex(@"^<!-- expect(-each-line)?: ([A-Z0-9 ]+|none) -->$")]
    private static partial Regex Annotation();

    [GeneratedRegex(@"also (BOC\d+)")]
    private static partial Regex Also();

    private sealed record Example(string Code, string[] Expected, int Line);
}
