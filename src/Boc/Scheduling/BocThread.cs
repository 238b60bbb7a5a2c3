using System.Runtime.CompilerServices;

namespace Boc;

/// <summary>
/// What the runtime keeps per thread, in one object behind one thread-static: the running behaviour, the pools' thread
/// caches, the <see cref="BocScheduler"/> worker the thread is, and the thread's line in a <see cref="PendingCount"/>.
/// </summary>
/// <remarks>
/// <para>
/// Why one object: on Linux the runtime's thread-statics live in a dynamically loaded library's TLS block, so every
/// thread-static access is a call into the native TLS lookup (<c>__tls_get_addr</c>) before the field is read. A hop of
/// a message chain (Savina's Thread Ring: run a one-cown behaviour, spawn the next, release) reached five different
/// thread-statics six times, a visible share of a worker's samples in that lookup alone. With one object, code that
/// needs several of them looks the object up once and passes it along: a <see cref="BocScheduler"/> worker hands its
/// own to every behaviour it runs, the run hands it to the release, and a spawn looks it up once for the pool, the
/// scheduler and the count. A hop now makes one lookup, the spawn's (a body's <c>When</c> has nothing to be handed),
/// not six (docs/performance/decisions.md, "One thread object per thread", has what the chains gained).
/// </para>
/// <para>
/// Only the owning thread reads or writes the fields (the object is never published to another thread), so none of
/// them needs ordering.
/// </para>
/// </remarks>
internal sealed class BocThread
{
    [ThreadStatic]
    private static BocThread? t_current;

    /// <summary>The behaviour whose body runs on this thread (synchronous part); see <c>Behaviour.Current</c>.</summary>
    internal Behaviour? Running;

    /// <summary>
    /// The behaviour this thread returned to the pool last, if it has not been rented since: in front of every type's
    /// thread cache (<see cref="BehaviourPool{T}"/> says why). On any thread but a <see cref="BocScheduler"/> worker it is
    /// cleared for the pool, so it holds nothing of the user's.
    /// </summary>
    /// <remarks>
    /// A worker's spare of a plain one-cown <c>When</c> is warm: it keeps its runtime, cown, body and state, and the next
    /// spawn that rents it stores only what differs (<c>AppendableActionBehaviour.Init</c>). A message chain between two
    /// actors (a request and its reply) spawns the same four every time, and each store of a reference into a pooled
    /// object is a GC write barrier call, which a chain's hop paid four times (docs/performance/decisions.md, "A
    /// worker's spare stays warm"). What it keeps alive is one behaviour's worth per worker, and only while the worker
    /// is busy: <see cref="ForgetSpareReferences"/> clears it before the worker parks.
    /// </remarks>
    internal Behaviour? Spare;

    /// <summary>
    /// The runtime whose unhandled-exception handler runs on this thread now, or null. The handler runs while the failed
    /// behaviour is still pending, so a blocking wait for that runtime there would wait for itself (BocRuntime.Dispose).
    /// </summary>
    internal BocRuntime? Handling;

    /// <summary>The worker this thread is, if it is one of a <see cref="BocScheduler"/>'s; set once, when its loop starts.</summary>
    internal BocScheduler.Worker? Worker;

    /// <summary>Every pooled behaviour type's cache for this thread, at the type's index (<see cref="BehaviourPoolCaches"/>).</summary>
    internal object?[]? PoolCaches;

    /// <summary>The <see cref="PendingCount"/> this thread counted in last, and its line there.</summary>
    internal PendingCount? LastCount;

    /// <summary>The line of <see cref="LastCount"/> this thread counts on.</summary>
    internal int LastLine;

    /// <summary>Gets the calling thread's object, creating it on the thread's first use.</summary>
    internal static BocThread Current
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => t_current ?? Create();
    }

    /// <summary>Gets the calling thread's object if it has one (a thread that never used the runtime has none).</summary>
    internal static BocThread? CurrentOrNull
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => t_current;
    }

    /// <summary>Clears what a warm <see cref="Spare"/> keeps (see its remarks); the worker calls it before it parks.</summary>
    internal void ForgetSpareReferences() => Spare?.ForgetReferences();

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static BocThread Create() => t_current = new BocThread();
}
