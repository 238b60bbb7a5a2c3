using System.Collections.Immutable;
using System.Diagnostics;
using System.Globalization;
using System.Runtime.InteropServices;
using Boc.Analyzers;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Diagnostics;
using Microsoft.CodeAnalysis.Diagnostics.Telemetry;

namespace Boc.AnalyzerCost;

/// <summary>
/// The rules on a generated corpus in this process, without MSBuild: per-rule execution time from the analyzer
/// driver's telemetry, medians over fresh compilations (so that no per-compilation cache survives between them), plus
/// this process's CPU time for the whole analysis. The compilation references the SDK's reference packs, as a build of
/// the corpus does.
/// </summary>
internal static class InProcessProfile
{
    // What the Web SDK's implicit usings add.
    private const string ImplicitUsings = """
        global using System;
        global using System.Collections.Generic;
        global using System.IO;
        global using System.Linq;
        global using System.Net.Http;
        global using System.Net.Http.Json;
        global using System.Threading;
        global using System.Threading.Tasks;
        global using Microsoft.AspNetCore.Builder;
        global using Microsoft.AspNetCore.Hosting;
        global using Microsoft.AspNetCore.Http;
        global using Microsoft.AspNetCore.Routing;
        global using Microsoft.Extensions.Configuration;
        global using Microsoft.Extensions.DependencyInjection;
        global using Microsoft.Extensions.Hosting;
        global using Microsoft.Extensions.Logging;
        """;

