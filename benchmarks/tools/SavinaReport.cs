#:project ../Boc.Benchmarks/Boc.Benchmarks.csproj
#:property RunAnalyzers=false
// Turns BenchmarkDotNet's exported Savina results into the comparison tables and charts in benchmarks/results/, which
// benchmarks/README.md#against-the-peers links and shows.
//
//   dotnet run benchmarks/tools/SavinaReport.cs -- [--size Paper|Small] [--out benchmarks/results] RUN.csv [RUN.csv ...]
//
// A run exported in several BenchmarkDotNet invocations is given as their files joined with '+' (a.csv+b.csv).
// Each RUN.csv is either a BenchmarkDotNet report (BenchmarkDotNet.Artifacts/results/*-report.csv, one per run of the
// suite) or the compact results.csv this tool writes, so the committed tables and charts can be regenerated from the
// committed data alone. Several runs of the same suite are combined the way the README reads them: a time is the median
// over runs of BenchmarkDotNet's per-run median, and a ratio is the median over runs of the ratio within each run
// (ratios measured in the same run are what survive this machine's noise).
//
// Writes to --out: results.csv (every run's medians and allocations), comparison.md (the tables), peers.svg (peer
// time ÷ Boc time per benchmark, log scale) and dining-scaling.svg (the dining-philosophers times against the ideal).
// The ideal is the serial busy work ÷ usable cores, taken from the benchmark's own definition (so it cannot drift from
// what ran) and this machine's core count, capped by the philosophers that can eat at once.

using System.Globalization;
using System.Text;
using Boc.Benchmarks.Experiments;
using Boc.Benchmarks.Savina;

var inv = CultureInfo.InvariantCulture;
string outDir = "benchmarks/results";
SavinaSize size = SavinaSize.Paper;
var inputs = new List<string>();
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--out": outDir = args[++i]; break;
        case "--size": size = Enum.Parse<SavinaSize>(args[++i], ignoreCase: true); break;
        default: inputs.Add(args[i]); break;
    }
}

if (inputs.Count == 0)
{
    Console.Error.WriteLine("usage: dotnet run benchmarks/tools/SavinaReport.cs -- [--size Paper|Small] [--out DIR] RUN.csv [RUN.csv ...]");
    return 2;
}

// ---------------------------------------------------------------------------------------------------------------------
// Read
// ---------------------------------------------------------------------------------------------------------------------
var rows = new List<Row>();
for (int run = 0; run < inputs.Count; run++)
{
    // "a.csv+b.csv": one run of the suite that BenchmarkDotNet was asked for in two invocations.
    foreach (string part in inputs[run].Split('+'))
    {
        rows.AddRange(Read(part, run + 1));
    }
}

int runs = rows.Max(r => r.Run);
Directory.CreateDirectory(outDir);
using (var w = new StreamWriter(Path.Combine(outDir, "results.csv")))
{
    w.WriteLine("Run,Group,Benchmark,Method,Param,MedianMs,AllocatedBytes");
    foreach (Row r in rows.OrderBy(r => r.Run).ThenBy(r => r.Group).ThenBy(r => r.Benchmark).ThenBy(r => r.Method).ThenBy(r => r.Param))
    {
        w.WriteLine(string.Join(',', r.Run, r.Group, r.Benchmark, r.Method, r.Param, r.MedianMs.ToString("R", inv), r.Allocated.ToString(inv)));
    }
}

double? Time(string bench, string method, string param = "") =>
    MedianOf(rows.Where(r => r.Benchmark == bench && r.Method == method && r.Param == param).Select(r => r.MedianMs));

double? Alloc(string bench, string method, string param = "") =>
    MedianOf(rows.Where(r => r.Benchmark == bench && r.Method == method && r.Param == param).Select(r => r.Allocated));

// Median over runs of (numerator ÷ denominator) within each run.
double? Ratio(string bench, string num, string den, string numParam = "", string denParam = "")
{
    var ratios = new List<double>();
    for (int run = 1; run <= runs; run++)
    {
        Row? n = rows.FirstOrDefault(r => r.Run == run && r.Benchmark == bench && r.Method == num && r.Param == numParam);
        Row? d = rows.FirstOrDefault(r => r.Run == run && r.Benchmark == bench && r.Method == den && r.Param == denParam);
        if (n is not null && d is not null)
        {
            ratios.Add(n.MedianMs / d.MedianMs);
        }
    }

    return MedianOf(ratios);
}

