using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Reflection;

namespace Boc.Diagnostics;

/// <summary>
/// The <see cref="Meter"/> named <c>Boc</c> and its instruments (docs/guide/observability.md lists them).
/// </summary>
/// <remarks>
/// <para>
/// Zero cost when nobody listens: every hook on the spawn/run/finish path first reads the instrument's
/// <see cref="Instrument.Enabled"/> (true only while some <see cref="MeterListener"/> has enabled it), and does nothing
/// else when it is false. In particular no timestamp is taken at spawn unless <see cref="StartDelay"/> is enabled; the
/// timestamp is stored in the pooled behaviour, so measuring allocates nothing either.
/// </para>
/// <para>
/// Tags: a runtime created with <see cref="BocRuntimeOptions.Name"/> tags its measurements with
/// <see cref="RuntimeTag"/> = that name; unnamed runtimes record without tags (observable instruments report one
/// measurement per name, unnamed runtimes summed together). Names are meant to be few and fixed ("orders",
/// "default"), not per request: every distinct name is a time series.
/// </para>
/// </remarks>
internal static class BocMetrics
{
    /// <summary>The name of the meter and of the <c>dotnet-counters</c> provider: <c>Boc</c>.</summary>
    internal const string MeterName = "Boc";

    /// <summary>The tag that carries <see cref="BocRuntimeOptions.Name"/>.</summary>
    internal const string RuntimeTag = "boc.runtime";

    internal static readonly Meter Meter = new(MeterName, InformationalVersion());

    internal static readonly Counter<long> Spawned = Meter.CreateCounter<long>(
        "boc.behaviours.spawned", "{behaviour}", "Behaviours accepted by When/WhenAsync (refused spawns, e.g. on a disposed runtime, are not counted).");

    internal static readonly Counter<long> Completed = Meter.CreateCounter<long>(
        "boc.behaviours.completed", "{behaviour}", "Behaviours whose body ran to the end without an exception.");

    internal static readonly Counter<long> Faulted = Meter.CreateCounter<long>(
        "boc.behaviours.faulted", "{behaviour}", "Behaviours whose body threw, or whose asynchronous body's task faulted or was canceled.");

    internal static readonly Counter<long> CanceledCounter = Meter.CreateCounter<long>(
        "boc.behaviours.canceled", "{behaviour}", "Behaviours withdrawn by cancellation before their body started (the body never ran).");

    internal static readonly Histogram<double> StartDelay = Meter.CreateHistogram<double>(
        "boc.behaviours.start_delay", "ms", "Time from a behaviour's spawn to the start of its body: waiting for cowns plus waiting for a worker.");

    internal static readonly WeakRegistry<BocRuntime> Runtimes = new();

    internal static readonly WeakRegistry<BocScheduler> Schedulers = new();

    internal static readonly ObservableUpDownCounter<long> Pending = Meter.CreateObservableUpDownCounter(
        "boc.behaviours.pending", ObservePending, "{behaviour}", "Behaviours spawned and not yet finished (queued on cowns, ready, or running), per runtime.");

    internal static readonly ObservableCounter<long> ItemsRun = Meter.CreateObservableCounter(
        "boc.scheduler.items_run", ObserveItemsRun, "{item}", "Items (behaviours, tasks, continuations) run by BocScheduler workers.");

    internal static readonly ObservableCounter<double> BusyTime = Meter.CreateObservableCounter(
        "boc.scheduler.busy_time", ObserveBusyTime, "s", "Time BocScheduler workers spent running items, summed over workers; accumulated only while this instrument is enabled.");

    internal static readonly ObservableGauge<long> IdleWorkers = Meter.CreateObservableGauge(
        "boc.scheduler.workers.idle", ObserveIdleWorkers, "{worker}", "BocScheduler workers parked (or about to park) for lack of work.");

    internal static readonly ObservableGauge<long> Workers = Meter.CreateObservableGauge(
        "boc.scheduler.workers", ObserveWorkers, "{worker}", "BocScheduler worker threads.");

