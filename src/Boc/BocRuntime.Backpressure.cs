using System.Runtime.CompilerServices;

namespace Boc;

// Backpressure: the bound on pending behaviours (BocRuntimeOptions.MaxPendingBehaviours) and its waiters. The count,
// the bound and the wake-up are the admission engine's (Engines/Admission.cs, which has their argument); this file is
// the runtime's side: where each spawn asks, and the public surface.

public sealed partial class BocRuntime
{
    // A bounded runtime's admission, or null for none: read by every spawn and completion, so readonly, and the branch
    // on it predictable.
    private readonly Admission? _admission;

    /// <summary>Gets how many blocked spawns and <see cref="WaitForRoomAsync"/> calls are waiting for room now.</summary>
    internal int RoomWaiters => _admission?.RoomWaiters ?? 0;

    /// <summary>
    /// Gets the number of behaviours pending on this runtime: accepted and not yet finished (queued on their cowns,
    /// running, or in an asynchronous body that has not completed). Cheap to read.
    /// </summary>
    /// <remarks>
    /// <para>
    /// Exact when no thread is spawning or finishing a behaviour of this runtime during the read. While others spawn
    /// and finish, an unbounded runtime reads its per-processor counters one by one, so the value is never less than
    /// the number of behaviours that were pending throughout the read, and may also count ones spawned or finished
    /// during it. A runtime with <see cref="BocRuntimeOptions.MaxPendingBehaviours"/> keeps one exact counter and
    /// returns the count at one moment during the read.
    /// </para>
    /// <para>
    /// A behaviour is counted before its <c>When</c> returns, and stops being counted after it released its cowns. Under
    /// a bound that is before its result (if any) is delivered, so a caller that has the result finds its room free.
    /// </para>
    /// </remarks>
    public long PendingCount => _admission is { } admission ? admission.Pending : _pending.Estimate();

    /// <summary>
    /// Waits until this runtime has room for a behaviour: fewer than <see cref="BocRuntimeOptions.MaxPendingBehaviours"/>
    /// pending. The way for asynchronous producers to wait without blocking a thread, in the manner of
    /// <c>ChannelWriter.WaitToWriteAsync</c>: <c>while (!runtime.TryWhen(…)) await runtime.WaitForRoomAsync(ct);</c>
    /// </summary>
    /// <param name="cancellationToken">Stops waiting; the returned task is then canceled.</param>
    /// <returns>
    /// A task that completes at once if the runtime has no bound, has room now, or the caller is inside the runtime (in
    /// a behaviour's body, or on one of its workers: such spawns are never bounded), and otherwise when a pending
    /// behaviour finishes and leaves room, or when the runtime is disposed (the next spawn then throws
    /// <see cref="ObjectDisposedException"/>; a shutdown releases every waiter at once).
    /// </returns>
    /// <remarks>
    /// It reserves nothing: another producer may take the room first, so retry the spawn with <c>TryWhen</c> (which
    /// never waits) and wait again if it returns false. One method serves every form of <c>TryWhen</c> and
    /// <c>When</c>, rather than an awaitable twin of each of them.
    /// </remarks>
    /// <exception cref="OperationCanceledException"><paramref name="cancellationToken"/> was canceled first.</exception>
    public ValueTask WaitForRoomAsync(CancellationToken cancellationToken = default)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            return ValueTask.FromCanceled(cancellationToken);
        }

        if (_admission is not { } admission || admission.HasRoom || IsInside())
        {
            return ValueTask.CompletedTask;
        }

        return new ValueTask(admission.WaitForRoomAsync(cancellationToken));
    }

    /// <summary>
    /// Admits a spawn of <c>When</c> or <c>WhenAsync</c> before its behaviour is rented: on a bounded runtime, counts it
    /// in, waiting (Wait mode) or throwing (Throw mode, or a full runtime that is disposed) while the runtime is full
    /// for an outside spawn. Nothing is rented or counted when it throws.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void Admit()
    {
        // Unbounded: one predictable branch. Bounded, the wait gives up only if the spawn's scope is canceled meanwhile
        // (WaitToAdmit): the spawn is then refused as it would be once admitted, with nothing counted.
        if (_admission is { } admission && !admission.Admit(CancellationToken.None))
        {
            throw ScopeCanceled(ScopeHere()?.Token ?? default);
        }
    }

    /// <summary>
    /// Admits a spawn of <c>WhenAsync(…, cancellationToken)</c> before its behaviour is rented, as <see cref="Admit()"/>
    /// does, but a token canceled already, or while the spawn waits for room, ends the admission: it returns false, and
    /// nothing is counted. The caller still rents its behaviour, for the canceled awaitable (see
    /// <see cref="SpawnAdmitted(Behaviour, BocThread, bool, CancellationToken)"/>).
    /// </summary>
    private bool Admit(CancellationToken cancellationToken)
    {
        if (cancellationToken.IsCancellationRequested)
        {
            ThrowIfDisposed();
            return false;
        }

        return _admission is not { } admission || admission.Admit(cancellationToken);
    }

    /// <summary>
    /// For <c>TryWhen</c>: counts the spawn in and returns true if there is room (always, without a bound or from
    /// inside a body), or returns false and changes nothing.
    /// </summary>
    private bool TryAdmit() => _admission is not { } admission || admission.TryAdmit();

    /// <summary>
    /// Validates the bound and creates <paramref name="runtime"/>'s admission, or returns null for an unbounded runtime;
    /// before the runtime starts anything.
    /// </summary>
    private static Admission? AdmissionOf(BocRuntime runtime, BocRuntimeOptions options)
    {
        if (!Enum.IsDefined(options.FullMode))
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.FullMode, "Unknown BocFullMode.");
        }

        if (options.MaxPendingBehaviours is not int max)
        {
            return null;
        }

        ArgumentOutOfRangeException.ThrowIfLessThan(max, 1, nameof(options.MaxPendingBehaviours));
        return new Admission(runtime, max, options.FullMode == BocFullMode.Throw);
    }

    /// <summary>The scope a spawn from the calling flow would join, or null (the slow path of a full runtime).</summary>
    internal static BocScope? ScopeHere() => BocScope.AnyBegun ? BocScope.CurrentHere(BocThread.Current) : null;

    /// <summary>
    /// Whether the caller is inside a runtime: in the body of a behaviour (of any runtime, before or after an
    /// <c>await</c>), or on one of this runtime's workers. Such spawns are never bounded: waiting there could wait
    /// for the caller itself, or for a behaviour queued behind cowns it holds.
    /// </summary>
    internal bool IsInside() => Behaviour.Current is not null || _bocScheduler?.IsWorkerThread == true;
}