// ---------------------------------------------------------------------------------------------------------------------
// The suite against the peers
// ---------------------------------------------------------------------------------------------------------------------
string[] suite =
[
    "PingPong", "Count", "ForkJoinThroughput", "ForkJoinCreate", "ThreadRing", "Chameneos", "Big", "Fib",
    "ConcurrentDictionary", "ConcurrentSortedLinkedList", "BoundedBuffer", "DiningPhilosophers", "SleepingBarber",
    "CigaretteSmokers", "LogisticMap", "Banking",
    "Filterbank", "Quicksort", "Radixsort", "RecursiveMatrixMultiplication", "Sieve", "Trapezoid",
];
var md = new StringBuilder();
md.AppendLine(inv, $"Runs combined: {runs}. Times are medians (of BenchmarkDotNet's per-run medians); ratios are the median of the per-run ratios, peer ÷ Boc, so above 1 means Boc is faster.");
md.AppendLine();
md.AppendLine("| Benchmark | Boc actor | Boc full | Channels | Akka.NET | Locks | Channels ÷ Boc actor | Akka ÷ Boc actor | Full ÷ actor | Locks ÷ Boc full | Allocated: actor / full / Channels / Akka / locks |");
md.AppendLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
var channelsRatios = new List<double>();
var akkaRatios = new List<double>();
var fullRatios = new List<double>();
var peerChart = new List<(string Name, double? Channels, double? Akka)>();
foreach (string b in suite)
{
    if (Time(b, "Actor") is null)
    {
        continue;
    }

    double? rc = Ratio(b, "Channels", "Actor");
    double? ra = Ratio(b, "Akka", "Actor");
    double? rf = Ratio(b, "Full", "Actor");
    double? rl = Ratio(b, "Locks", "Full");
    Add(channelsRatios, rc);
    Add(akkaRatios, ra);
    Add(fullRatios, rf);
    peerChart.Add((Title(b), rc, ra));
    md.AppendLine(inv, $"| {Title(b)} | {Ms(Time(b, "Actor"))} | {Ms(Time(b, "Full"))} | {Ms(Time(b, "Channels"))} | {Ms(Time(b, "Akka"))} | {Ms(Time(b, "Locks"))} | {X(rc)} | {X(ra)} | {X(rf)} | {X(rl)} | {Bytes(Alloc(b, "Actor"))} / {Bytes(Alloc(b, "Full"))} / {Bytes(Alloc(b, "Channels"))} / {Bytes(Alloc(b, "Akka"))} / {Bytes(Alloc(b, "Locks"))} |");
}

md.AppendLine(inv, $"| **Geometric mean** | | | | | | **{X(GeoMean(channelsRatios))}** ({channelsRatios.Count}) | **{X(GeoMean(akkaRatios))}** ({akkaRatios.Count}) | **{X(GeoMean(fullRatios))}** ({fullRatios.Count}) | | |");
md.AppendLine();
md.AppendLine(inv, $"Boc actor style is faster than Channels actors on {channelsRatios.Count(r => r > 1)} of {channelsRatios.Count}, and faster than Akka.NET on {akkaRatios.Count(r => r > 1)} of {akkaRatios.Count}.");
md.AppendLine();

// ---------------------------------------------------------------------------------------------------------------------
// ReasonableBanking, BusyBanking, Dining Philosophers scaling
// ---------------------------------------------------------------------------------------------------------------------
if (Time("ReasonableBanking", "Boc") is not null)
{
    int transfers = ReasonableBanking.Transfers(size);
    md.AppendLine(inv, $"**ReasonableBanking** ({transfers:N0} transfers per run):");
    md.AppendLine();
    md.AppendLine("| Implementation | Median | Transfers/s | Time ÷ Boc | Allocated |");
    md.AppendLine("|---|---:|---:|---:|---:|");
    foreach (string m in new[] { "Boc", "Channels", "Akka", "Locks" })
    {
        double? t = Time("ReasonableBanking", m);
        if (t is not null)
        {
            md.AppendLine(inv, $"| {m} | {Ms(t)} | {transfers / (t.Value / 1000):N0} | {X(Ratio("ReasonableBanking", m, "Boc"))} | {Bytes(Alloc("ReasonableBanking", m))} |");
        }
    }

    md.AppendLine();
}

