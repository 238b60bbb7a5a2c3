using System.Diagnostics;
using System.Globalization;
using System.Text;
using System.Text.RegularExpressions;

namespace Boc.AnalyzerCost;

/// <summary>The options of the build benchmark (see Program.cs).</summary>
internal sealed class RunOptions
{
    public IReadOnlyList<int> Sizes { get; private init; } = [1000, 3000, 7000, 15000];

    public int Rounds { get; private init; } = 3;

    public string Work { get; private init; } = "";

    public string Out { get; private init; } = "";

    public static RunOptions Parse(string[] args, string root)
    {
        List<int> sizes = [1000, 3000, 7000, 15000];
        int rounds = 3;
        string work = Path.Combine(Path.GetTempPath(), "boc-analyzer-cost");
        string? output = null;
        for (int i = 0; i + 1 < args.Length; i += 2)
        {
            switch (args[i])
            {
                case "--sizes":
                    sizes = args[i + 1].Split(',').Select(s => int.Parse(s, CultureInfo.InvariantCulture)).ToList();
                    break;
                case "--rounds":
                    rounds = int.Parse(args[i + 1], CultureInfo.InvariantCulture);
                    break;
                case "--work":
                    work = Path.GetFullPath(args[i + 1]);
                    break;
                case "--out":
                    output = Path.GetFullPath(args[i + 1]);
                    break;
                default:
                    throw new ArgumentException($"unknown option {args[i]} (--sizes, --rounds, --work, --out)");
            }
        }

        if (rounds < 1 || sizes.Count == 0)
        {
            throw new ArgumentException("--rounds must be at least 1 and --sizes must name a size");
        }

        return new RunOptions { Sizes = sizes, Rounds = rounds, Work = work, Out = output ?? Path.Combine(work, "results" + ".md") };
    }
}

/// <summary>One build: its CPU, what the compiler reported about analyzers, and the Boc warnings it printed.</summary>
internal sealed record BuildResult(bool WithAnalyzer, double CpuSeconds, double AllAnalyzersSeconds, double BocSeconds,
    IReadOnlyDictionary<string, double> RuleSeconds, IReadOnlyDictionary<string, int> Warnings);

/// <summary>The build benchmark: corpora of growing size, built alternately with and without the analyzer.</summary>
internal static class BuildBenchmark
{
    public static async Task<int> RunAsync(string root, RunOptions options)
    {
        Directory.CreateDirectory(options.Work);
        // Copies, so that a rebuild of the repository during the run changes nothing under measurement.
        string boc = Copy(Repository.BocAssembly(root), options.Work);
        string analyzer = Copy(Repository.AnalyzerAssembly(root), options.Work);
        var sizes = new List<SizeResult>();
        foreach (int size in options.Sizes)
        {
            Corpus corpus = Corpus.Generate(size);
            string directory = Path.Combine(options.Work, $"corpus-{size}");
            corpus.WriteTo(directory, boc, analyzer);
            Console.WriteLine($"== {corpus.Lines} lines, {corpus.Spawns} spawns ({directory})");
            await DotnetAsync(directory, "restore Corpus.csproj", Path.Combine(directory, "restore.log"));
            await BuildAsync(directory, withAnalyzer: true, "warmup");

            var builds = new List<BuildResult>();
            for (int round = 1; round <= options.Rounds; round++)
            {
                // Alternate which goes first, so that a slow phase of the machine hits both alike.
                foreach (bool with in round % 2 == 1 ? new[] { true, false } : new[] { false, true })
                {
                    BuildResult build = await BuildAsync(directory, with, $"round{round}");
                    Check(build, corpus);
                    builds.Add(build);
                    Console.WriteLine($"   round {round} {(with ? "with   " : "without")}: {build.CpuSeconds,7:F2} s CPU, Boc {build.BocSeconds:F3} s, all analyzers {build.AllAnalyzersSeconds:F3} s");
                }
            }

            sizes.Add(new SizeResult(corpus, builds));
        }

        string report = Report.Markdown(sizes, options.Rounds);
        Console.WriteLine();
        Console.WriteLine(report);
        await File.WriteAllTextAsync(options.Out, report);
        Console.WriteLine($"(written to {options.Out})");
        return 0;
    }

    private static string Copy(string file, string directory)
    {
        string target = Path.Combine(directory, Path.GetFileName(file));
        File.Copy(file, target, overwrite: true);
        return target;
    }

