using Akka.Actor;

namespace Boc.Benchmarks.Baselines;

/// <summary>
/// The one Akka.NET <see cref="ActorSystem"/> of the process, shared by every Akka run. Default configuration (default
/// dispatcher: Akka's own fork-join executor sized from the processor count, default mailboxes and throughput). Created
/// on first use, which is always a run's untimed Build; it lives until the process exits. Each run stops its own actors,
/// so nothing carries over from one iteration to the next but the system itself.
/// </summary>
internal static class AkkaHost
{
    private static readonly Lazy<ActorSystem> LazySystem = new(() => ActorSystem.Create("savina"), LazyThreadSafetyMode.ExecutionAndPublication);

    /// <summary>Gets the shared actor system, creating it on first use.</summary>
    public static ActorSystem System => LazySystem.Value;
}