if (Time("BusyBanking", "Full", "1") is not null)
{
    md.AppendLine("**BusyBanking** (full-BoC Banking with 10 µs of busy work per transfer):");
    md.AppendLine();
    md.AppendLine("| Workers | Median | Speed-up over 1 worker (median of per-run ratios) | Allocated |");
    md.AppendLine("|---:|---:|---:|---:|");
    foreach (string workers in rows.Where(r => r.Benchmark == "BusyBanking").Select(r => r.Param).Distinct().OrderBy(p => int.Parse(p, inv)))
    {
        double? speedUp = Ratio("BusyBanking", "Full", "Full", numParam: "1", denParam: workers);
        md.AppendLine(inv, $"| {workers} | {Ms(Time("BusyBanking", "Full", workers))} | {X(speedUp)} | {Bytes(Alloc("BusyBanking", "Full", workers))} |");
    }

    md.AppendLine();
}

if (Time("DiningPhilosophersScaling", "Alternating") is not null)
{
    double serial = DiningPhilosophersScaling.SerialWorkMilliseconds(size);
    double ideal = DiningPhilosophersScaling.IdealMilliseconds(size, Environment.ProcessorCount);
    int cores = (int)Math.Round(serial / ideal);
    md.AppendLine(inv, $"**Dining Philosophers scaling** ({serial / 1000:0.##} s of serial busy work, {cores} usable cores: ideal {Ms(ideal)}):");
    md.AppendLine();
    md.AppendLine("| Variant | Median | Time ÷ ideal | Allocated |");
    md.AppendLine("|---|---:|---:|---:|");
    var bars = new List<(string Label, double Ms)>();
    foreach ((string m, string label) in new[] { ("Alternating", "Boc, alternating order"), ("Naive", "Boc, naive order"), ("Locks", "Threads + locks") })
    {
        double? t = Time("DiningPhilosophersScaling", m);
        if (t is not null)
        {
            bars.Add((label, t.Value));
            md.AppendLine(inv, $"| {label} | {Ms(t)} | {t.Value / ideal:0.00} | {Bytes(Alloc("DiningPhilosophersScaling", m))} |");
        }
    }

    md.AppendLine();
    File.WriteAllText(Path.Combine(outDir, "dining-scaling.svg"), DiningChart(bars, ideal, serial, cores));
}

File.WriteAllText(Path.Combine(outDir, "comparison.md"), md.ToString());
if (peerChart.Count > 0)
{
    File.WriteAllText(Path.Combine(outDir, "peers.svg"), PeersChart(peerChart));
}

Console.Write(md);
Console.WriteLine($"wrote {outDir}/results.csv, comparison.md, peers.svg{(Time("DiningPhilosophersScaling", "Alternating") is null ? "" : ", dining-scaling.svg")}");
return 0;

// ---------------------------------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------------------------------
static IEnumerable<Row> Read(string path, int run)
{
    string[] lines = File.ReadAllLines(path);
    string[] header = SplitCsv(lines[0]);
    if (header[0] == "Run")
    {
        // Our own compact format: keep its run numbers, offset so that several files stay distinct.
        foreach (string line in lines.Skip(1))
        {
            string[] c = SplitCsv(line);
            yield return new Row(int.Parse(c[0], CultureInfo.InvariantCulture) + (run - 1) * 1000, c[1], c[2], c[3], c[4],
                double.Parse(c[5], CultureInfo.InvariantCulture), double.Parse(c[6], CultureInfo.InvariantCulture));
        }

        yield break;
    }

    int ns = Array.IndexOf(header, "Namespace"), type = Array.IndexOf(header, "Type"), method = Array.IndexOf(header, "Method");
    int median = Array.IndexOf(header, "Median"), allocated = Array.IndexOf(header, "Allocated");
    int workers = Array.IndexOf(header, "Workers"); // BusyBanking's [Params]; "?" in rows of other classes
    foreach (string line in lines.Skip(1))
    {
        string[] c = SplitCsv(line);
        if (c[median] is "NA" or "" || !c[ns].StartsWith("Boc.Benchmarks.", StringComparison.Ordinal))
        {
            continue;
        }

        yield return new Row(run, c[ns].Split('.')[^1], c[type], c[method], workers >= 0 && c[workers] != "?" ? c[workers] : "",
            ParseTime(c[median]), allocated >= 0 ? ParseBytes(c[allocated]) : 0);
    }
}

static string[] SplitCsv(string line)
{
    var cells = new List<string>();
    var cell = new StringBuilder();
    bool quoted = false;
    foreach (char ch in line)
    {
        if (ch == '"')
        {
            quoted = !quoted;
        }
        else if (ch == ',' && !quoted)
        {
            cells.Add(cell.ToString());
            cell.Clear();
        }
        else
        {
            cell.Append(ch);
        }
    }

    cells.Add(cell.ToString());
    return [.. cells];
}

