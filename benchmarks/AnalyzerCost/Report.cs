using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;

namespace Boc.AnalyzerCost;

/// <summary>The builds of one corpus.</summary>
internal sealed record SizeResult(Corpus Corpus, IReadOnlyList<BuildResult> Builds);

/// <summary>The Markdown report of a run: medians over rounds, with the machine it ran on.</summary>
internal static class Report
{
    public static string Markdown(IReadOnlyList<SizeResult> sizes, int rounds)
    {
        var text = new StringBuilder();
        text.AppendLine(CultureInfo.InvariantCulture, $"Machine: {CpuModel()}, {Environment.ProcessorCount} cores, {RuntimeInformation.OSDescription}, .NET SDK {SdkVersion()}, {DateTime.UtcNow:yyyy-MM-dd}; {rounds} rounds, medians.");
        text.AppendLine();
        text.AppendLine("| lines | spawns | Boc analyzer (s) | per 1k lines (ms) | share of build CPU | build CPU with (s) | without (s) | with − without (s) | all analyzers (s) |");
        text.AppendLine("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (SizeResult size in sizes)
        {
            var with = size.Builds.Where(b => b.WithAnalyzer).ToList();
            var without = size.Builds.Where(b => !b.WithAnalyzer).ToList();
            double boc = Median(with.Select(b => b.BocSeconds));
            // Paired by round: the n-th build with the analyzer and the n-th without ran next to each other.
            double delta = Median(with.Zip(without, (w, o) => w.CpuSeconds - o.CpuSeconds));
            double withoutCpu = Median(without.Select(b => b.CpuSeconds));
            text.AppendLine(CultureInfo.InvariantCulture,
                $"| {size.Corpus.Lines:N0} | {size.Corpus.Spawns:N0} | {boc:F3} | {1000 * 1000 * boc / size.Corpus.Lines:F1} | {Median(with.Select(b => b.BocSeconds / b.CpuSeconds)):P1} | {Median(with.Select(b => b.CpuSeconds)):F2} | {withoutCpu:F2} | {delta:+0.00;-0.00} ({delta / withoutCpu:+0.0%;-0.0%}) | {Median(with.Select(b => b.AllAnalyzersSeconds)):F2} |");
        }

        var rules = sizes.SelectMany(s => s.Builds).SelectMany(b => b.RuleSeconds.Keys).Distinct(StringComparer.Ordinal).Order(StringComparer.Ordinal).ToList();
        text.AppendLine();
        text.AppendLine("Per rule (s, as the compiler reports each analyzer; the first rule to meet a member pays for the index the others share):");
        text.AppendLine();
        text.AppendLine("| lines | " + string.Join(" | ", rules) + " |");
        text.AppendLine("|---:|" + string.Concat(rules.Select(_ => "---:|")));
        foreach (SizeResult size in sizes)
        {
            var with = size.Builds.Where(b => b.WithAnalyzer).ToList();
            string cells = string.Join(" | ", rules.Select(r =>
                Median(with.Select(b => b.RuleSeconds.GetValueOrDefault(r))).ToString("F3", CultureInfo.InvariantCulture)));
            text.AppendLine(CultureInfo.InvariantCulture, $"| {size.Corpus.Lines:N0} | {cells} |");
        }

        return text.ToString();
    }

    public static double Median(IEnumerable<double> values)
    {
        double[] sorted = values.Order().ToArray();
        if (sorted.Length == 0)
        {
            return double.NaN;
        }

        int middle = sorted.Length / 2;
        return sorted.Length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
    }

    private static string CpuModel()
    {
        const string cpuInfo = "/proc/cpuinfo";
        if (File.Exists(cpuInfo))
        {
            string? line = File.ReadLines(cpuInfo).FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal));
            if (line is not null)
            {
                return line[(line.IndexOf(':', StringComparison.Ordinal) + 1)..].Trim();
            }
        }

        return RuntimeInformation.ProcessArchitecture.ToString();
    }

    private static string SdkVersion()
    {
        try
        {
            using var process = System.Diagnostics.Process.Start(new System.Diagnostics.ProcessStartInfo("dotnet", "--version")
            {
                RedirectStandardOutput = true,
                UseShellExecute = false,
            });
            if (process is null)
            {
                return "?";
            }

            string version = process.StandardOutput.ReadToEnd().Trim();
            process.WaitForExit();
            return version;
        }
        catch (System.ComponentModel.Win32Exception)
        {
            return "?";
        }
    }
}