    public static async Task<int> RunAsync(string root, int lines, int repeat, string? other = null)
    {
        Corpus corpus = Corpus.Generate(lines);
        string work = Path.Combine(Path.GetTempPath(), "boc-analyzer-profile");
        corpus.WriteTo(work, Repository.BocAssembly(root), Repository.AnalyzerAssembly(root));
        List<MetadataReference> references = ReferencePacks().Append(Repository.BocAssembly(root))
            .Select(p => (MetadataReference)MetadataReference.CreateFromFile(p)).ToList();
        string[] sources = Directory.GetFiles(work, "*.cs").Order(StringComparer.Ordinal).Select(File.ReadAllText).Append(ImplicitUsings).ToArray();
        ImmutableArray<DiagnosticAnalyzer> analyzers = AnalyzersOf(typeof(BocAnalyzer).Assembly);
        Console.WriteLine($"{corpus.Lines} lines, {corpus.Spawns} spawns; {repeat} fresh compilations");
        if (other is not null)
        {
            return await CompareAsync(sources, references, analyzers, other, repeat);
        }

        var times = analyzers.ToDictionary(a => a, _ => new List<double>());
        var extra = new List<double>();
        var trees = new List<double>();
        for (int i = 0; i < repeat; i++)
        {
            // The same work twice, on fresh compilations: once with an analyzer that only makes the driver build every
            // operation tree (which other analyzers of a real build make it do anyway), once with it and the Boc rules.
            // The difference in this process's CPU time is what the rules cost.
            double baseline = await AnalyzeAsync(Compile(sources, references), [new TreesOnly()], null);
            ImmutableArray<DiagnosticAnalyzer> all = analyzers.Add(new TreesOnly());
            double with = await AnalyzeAsync(Compile(sources, references), all, (withAnalyzers, found) =>
            {
                if (i == 0)
                {
                    Console.WriteLine("found: " + string.Join(", ", found.GroupBy(d => d.Id).OrderBy(g => g.Key, StringComparer.Ordinal).Select(g => $"{g.Key} x{g.Count()}")));
                }

                foreach (DiagnosticAnalyzer analyzer in analyzers)
                {
                    AnalyzerTelemetryInfo info = withAnalyzers.GetAnalyzerTelemetryInfoAsync(analyzer, CancellationToken.None).GetAwaiter().GetResult();
                    times[analyzer].Add(info.ExecutionTime.TotalSeconds);
                }
            });
            trees.Add(baseline);
            extra.Add(with - baseline);
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"analysis CPU with operation trees only {Report.Median(trees):F3} s; the Boc rules add {Report.Median(extra):F3} s CPU (median of {repeat}: {string.Join(", ", extra.Select(e => e.ToString("F3", CultureInfo.InvariantCulture)))})"));
        Console.WriteLine("driver telemetry (wall time inside each rule's callbacks):");
        foreach ((DiagnosticAnalyzer analyzer, List<double> values) in times.OrderByDescending(t => Report.Median(t.Value)))
        {
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  {Report.Median(values),8:F3} s  {analyzer.GetType().Name} ({string.Join(", ", analyzer.SupportedDiagnostics.Select(d => d.Id))})"));
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"  {Report.Median(Enumerable.Range(0, repeat).Select(i => times.Values.Sum(v => v[i]))),8:F3} s  all Boc rules"));
        return 0;
    }

    private static ImmutableArray<DiagnosticAnalyzer> AnalyzersOf(System.Reflection.Assembly assembly) =>
        assembly.GetTypes()
            .Where(t => !t.IsAbstract && typeof(DiagnosticAnalyzer).IsAssignableFrom(t))
            .OrderBy(t => t.Name, StringComparer.Ordinal)
            .Select(t => (DiagnosticAnalyzer)Activator.CreateInstance(t)!)
            .ToImmutableArray();

    /// <summary>
    /// This build's rules against another build of Boc.Analyzers (an older commit's, built apart), alternately on fresh
    /// compilations after one warm-up each: per rule and in all, the CPU time of the threads that ran the rules'
    /// callbacks (<see cref="ThreadCpuAnalyzer"/>), medians and the ratio of medians. CPU time, unlike the driver's
    /// wall-clock telemetry, does not grow with other load on the machine, so the ratios hold on a shared one.
    /// </summary>
    private static async Task<int> CompareAsync(string[] sources, List<MetadataReference> references, ImmutableArray<DiagnosticAnalyzer> mine,
        string otherPath, int repeat)
    {
        // Each build in a load context of its own, this one too: with this build's rules in the default context, and the
        // other's apart, the same build compared with itself came out slower as "this build".
        ImmutableArray<DiagnosticAnalyzer> LoadApart(string name, string path) =>
            AnalyzersOf(new System.Runtime.Loader.AssemblyLoadContext(name).LoadFromAssemblyPath(Path.GetFullPath(path)));
        mine = LoadApart("this analyzer", typeof(BocAnalyzer).Assembly.Location);
        ImmutableArray<DiagnosticAnalyzer> other = LoadApart("other analyzer", otherPath);
        var totals = new Dictionary<string, List<double>> { ["this build"] = new(), ["other"] = new() };
        var rules = new Dictionary<(string Build, string Rule), List<double>>();
        for (int i = -1; i < repeat; i++)
        {
            foreach ((string name, ImmutableArray<DiagnosticAnalyzer> set) in i % 2 == 0 ? new[] { ("this build", mine), ("other", other) } : new[] { ("other", other), ("this build", mine) })
            {
                // Fresh wrappers (and fresh instances) for each run, so that each counts one analysis.
                ImmutableArray<ThreadCpuAnalyzer> timed = set.Select(a => new ThreadCpuAnalyzer((DiagnosticAnalyzer)Activator.CreateInstance(a.GetType())!)).ToImmutableArray();
                await AnalyzeAsync(Compile(sources, references), timed.CastArray<DiagnosticAnalyzer>(), null);
                if (i < 0)
                {
                    continue;
                }

                totals[name].Add(timed.Sum(t => t.Cpu.TotalSeconds));
                foreach (ThreadCpuAnalyzer analyzer in timed)
                {
                    (string, string) key = (name, analyzer.Inner.GetType().Name);
                    if (!rules.TryGetValue(key, out List<double>? list))
                    {
                        rules[key] = list = new List<double>();
                    }

                    list.Add(analyzer.Cpu.TotalSeconds);
                }
            }
        }

        Console.WriteLine("thread CPU in the rules' callbacks:");
        foreach ((string name, List<double> values) in totals)
        {
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"{name,-12} median {Report.Median(values):F3} s ({string.Join(", ", values.Select(v => v.ToString("F3", CultureInfo.InvariantCulture)))})"));
        }

        Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"this build / other: {Report.Median(totals["this build"]) / Report.Median(totals["other"]):F2}"));
        Console.WriteLine("per rule, medians (this build, other, ratio):");
        foreach (string rule in rules.Keys.Select(k => k.Rule).Distinct().Order(StringComparer.Ordinal))
        {
            double? Of(string build) => rules.TryGetValue((build, rule), out List<double>? v) ? Report.Median(v) : null;
            string Text(double? seconds) => seconds?.ToString("F3", CultureInfo.InvariantCulture) ?? "-";
            string ratio = Of("this build") is { } mineSeconds && Of("other") is { } otherSeconds && otherSeconds > 0
                ? (mineSeconds / otherSeconds).ToString("F2", CultureInfo.InvariantCulture)
                : "-";
            Console.WriteLine($"  {rule,-32} {Text(Of("this build")),8} {Text(Of("other")),8} {ratio,6}");
        }

        return 0;
    }

    private static CSharpCompilation Compile(string[] sources, List<MetadataReference> references)
    {
        CSharpCompilation compilation = CSharpCompilation.Create("Corpus",
            sources.Select(s => CSharpSyntaxTree.ParseText(s, new CSharpParseOptions(LanguageVersion.Latest))),
            references,
            new CSharpCompilationOptions(OutputKind.ConsoleApplication, nullableContextOptions: NullableContextOptions.Enable));
        ImmutableArray<Diagnostic> errors = compilation.GetDiagnostics().Where(d => d.Severity == DiagnosticSeverity.Error).ToImmutableArray();
        return errors.IsEmpty ? compilation : throw new InvalidOperationException(string.Join("\n", errors.Take(10)));
    }

    /// <summary>The CPU seconds this process spends analysing <paramref name="compilation"/> (bound beforehand) with <paramref name="analyzers"/>.</summary>
    private static async Task<double> AnalyzeAsync(CSharpCompilation compilation, ImmutableArray<DiagnosticAnalyzer> analyzers,
        Action<CompilationWithAnalyzers, ImmutableArray<Diagnostic>>? after)
    {
        CompilationWithAnalyzers withAnalyzers = compilation.WithAnalyzers(analyzers, new CompilationWithAnalyzersOptions(
            new AnalyzerOptions([]), onAnalyzerException: null, concurrentAnalysis: false, logAnalyzerExecutionTime: after is not null, reportSuppressedDiagnostics: false));
        TimeSpan start = Process.GetCurrentProcess().TotalProcessorTime;
        ImmutableArray<Diagnostic> found = await withAnalyzers.GetAnalyzerDiagnosticsAsync();
        TimeSpan end = Process.GetCurrentProcess().TotalProcessorTime;
        after?.Invoke(withAnalyzers, found);
        return (end - start).TotalSeconds;
    }

    /// <summary>Asks for every operation tree and does nothing with it: the cost that is not the rules'.</summary>