static double ParseTime(string value)
{
    string[] parts = value.Replace(",", "", StringComparison.Ordinal).Split(' ', StringSplitOptions.RemoveEmptyEntries);
    double number = double.Parse(parts[0], CultureInfo.InvariantCulture);
    return number * parts[1] switch
    {
        "s" => 1000,
        "ms" => 1,
        "μs" or "us" => 1e-3,
        "ns" => 1e-6,
        var unit => throw new FormatException($"unknown time unit '{unit}' in '{value}'"),
    };
}

static double ParseBytes(string value)
{
    if (value is "-" or "")
    {
        return 0;
    }

    string[] parts = value.Replace(",", "", StringComparison.Ordinal).Split(' ', StringSplitOptions.RemoveEmptyEntries);
    double number = double.Parse(parts[0], CultureInfo.InvariantCulture);
    return number * parts[1] switch
    {
        "B" => 1,
        "KB" => 1024,
        "MB" => 1024 * 1024,
        "GB" => 1024.0 * 1024 * 1024,
        var unit => throw new FormatException($"unknown size unit '{unit}' in '{value}'"),
    };
}

static double? MedianOf(IEnumerable<double> values)
{
    double[] sorted = values.Order().ToArray();
    if (sorted.Length == 0)
    {
        return null;
    }

    int mid = sorted.Length / 2;
    return sorted.Length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

static double? GeoMean(List<double> values) =>
    values.Count == 0 ? null : Math.Exp(values.Average(Math.Log));

static void Add(List<double> list, double? value)
{
    if (value is double v)
    {
        list.Add(v);
    }
}

static string Title(string type) => type switch
{
    "LogisticMap" => "Logistic Map Series",
    "Sieve" => "Sieve of Eratosthenes",
    "ConcurrentSortedLinkedList" => "Concurrent Sorted Linked-List",
    _ => string.Concat(type.Select((ch, i) => i > 0 && char.IsUpper(ch) ? " " + ch : ch.ToString()))
        .Replace("Fork Join", "Fork-Join", StringComparison.Ordinal),
};

static string Ms(double? ms) => ms switch
{
    null => "–",
    >= 1000 => string.Create(CultureInfo.InvariantCulture, $"{ms.Value / 1000:0.00} s"),
    >= 100 => string.Create(CultureInfo.InvariantCulture, $"{ms.Value:0} ms"),
    _ => string.Create(CultureInfo.InvariantCulture, $"{ms.Value:0.0} ms"),
};

static string X(double? ratio) => ratio is double r ? r.ToString("0.00", CultureInfo.InvariantCulture) : "–";

static string Bytes(double? bytes) => bytes switch
{
    null => "–",
    < 1024 => string.Create(CultureInfo.InvariantCulture, $"{bytes.Value:0} B"),
    < 1024 * 1024 => string.Create(CultureInfo.InvariantCulture, $"{bytes.Value / 1024:0.0} KB"),
    _ => string.Create(CultureInfo.InvariantCulture, $"{bytes.Value / 1024 / 1024:0.0} MB"),
};

static string Esc(string s) => s.Replace("&", "&amp;", StringComparison.Ordinal).Replace("<", "&lt;", StringComparison.Ordinal);

// Horizontal bars: each variant's time, a dashed line at the ideal, and the serial work for scale.
static string DiningChart(List<(string Label, double Ms)> bars, double ideal, double serial, int cores)
{
    var inv = CultureInfo.InvariantCulture;
    const int left = 190, width = 460, barHeight = 28, gap = 14, top = 50;
    double max = Math.Max(bars.Max(b => b.Ms), ideal) * 1.15;
    int height = top + bars.Count * (barHeight + gap) + 50;
    var svg = new StringBuilder();
    svg.AppendLine(inv, $"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{left + width + 40}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"13\">");
    svg.AppendLine(inv, $"<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
    svg.AppendLine(inv, $"<text x=\"10\" y=\"22\" font-size=\"15\" font-weight=\"bold\">Dining philosophers, 1 ms per meal: time against the ideal</text>");
    svg.AppendLine(inv, $"<text x=\"10\" y=\"40\" fill=\"#555\">ideal = {serial / 1000:0.##} s of serial work ÷ {cores} cores = {ideal / 1000:0.00} s (median times)</text>");
    for (int i = 0; i < bars.Count; i++)
    {
        int y = top + i * (barHeight + gap);
        double w = bars[i].Ms / max * width;
        string colour = bars[i].Label.StartsWith("Boc", StringComparison.Ordinal) ? "#2b6cb0" : "#a0aec0";
        svg.AppendLine(inv, $"<text x=\"{left - 8}\" y=\"{y + 19}\" text-anchor=\"end\">{Esc(bars[i].Label)}</text>");
        svg.AppendLine(inv, $"<rect x=\"{left}\" y=\"{y}\" width=\"{w:0.0}\" height=\"{barHeight}\" fill=\"{colour}\"/>");
        svg.AppendLine(inv, $"<text x=\"{left + w + 6:0.0}\" y=\"{y + 19}\">{bars[i].Ms / 1000:0.00} s ({bars[i].Ms / ideal:0.00}× ideal)</text>");
    }

    double ix = left + ideal / max * width;
    int bottom = top + bars.Count * (barHeight + gap);
    svg.AppendLine(inv, $"<line x1=\"{ix:0.0}\" y1=\"{top - 6}\" x2=\"{ix:0.0}\" y2=\"{bottom}\" stroke=\"#c53030\" stroke-width=\"2\" stroke-dasharray=\"6,4\"/>");
    svg.AppendLine(inv, $"<text x=\"{ix:0.0}\" y=\"{bottom + 16}\" text-anchor=\"middle\" fill=\"#c53030\">ideal {ideal / 1000:0.00} s</text>");
    svg.AppendLine(inv, $"<line x1=\"{left}\" y1=\"{top - 6}\" x2=\"{left}\" y2=\"{bottom}\" stroke=\"#333\"/>");
    svg.AppendLine("</svg>");
    return svg.ToString();
}

// One row per benchmark: peer time ÷ Boc actor time on a log axis from 1/16 to 16, bars from 1 (equal speed).
static string PeersChart(List<(string Name, double? Channels, double? Akka)> items)
{
    var inv = CultureInfo.InvariantCulture;
    const int left = 230, width = 480, row = 22, top = 60;
    const double lo = -4, hi = 4; // log2 range
    int height = top + items.Count * row + 40;
    double X(double ratio) => left + (Math.Clamp(Math.Log2(ratio), lo, hi) - lo) / (hi - lo) * width;
    var svg = new StringBuilder();
    svg.AppendLine(inv, $"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{left + width + 30}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"12\">");
    svg.AppendLine(inv, $"<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
    svg.AppendLine(inv, $"<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">Savina: peer time ÷ Boc actor-style time (right of 1 = Boc faster)</text>");
    svg.AppendLine(inv, $"<rect x=\"10\" y=\"32\" width=\"12\" height=\"12\" fill=\"#2b6cb0\"/><text x=\"27\" y=\"43\">Channels actors</text>");
    svg.AppendLine(inv, $"<rect x=\"140\" y=\"32\" width=\"12\" height=\"12\" fill=\"#dd6b20\"/><text x=\"157\" y=\"43\">Akka.NET</text>");
    foreach (double tick in new[] { 1 / 16.0, 1 / 4.0, 1, 4, 16 })
    {
        double x = X(tick);
        svg.AppendLine(inv, $"<line x1=\"{x:0.0}\" y1=\"{top - 4}\" x2=\"{x:0.0}\" y2=\"{top + items.Count * row}\" stroke=\"{(tick == 1 ? "#333" : "#ddd")}\"/>");
        svg.AppendLine(inv, $"<text x=\"{x:0.0}\" y=\"{top + items.Count * row + 16}\" text-anchor=\"middle\">{(tick < 1 ? $"1/{1 / tick:0}" : $"{tick:0}")}</text>");
    }

    for (int i = 0; i < items.Count; i++)
    {
        int y = top + i * row;
        svg.AppendLine(inv, $"<text x=\"{left - 8}\" y=\"{y + 14}\" text-anchor=\"end\">{Esc(items[i].Name)}</text>");
        void Bar(double? ratio, int dy, string colour)
        {
            if (ratio is double r)
            {
                double x1 = X(1), x2 = X(r);
                svg.AppendLine(inv, $"<rect x=\"{Math.Min(x1, x2):0.0}\" y=\"{y + dy}\" width=\"{Math.Max(Math.Abs(x2 - x1), 1):0.0}\" height=\"8\" fill=\"{colour}\"/>");
            }
        }

        Bar(items[i].Channels, 2, "#2b6cb0");
        Bar(items[i].Akka, 11, "#dd6b20");
    }

    svg.AppendLine("</svg>");
    return svg.ToString();
}

internal sealed record Row(int Run, string Group, string Benchmark, string Method, string Param, double MedianMs, double Allocated);