    private static void Check(BuildResult build, Corpus corpus)
    {
        IReadOnlyDictionary<string, int> expected = build.WithAnalyzer ? corpus.Expected : new Dictionary<string, int>();
        string Show(IReadOnlyDictionary<string, int> d) => string.Join(", ", d.OrderBy(e => e.Key, StringComparer.Ordinal).Select(e => $"{e.Key} x{e.Value}"));
        if (Show(expected) != Show(build.Warnings))
        {
            throw new InvalidOperationException($"the build reported [{Show(build.Warnings)}], the corpus seeds [{Show(expected)}]: the corpus or the analyzer changed what is reported");
        }
    }

    private static async Task<BuildResult> BuildAsync(string directory, bool withAnalyzer, string name)
    {
        string log = Path.Combine(directory, $"{name}-{(withAnalyzer ? "with" : "without")}.log");
        // No build server and no node reuse: every process of the build is a waited-for child, so its CPU is counted.
        string arguments = "build Corpus.csproj -c Release --no-restore -t:Rebuild -p:ReportAnalyzer=true -v:d -m:1 -nodeReuse:false"
            + " -p:UseSharedCompilation=false" + (withAnalyzer ? "" : " -p:BocAnalyzer=false");
        double cpu = await DotnetAsync(directory, arguments, log);
        string text = await File.ReadAllTextAsync(log);
        return Parse(text, withAnalyzer, cpu);
    }

    /// <summary>Runs dotnet with <paramref name="arguments"/>, its output into <paramref name="log"/>; returns the CPU seconds of its process tree.</summary>
    private static async Task<double> DotnetAsync(string directory, string arguments, string log)
    {
        var start = new ProcessStartInfo("dotnet", arguments)
        {
            WorkingDirectory = directory,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.Environment["DOTNET_CLI_TELEMETRY_OPTOUT"] = "1";
        start.Environment["DOTNET_NOLOGO"] = "1";
        start.Environment["MSBUILDDISABLENODEREUSE"] = "1";
        TimeSpan before = ChildCpu.Total();
        using Process process = Process.Start(start) ?? throw new InvalidOperationException("dotnet did not start");
        Task<string> output = process.StandardOutput.ReadToEndAsync();
        Task<string> error = process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync();
        TimeSpan after = ChildCpu.Total();
        await File.WriteAllTextAsync(log, await output + await error);
        if (process.ExitCode != 0)
        {
            throw new InvalidOperationException($"dotnet {arguments} failed in {directory} (exit {process.ExitCode}); see {log}");
        }

        return (after - before).TotalSeconds;
    }

    internal static BuildResult Parse(string log, bool withAnalyzer, double cpu)
    {
        double all = s_totalTime.Match(log) is { Success: true } total ? Seconds(total.Groups[1].Value) : 0;
        double boc = s_bocTime.Match(log) is { Success: true } assembly ? Seconds(assembly.Groups[1].Value) : 0;
        var rules = new Dictionary<string, double>(StringComparer.Ordinal);
        foreach (Match rule in s_ruleTime.Matches(log))
        {
            rules[rule.Groups[3].Value] = Seconds(rule.Groups[1].Value);
        }

        // MSBuild prints each warning while building and again in the summary: count each place once.
        var warnings = new Dictionary<string, int>(StringComparer.Ordinal);
        foreach (string place in s_warning.Matches(log).Select(m => m.Groups[1].Value + " " + m.Groups[2].Value).Distinct(StringComparer.Ordinal))
        {
            string id = place[(place.LastIndexOf(' ') + 1)..];
            warnings[id] = warnings.GetValueOrDefault(id) + 1;
        }

        return new BuildResult(withAnalyzer, cpu, all, boc, rules, warnings);
    }

    /// <summary>The compiler prints "&lt;0.001" for times below a millisecond.</summary>
    private static double Seconds(string value) =>
        value.StartsWith('<') ? 0 : double.Parse(value, NumberStyles.Float, CultureInfo.InvariantCulture);

    // Not [GeneratedRegex]: the in-repo code test compiles this project without source generators.
    private static readonly Regex s_totalTime = new(@"Total analyzer execution time: ([\d.]+) seconds", RegexOptions.Compiled);

    private static readonly Regex s_bocTime = new(@"^\s*(<?[\d.]+)\s+(<?\d+)\s+Boc\.Analyzers, Version=", RegexOptions.Multiline | RegexOptions.Compiled);

    private static readonly Regex s_ruleTime = new(@"^\s*(<?[\d.]+)\s+(<?\d+)\s+Boc\.Analyzers\.\w+ \((BOC\d+)\)", RegexOptions.Multiline | RegexOptions.Compiled);

    private static readonly Regex s_warning = new(@"^\s*(\S+\(\d+,\d+\)): warning (BOC\d+):", RegexOptions.Multiline | RegexOptions.Compiled);
}
