namespace Boc;

/// <summary>Where a <see cref="BocRuntime"/> runs behaviours that are ready.</summary>
public enum BocDispatcher
{
    /// <summary>
    /// The .NET thread pool: each ready behaviour is queued as an <see cref="IThreadPoolWorkItem"/>. Shares threads with
    /// the rest of the process and grows them when bodies block; choose it for services (where request handlers and I/O
    /// already run on the pool; the hosting package's <c>AddBoc</c> chooses it) and for bodies that may block.
    /// </summary>
    ThreadPool,

    /// <summary>
    /// A <see cref="Boc.BocScheduler"/> owned by the runtime: fixed worker threads with work stealing and a per-worker
    /// next slot that runs chains of dependent behaviours on one core. Disposed with the runtime. The default of
    /// <see cref="BocRuntimeOptions"/>: for processes whose work is mostly behaviours.
    /// </summary>
    BocScheduler,
}
