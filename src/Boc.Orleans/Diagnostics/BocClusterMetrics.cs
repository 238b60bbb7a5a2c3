using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Reflection;

namespace Boc.Orleans;

/// <summary>
/// Distributed Boc's instruments on the meter named <c>Boc</c> (the in-process runtime's meter name, so one
/// <c>dotnet-counters monitor --counters Boc</c> shows both) and its span per behaviour on the activity source named
/// <c>Boc.Orleans</c>. docs/distributed.md, "Operating it", lists them.
/// </summary>
internal static class BocClusterMetrics
{
    internal const string MeterName = "Boc";

    internal const string SourceName = "Boc.Orleans";

    internal const string BehaviourSpanName = "boc.cluster.behaviour";

    private static readonly string? s_version = typeof(BocClusterMetrics).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion;

    internal static readonly Meter Meter = new(MeterName, s_version);

    internal static readonly ActivitySource Source = new(SourceName, s_version);

    internal static readonly Counter<long> Spawned = Meter.CreateCounter<long>(
        "boc.cluster.behaviours.spawned", "{behaviour}", "Distributed behaviours accepted by WhenAsync (argument errors and refused self-waits are not counted).");

    internal static readonly Counter<long> Committed = Meter.CreateCounter<long>(
        "boc.cluster.behaviours.committed", "{behaviour}", "Distributed behaviours whose body ran and whose writes are durably committed (a behaviour that wrote nothing counts once its reads were validated).");

    internal static readonly Counter<long> Faulted = Meter.CreateCounter<long>(
        "boc.cluster.behaviours.faulted", "{behaviour}", "Distributed behaviours whose body threw: cowns released unchanged, not retried.");

    internal static readonly Counter<long> Canceled = Meter.CreateCounter<long>(
        "boc.cluster.behaviours.canceled", "{behaviour}", "Distributed behaviours withdrawn by their token before their body started.");

    internal static readonly Counter<long> Failed = Meter.CreateCounter<long>(
        "boc.cluster.behaviours.failed", "{behaviour}", "Distributed behaviours given up after MaxAttempts abandoned attempts: nothing written.");

    internal static readonly Counter<long> Ambiguous = Meter.CreateCounter<long>(
        "boc.cluster.behaviours.ambiguous", "{behaviour}", "Distributed behaviours whose commit outcome the spawner could not learn (the coordinator unreachable); the cowns settle it.");

    internal static readonly Counter<long> Abandoned = Meter.CreateCounter<long>(
        "boc.cluster.attempts.abandoned", "{attempt}", "Attempts abandoned before committing, tagged boc.reason (lost, aborted, unvalidated, unavailable): nothing written; retried unless MaxAttempts was reached.");

    internal static readonly Counter<long> LeasesExpired = Meter.CreateCounter<long>(
        "boc.cluster.leases.expired", "{request}", "Requests a cown evicted because their spawner stopped renewing them.");

    internal static readonly Counter<long> Recoveries = Meter.CreateCounter<long>(
        "boc.cluster.recoveries", "{step}", "Write-backs a cown finished without its spawner, tagged boc.recovery (applied, dropped, settled).");

    internal static readonly UpDownCounter<long> Queued = Meter.CreateUpDownCounter<long>(
        "boc.cluster.requests.queued", "{request}", "Requests in the queues of the cowns active on this silo (waiting or holding).");

    internal static readonly Histogram<double> Duration = Meter.CreateHistogram<double>(
        "boc.cluster.behaviours.duration", "ms", "Time from WhenAsync to its outcome, for committed behaviours.");

    internal static void LeaseExpired(int count)
    {
        if (LeasesExpired.Enabled)
        {
            LeasesExpired.Add(count);
        }
    }

    internal static void Recovered(string kind)
    {
        if (Recoveries.Enabled)
        {
            Recoveries.Add(1, new KeyValuePair<string, object?>("boc.recovery", kind));
        }
    }

    internal static void Abandon(string reason)
    {
        if (Abandoned.Enabled)
        {
            Abandoned.Add(1, new KeyValuePair<string, object?>("boc.reason", reason));
        }
    }

    internal static void Count(Counter<long> counter)
    {
        if (counter.Enabled)
        {
            counter.Add(1);
        }
    }
}
