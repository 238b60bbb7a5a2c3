// Used only by BackpressureBenchmarks, which older runtimes (the before/after baseline) cannot build.
#if !BOC_BASELINE
using System.Globalization;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using Boc;

namespace Boc.Benchmarks.Micro;

/// <summary>
/// Peaks measured inside the benchmark process (highest pending count, highest GC heap) and shown as summary columns.
/// BenchmarkDotNet runs each case in a child process and builds the summary in the host, so the child writes its peaks
/// to a file per case under the temp folder, and the host's column reads it back.
/// </summary>
internal static class PeakColumns
{
    public const string PendingKey = "pending";
    public const string HeapKey = "heap";

    private static long s_pending;
    private static long s_heap;
    private static string? s_method;

    public static void Reset()
    {
        s_pending = 0;
        s_heap = 0;
        s_method = null;
    }

    /// <summary>Records the runtime's pending count and the GC heap now (call where the backlog peaks).</summary>
    public static void Sample(BocRuntime runtime, [System.Runtime.CompilerServices.CallerMemberName] string method = "")
    {
        s_method = method;
        s_pending = Math.Max(s_pending, runtime.PendingCount);
        s_heap = Math.Max(s_heap, GC.GetTotalMemory(forceFullCollection: false));
    }

    /// <summary>Writes this case's peaks for the host (from the benchmark's global cleanup).</summary>
    public static void Publish(BackpressureBenchmarks benchmark)
    {
        if (s_method is null)
        {
            return;
        }

        Directory.CreateDirectory(Folder);
        File.WriteAllText(
            PathFor(s_method, benchmark.MaxPending),
            string.Create(CultureInfo.InvariantCulture, $"{s_pending} {s_heap / (1024.0 * 1024.0):F1}"));
    }

    private static string Folder => Path.Combine(Path.GetTempPath(), "boc-benchmark-peaks");

    private static string PathFor(string method, int? maxPending) =>
        Path.Combine(Folder, $"{method}-{maxPending?.ToString(CultureInfo.InvariantCulture) ?? "unbounded"}.txt");

    /// <summary>A column that shows one of the peaks of each case.</summary>
    public sealed class Column(string name, string key) : IColumn
    {
        public string Id => $"{nameof(PeakColumns)}.{key}";

        public string ColumnName => name;

        public bool AlwaysShow => true;

        public ColumnCategory Category => ColumnCategory.Custom;

        public int PriorityInCategory => 0;

        public bool IsNumeric => true;

        public UnitType UnitType => UnitType.Dimensionless;

        public string Legend => key == PendingKey
            ? "Highest BocRuntime.PendingCount seen just after the producer's loop"
            : "Highest GC heap size (GC.GetTotalMemory) seen just after the producer's loop";

        public string GetValue(Summary summary, BenchmarkCase benchmarkCase) => GetValue(summary, benchmarkCase, SummaryStyle.Default);

        public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style)
        {
            object? bound = benchmarkCase.Parameters.Items.FirstOrDefault(p => p.Name == nameof(BackpressureBenchmarks.MaxPending))?.Value;
            string path = PathFor(benchmarkCase.Descriptor.WorkloadMethod.Name, bound as int?);
            if (!File.Exists(path))
            {
                return "-";
            }

            string[] parts = File.ReadAllText(path).Split(' ');
            return key == PendingKey ? parts[0] : parts[1];
        }

        public bool IsAvailable(Summary summary) => true;

        public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;
    }
}
#endif