#pragma warning disable RS1001, RS1026, RS1036, RS1041, RS2008 // A measuring stand-in in a tool, never shipped.
    [DiagnosticAnalyzer(LanguageNames.CSharp)]
    private sealed class TreesOnly : DiagnosticAnalyzer
    {
        private static readonly DiagnosticDescriptor s_never = new("COST001", "never reported", "never reported", "Cost", DiagnosticSeverity.Hidden, isEnabledByDefault: true);

        public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics { get; } = [s_never];

        public override void Initialize(AnalysisContext context)
        {
            context.ConfigureGeneratedCodeAnalysis(GeneratedCodeAnalysisFlags.None);
            context.RegisterOperationBlockAction(_ => { });
        }
    }
#pragma warning restore RS1001, RS1026, RS1036, RS1041, RS2008

    /// <summary>The reference assemblies of .NET and ASP.NET Core from the SDK that runs this program.</summary>
    private static IEnumerable<string> ReferencePacks()
    {
        // The runtime directory is shared/Microsoft.NETCore.App/<version> under the dotnet root: three levels up.
        string dotnet = Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", ".."));
        foreach (string pack in new[] { "Microsoft.NETCore.App.Ref", "Microsoft.AspNetCore.App.Ref" })
        {
            string versions = Path.Combine(dotnet, "packs", pack);
            string latest = Directory.GetDirectories(versions).OrderBy(d => Version.TryParse(Path.GetFileName(d).Split('-')[0], out Version? v) ? v : new Version(0, 0)).Last();
            foreach (string file in Directory.GetFiles(Path.Combine(latest, "ref", "net10.0"), "*.dll"))
            {
                yield return file;
            }
        }
    }
}
