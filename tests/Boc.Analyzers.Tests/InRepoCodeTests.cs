using System.Collections.Immutable;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// The repository's own Boc code (samples and benchmarks) must be clean. Every project under samples/ and benchmarks/
/// is compiled from whatever .cs files it has now, so benchmarks added later are covered without touching this test.
/// </summary>
public class InRepoCodeTests
{
    // What Orleans' packages add to a project with ImplicitUsings (their build targets).
    private const string OrleansImplicitUsings = """
        global using Orleans;
        global using Orleans.Hosting;
        global using Orleans.Runtime;
        """;

    // What the SDK's ImplicitUsings adds to console projects.
    internal const string ImplicitUsings = """
        global using System;
        global using System.Collections.Generic;
        global using System.IO;
        global using System.Linq;
        global using System.Net.Http;
        global using System.Threading;
        global using System.Threading.Tasks;
        """;

    public static TheoryData<string> Projects()
    {
        var data = new TheoryData<string>();
        foreach (string project in ProjectPaths())
        {
            data.Add(project);
        }

        return data;
    }

    private static List<string> ProjectPaths()
    {
        var data = new List<string>();
        string root = RepoRoot();
        foreach (string folder in new[] { "samples", "benchmarks" })
        {
            foreach (string project in Directory.EnumerateFiles(Path.Combine(root, folder), "*.csproj", SearchOption.AllDirectories).Order(StringComparer.Ordinal))
            {
                data.Add(Path.GetRelativePath(root, project));
            }
        }

        return data;
    }

    [Fact]
    public void Samples_and_benchmarks_are_found()
    {
        List<string> projects = ProjectPaths();
        Assert.Contains(projects, p => p.Contains("BankTransfer", StringComparison.Ordinal));
        Assert.Contains(projects, p => p.Contains("Boc.Benchmarks", StringComparison.Ordinal));
    }

    [Theory]
    [MemberData(nameof(Projects))]
    public async Task Project_has_no_boc_diagnostics(string relativeProject)
    {
        string project = Path.Combine(RepoRoot(), relativeProject);
        // A project built on another in-repo program (a load generator on a sample) is compiled together with it, less
        // the other program's entry point (its Program.cs).
        string own = Path.GetDirectoryName(project)!;
        var referenced = ReferencedProgramProjects(project).Select(p => Path.GetDirectoryName(p)!).Where(d => d != own).Distinct();
        var sources = referenced
            .SelectMany(directory => SourcesOf(directory).Where(f => Path.GetRelativePath(directory, f) != "Program.cs"))
            .Concat(SourcesOf(own))
            .Concat(LinkedSources(project))
            .Order(StringComparer.Ordinal)
            .Select(File.ReadAllText)
            .Append(ImplicitUsings)
            .Concat(UsesOrleans(project) ? [OrleansImplicitUsings] : [])
            .ToList();
        Assert.True(sources.Count > 1, $"no sources in {relativeProject}");

        IEnumerable<MetadataReference> extra = ProgramReferences();

        // Named as the project's assembly, so that a library's InternalsVisibleTo for it applies (the Orleans benchmark
        // reads Boc.Orleans' internal abandon count).
        CSharpCompilation compilation = Compile(sources, extra, OutputKind.ConsoleApplication).WithAssemblyName(Path.GetFileNameWithoutExtension(project));
        ImmutableArray<Diagnostic> diagnostics = await AnalyzeAsync(compilation);
        Assert.True(diagnostics.IsEmpty, $"{relativeProject}:\n" + string.Join("\n", diagnostics));
    }

    /// <summary>
    /// What in-repo programs and documentation snippets may use besides Boc and the BCL: BenchmarkDotNet and Akka.NET
    /// (the benchmarks' baselines), Roslyn and the Boc analyzer (the analyzer's build-cost benchmark), Boc.Extensions.Hosting, Boc.Testing with xUnit (the systematic-testing example),
    /// Boc.Orleans with Orleans' assemblies (the distributed sample and benchmark), and the whole ASP.NET Core shared
    /// framework (the samples include an ASP.NET Core service and a worker service; it has Microsoft.Extensions.Hosting
    /// and friends too).
    /// </summary>
    internal static IEnumerable<MetadataReference> ProgramReferences() => s_programReferences.Value;