    /// <summary>
    /// Adds <paramref name="delta"/> (one by default) to <paramref name="counter"/>, tagged with the runtime's name if it
    /// has one; the caller checked Enabled.
    /// </summary>
    internal static void Add(Counter<long> counter, string? runtimeName, long delta = 1)
    {
        if (runtimeName is null)
        {
            counter.Add(delta);
        }
        else
        {
            counter.Add(delta, new KeyValuePair<string, object?>(RuntimeTag, runtimeName));
        }
    }

    /// <summary>
    /// Records a behaviour withdrawn by cancellation (<c>WhenAsync(…, CancellationToken)</c>) before its body started,
    /// when its withdrawal completes. A token canceled before the spawn enqueues nothing and is not counted (nor
    /// spawned), so spawned = completed + faulted + canceled + pending.
    /// </summary>
    internal static void Canceled(string? runtimeName)
    {
        if (CanceledCounter.Enabled)
        {
            Add(CanceledCounter, runtimeName);
        }
    }

    /// <summary>Records a spawn-to-start delay.</summary>
    internal static void RecordStartDelay(string? runtimeName, double milliseconds)
    {
        if (runtimeName is null)
        {
            StartDelay.Record(milliseconds);
        }
        else
        {
            StartDelay.Record(milliseconds, new KeyValuePair<string, object?>(RuntimeTag, runtimeName));
        }
    }

    private static IEnumerable<Measurement<long>> ObservePending() =>
        PerName(Runtimes.Snapshot(), static r => r.Name, static r => r.PendingEstimate);

    private static IEnumerable<Measurement<long>> ObserveItemsRun() =>
        PerName(Schedulers.Snapshot(), static s => s.RuntimeName, static s => s.ItemsRun);

    private static IEnumerable<Measurement<long>> ObserveIdleWorkers() =>
        PerName(Schedulers.Snapshot(), static s => s.RuntimeName, static s => s.Sleepers);

    private static IEnumerable<Measurement<long>> ObserveWorkers() =>
        PerName(Schedulers.Snapshot(), static s => s.RuntimeName, static s => s.WorkerCount);

    private static IEnumerable<Measurement<double>> ObserveBusyTime()
    {
        var sums = new Dictionary<string, long>(StringComparer.Ordinal);
        long unnamed = 0;
        bool anyUnnamed = false;
        foreach (BocScheduler scheduler in Schedulers.Snapshot())
        {
            long ticks = scheduler.BusyTimestampTicks;
            if (scheduler.RuntimeName is { } name)
            {
                sums[name] = sums.GetValueOrDefault(name) + ticks;
            }
            else
            {
                unnamed += ticks;
                anyUnnamed = true;
            }
        }

        var measurements = new List<Measurement<double>>(sums.Count + 1);
        if (anyUnnamed)
        {
            measurements.Add(new Measurement<double>((double)unnamed / Stopwatch.Frequency));
        }

        foreach (KeyValuePair<string, long> entry in sums)
        {
            measurements.Add(new Measurement<double>((double)entry.Value / Stopwatch.Frequency, new KeyValuePair<string, object?>(RuntimeTag, entry.Key)));
        }

        return measurements;
    }

    /// <summary>
    /// One measurement per runtime name (unnamed objects summed into one untagged measurement): an observable
    /// instrument must not report two measurements with the same tags in one collection.
    /// </summary>
    private static List<Measurement<long>> PerName<T>(List<T> items, Func<T, string?> nameOf, Func<T, long> valueOf)
    {
        var sums = new Dictionary<string, long>(StringComparer.Ordinal);
        long unnamed = 0;
        bool anyUnnamed = false;
        foreach (T item in items)
        {
            long value = valueOf(item);
            if (nameOf(item) is { } name)
            {
                sums[name] = sums.GetValueOrDefault(name) + value;
            }
            else
            {
                unnamed += value;
                anyUnnamed = true;
            }
        }

        var measurements = new List<Measurement<long>>(sums.Count + 1);
        if (anyUnnamed)
        {
            measurements.Add(new Measurement<long>(unnamed));
        }

        foreach (KeyValuePair<string, long> entry in sums)
        {
            measurements.Add(new Measurement<long>(entry.Value, new KeyValuePair<string, object?>(RuntimeTag, entry.Key)));
        }

        return measurements;
    }

    private static string? InformationalVersion() =>
        typeof(BocMetrics).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;
}
