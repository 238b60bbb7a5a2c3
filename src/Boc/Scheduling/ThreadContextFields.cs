using System.Runtime.CompilerServices;

namespace Boc;

/// <summary>
/// Reads a thread's current execution context and synchronization context straight from its <see cref="Thread"/>
/// object, so that a <see cref="BocScheduler"/> worker can check between two items that the item it ran left both as
/// it found them without a thread-static lookup.
/// </summary>
/// <remarks>
/// <para>
/// Why: a worker restores a clean context after every item (an item may set AsyncLocals or replace the
/// synchronization context, and the next, unrelated item must not see them). The public way to look,
/// <see cref="ExecutionContext.Capture"/> and <see cref="SynchronizationContext.Current"/>, reads
/// <see cref="Thread.CurrentThread"/> each time, and on Linux each such read of a runtime thread-static is a call into
/// the native TLS lookup. In a message chain (Savina's Ping Pong: one short body per item) the two looks were a visible
/// share of a worker's time (docs/performance/decisions.md, "The worker reads its contexts from its own thread
/// object"). The worker holds its own <see cref="Thread"/> object, so two field reads do it.
/// </para>
/// <para>
/// The fields are the runtime's (<c>Thread._executionContext</c>, <c>Thread._synchronizationContext</c>: on CoreCLR
/// their layout is fixed by the native thread object's), reached with <see cref="UnsafeAccessorAttribute"/>, which
/// works under Native AOT and throws <see cref="MissingFieldException"/> where a field does not exist. A worker tries
/// them once (<see cref="Available"/>) and otherwise keeps the public calls: a runtime without these fields is only
/// slower. What the checks mean is unchanged: the thread's context field is null exactly when
/// <see cref="ExecutionContext.Capture"/> returns the default context, which is the context every worker item starts
/// from (a worker is started with <see cref="Thread.UnsafeStart()"/>), and <see cref="ExecutionContext.Restore"/> of
/// the default context sets the field back to null.
/// </para>
/// </remarks>
internal static class ThreadContextFields
{
    /// <summary>Whether both fields can be read on this runtime; tried once per worker, when its loop starts.</summary>
    internal static bool Available(Thread thread)
    {
        try
        {
            _ = ExecutionContextOf(thread);
            _ = SynchronizationContextOf(thread);
            return true;
        }
        catch (MissingMemberException)
        {
            return false;
        }
    }

    /// <summary>The thread's current execution context: null for the default one.</summary>
    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_executionContext")]
    internal static extern ref ExecutionContext? ExecutionContextOf(Thread thread);

    /// <summary>The thread's current synchronization context.</summary>
    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_synchronizationContext")]
    internal static extern ref SynchronizationContext? SynchronizationContextOf(Thread thread);
}