    // Made once: a reference object carries its metadata, read once however many compilations use it.
    private static readonly Lazy<ImmutableArray<MetadataReference>> s_programReferences = new(() =>
        new[]
        {
            typeof(BenchmarkDotNet.Attributes.BenchmarkAttribute).Assembly,
            typeof(BenchmarkDotNet.Running.BenchmarkSwitcher).Assembly,
            typeof(Akka.Actor.ActorSystem).Assembly,
            typeof(Boc.Extensions.Hosting.BocHealthCheck).Assembly,
            typeof(Boc.Testing.BocTest).Assembly,
            typeof(Xunit.FactAttribute).Assembly,
            typeof(Xunit.Assert).Assembly,
            // The analyzer's build-cost benchmark runs the rules in process.
            typeof(Microsoft.CodeAnalysis.Compilation).Assembly,
            typeof(Microsoft.CodeAnalysis.CSharp.CSharpCompilation).Assembly,
            typeof(Boc.Analyzers.BocAnalyzer).Assembly,
        }.Distinct().Select(a => a.Location)
            .Concat(OrleansAssemblies())
            .Concat(Directory.EnumerateFiles(Path.GetDirectoryName(typeof(Microsoft.AspNetCore.Builder.WebApplication).Assembly.Location)!, "*.dll"))
            .Select(path => (MetadataReference)MetadataReference.CreateFromFile(path))
            .ToImmutableArray());

    private static bool UsesOrleans(string project) =>
        System.Xml.Linq.XDocument.Load(project).Descendants()
            .Any(e => e.Name.LocalName is "PackageReference" or "ProjectReference" && (e.Attribute("Include")?.Value.Contains("Orleans", StringComparison.Ordinal) ?? false));

    /// <summary>
    /// Boc.Orleans and Orleans' assemblies, from the distributed benchmark's build in this test's configuration (the
    /// project builds it first; Orleans' packages need a newer Roslyn than this project pins, so it cannot reference them).
    /// </summary>
    private static IEnumerable<string> OrleansAssemblies()
    {
        string configuration = new DirectoryInfo(AppContext.BaseDirectory).Parent!.Name;
        string output = Path.Combine(RepoRoot(), "benchmarks", "Boc.Orleans.Bench", "bin", configuration, "net10.0");
        // With the Redis client the distributed programs configure their store with.
        return Directory.EnumerateFiles(output, "Orleans*.dll")
            .Concat(Directory.EnumerateFiles(output, "StackExchange.Redis.dll"))
            .Concat(Directory.EnumerateFiles(output, "Pipelines.Sockets.Unofficial.dll"))
            .Append(Path.Combine(output, "Boc.Orleans.dll"));
    }

    private static IEnumerable<string> SourcesOf(string directory) =>
        Directory.EnumerateFiles(directory, "*.cs", SearchOption.AllDirectories).Where(f => !IsBuildOutput(directory, f));

    // Files a project compiles in from elsewhere (<Compile Include="..\..\tests\X\*.cs" Link="..." />): Boc.Testing.Bench
    // runs the bug zoo of Boc.Testing.Tests. A wildcard is allowed in the file name only.
    private static IEnumerable<string> LinkedSources(string project)
    {
        string projectDirectory = Path.GetDirectoryName(project)!;
        foreach (System.Xml.Linq.XElement item in System.Xml.Linq.XDocument.Load(project).Descendants("Compile"))
        {
            string? include = item.Attribute("Include")?.Value;
            if (include is null)
            {
                continue;
            }

            string path = Path.GetFullPath(Path.Combine(projectDirectory, include.Replace('\\', Path.DirectorySeparatorChar)));
            foreach (string file in Directory.EnumerateFiles(Path.GetDirectoryName(path)!, Path.GetFileName(path)))
            {
                yield return file;
            }
        }
    }

    private static IEnumerable<string> ReferencedProgramProjects(string project)
    {
        string root = RepoRoot();
        foreach (System.Xml.Linq.XElement reference in System.Xml.Linq.XDocument.Load(project).Descendants("ProjectReference"))
        {
            string path = Path.GetFullPath(Path.Combine(Path.GetDirectoryName(project)!, reference.Attribute("Include")!.Value.Replace('\\', Path.DirectorySeparatorChar)));
            string first = Path.GetRelativePath(root, path).Split(Path.DirectorySeparatorChar)[0];
            if (first is "samples" or "benchmarks")
            {
                yield return path;
            }
        }
    }

    private static bool IsBuildOutput(string projectDirectory, string file)
    {
        string relative = Path.GetRelativePath(projectDirectory, file);
        string first = relative.Split(Path.DirectorySeparatorChar)[0];
        return first is "bin" or "obj" or "BenchmarkDotNet.Artifacts";
    }

    internal static string RepoRoot()
    {
        for (DirectoryInfo? dir = new(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "Boc.sln")))
            {
                return dir.FullName;
            }
        }

        throw new InvalidOperationException("Boc.sln not found above " + AppContext.BaseDirectory);
    }
}
