namespace Boc.Extensions.Hosting;

/// <summary>Where a hosted <see cref="BocRuntime"/> is in its life.</summary>
public enum BocRuntimePhase
{
    /// <summary>Accepting and running behaviours.</summary>
    Running = 0,

    /// <summary>The host has stopped its services and is draining the runtime: new behaviours are refused.</summary>
    Draining = 1,

    /// <summary>Every accepted behaviour finished; the runtime's workers have stopped.</summary>
    Drained = 2,

    /// <summary>
    /// The host's shutdown timeout passed before the runtime drained. New behaviours are refused; the pending ones keep
    /// running (<see cref="BocRuntimeMonitor.PendingAtShutdownTimeout"/> says how many there were).
    /// </summary>
    DrainTimedOut = 3,
}
