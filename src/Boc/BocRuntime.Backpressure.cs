using System.Runtime.CompilerServices;

namespace Boc;

// Backpressure: the bound on pending behaviours (BocRuntimeOptions.MaxPendingBehaviours) and its waiters.
//
// The count. An unbounded runtime counts pending behaviours only on PendingCount's stripes (no shared line). A bounded
// one also counts them on _admitted, one shared counter: every spawn adds one before it enqueues (an outside spawn only
// through TryAdmitOutside's compare-and-swap, which refuses to go from the bound to above it; an inside spawn
// unconditionally), and every completion takes one off after its release. So _admitted is exactly the number of
// accepted, unfinished behaviours, and outside spawns alone never take it past the bound. Admission comes before the
// spawn rents its behaviour object (Admit, TryAdmit; see the generated When family), so a spawn that waits holds no
// pooled object and a refused one has none to give back; the one refusal after renting, a runtime disposed meanwhile,
// returns it (SpawnAdmitted). A cancellable spawn that waits gives up when its token is canceled: it has counted
// nothing, and completes as withdrawn.
//
// The wake-up. A waiter (a blocked When, or WaitForRoomAsync) registers by taking the current room signal and setting
// _roomWaiting, both under _roomLock, then looks at _admitted again; a completion decrements _admitted and then reads
// _roomWaiting. Both the decrement and the flag's write are interlocked (full fences), so they are ordered, and one of
// two things holds: the waiter's second look comes after the decrement and sees the room, or the completion's read of
// the flag comes after the registration and sees 1, and signals. The flag is cleared only together with taking (and
// completing) the signal, under the lock, so a completion that sees 0 knows that every registered waiter's signal has
// been completed already. The signal wakes every waiter; each then competes for the room again and, if it loses,
// registers again before it sleeps. No waiter owns a wake-up, so a waiter that gives up (a canceled WaitForRoomAsync,
// a canceled blocked WhenAsync) cannot take one with it, and it never clears _roomWaiting (only SignalRoom does, as it
// completes the signal that every registered waiter holds). While nobody waits a completion costs one decrement and one read of a line that rarely changes; without
// a bound, one branch.
public sealed partial class BocRuntime
{
    // The bound, or 0 for none. Read by every spawn and completion: readonly, so the branch on it is predictable.
    private readonly int _maxPending;
    private readonly bool _throwWhenFull;

    // Exact pending count of a bounded runtime (see above); unused without a bound.
    private PaddedCounter _admitted;

    // 1 while a waiter for room is registered; read by completions, so on its own line.
    private PaddedCounter _roomWaiting;
    private readonly Lock _roomLock = new();
    private TaskCompletionSource? _roomSignal;

    // How many spawns and WaitForRoomAsync calls are waiting for room now (only waiters write it): for the tests, which
    // must know a waiter is asleep before they cancel it or make room.
    private int _roomWaiters;

    /// <summary>Gets how many blocked spawns and <see cref="WaitForRoomAsync"/> calls are waiting for room now.</summary>
    internal int RoomWaiters => Volatile.Read(ref _roomWaiters);

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
    public long PendingCount => _maxPending == 0 ? _pending.Estimate() : Math.Max(0, Volatile.Read(ref _admitted.Value));

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

        if (_maxPending == 0 || HasRoom() || IsInside())
        {
            return ValueTask.CompletedTask;
        }

        return new ValueTask(WaitForRoomSlowAsync(cancellationToken));
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
        if (_maxPending != 0 && !AdmitBounded(CancellationToken.None))
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

        return _maxPending == 0 || AdmitBounded(cancellationToken);
    }

    /// <summary>
    /// A bounded runtime's admission: true once the spawn is counted in; false if <paramref name="cancellationToken"/>
    /// was canceled while it waited for room (nothing counted). Throws for a full runtime in Throw mode, or when full and
    /// disposed.
    /// </summary>
    private bool AdmitBounded(CancellationToken cancellationToken)
    {
        if (IsInside())
        {
            Interlocked.Increment(ref _admitted.Value);
            return true;
        }

        if (TryAdmitOutside())
        {
            return true;
        }

        ThrowIfDisposed();
        if (_throwWhenFull)
        {
            throw new BocRuntimeFullException(_maxPending);
        }

        return WaitToAdmit(cancellationToken);
    }

    /// <summary>
    /// Wait mode, full: blocks the calling thread (the documented behaviour of a synchronous spawn) until the spawn is
    /// counted in (true), or until <paramref name="cancellationToken"/> is canceled (false). Only a successful
    /// <see cref="TryAdmitOutside()"/> counts, and nothing is counted after the cancellation is seen, so a canceled spawn
    /// leaves the count as it found it. It takes no wake-up with it either: the signal wakes every waiter (see the top
    /// of this file), so giving up leaves the others exactly as they were.
    /// </summary>
    private bool WaitToAdmit(CancellationToken cancellationToken)
    {
        // A spawn into a scope also gives up when the scope is canceled (it would be refused once admitted): a request
        // whose deadline passes while it waits for room does not wait on.
        BocScope? scope = ScopeHere();
        CancellationToken scopeToken = scope?.Token ?? default;
        using CancellationTokenSource? linked = scopeToken.CanBeCanceled && cancellationToken.CanBeCanceled
            ? CancellationTokenSource.CreateLinkedTokenSource(cancellationToken, scopeToken)
            : null;
        if (linked is not null)
        {
            cancellationToken = linked.Token;
        }
        else if (scopeToken.CanBeCanceled)
        {
            cancellationToken = scopeToken;
        }

        Interlocked.Increment(ref _roomWaiters);
        try
        {
            while (true)
            {
                Task signal = RegisterRoomWaiter();
                if (TryAdmitOutside())
                {
                    return true;
                }

                // Disposal signals every registered waiter after it set the flag, so a waiter registered after that signal
                // sees the flag here: either way nobody sleeps through a shutdown waiting for room that may never come.
                ThrowIfDisposed();
                try
                {
                    signal.Wait(cancellationToken);
                }
                catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
                {
                    return false;
                }

                if (TryAdmitOutside())
                {
                    return true;
                }
            }
        }
        finally
        {
            Interlocked.Decrement(ref _roomWaiters);
        }
    }

    /// <summary>
    /// For <c>TryWhen</c>: counts the spawn in and returns true if there is room (always, without a bound or from
    /// inside a body), or returns false and changes nothing.
    /// </summary>
    private bool TryAdmit()
    {
        if (_maxPending == 0)
        {
            return true;
        }

        if (IsInside())
        {
            Interlocked.Increment(ref _admitted.Value);
            return true;
        }

        if (TryAdmitOutside())
        {
            return true;
        }

        // Refused: but a disposed runtime says so, as every spawn on it does.
        ThrowIfDisposed();
        return false;
    }

    /// <summary>Takes one unit of room if the bounded count is below the bound.</summary>
    private bool TryAdmitOutside()
    {
        long current = Volatile.Read(ref _admitted.Value);
        while (current < _maxPending)
        {
            long seen = Interlocked.CompareExchange(ref _admitted.Value, current + 1, current);
            if (seen == current)
            {
                return true;
            }

            current = seen;
        }

        return false;
    }

    /// <summary>
    /// A bounded runtime's completion of <paramref name="count"/> behaviours (and a refused spawn's undo): counted out,
    /// then waiters woken if any.
    /// </summary>
    private void ReleaseAdmission(int count = 1)
    {
        Interlocked.Add(ref _admitted.Value, -count);
        if (Volatile.Read(ref _roomWaiting.Value) != 0)
        {
            SignalRoom();
        }
    }

    /// <summary>Validates and reads the bound; before the runtime starts anything.</summary>
    private static (int Max, bool ThrowWhenFull) BoundOf(BocRuntimeOptions options)
    {
        if (!Enum.IsDefined(options.FullMode))
        {
            throw new ArgumentOutOfRangeException(nameof(options), options.FullMode, "Unknown BocFullMode.");
        }

        if (options.MaxPendingBehaviours is not int max)
        {
            return (0, false);
        }

        ArgumentOutOfRangeException.ThrowIfLessThan(max, 1, nameof(options.MaxPendingBehaviours));
        return (max, options.FullMode == BocFullMode.Throw);
    }

    private bool HasRoom() => Volatile.Read(ref _admitted.Value) < _maxPending;

    /// <summary>The scope a spawn from the calling flow would join, or null (the slow path of a full runtime).</summary>
    private static BocScope? ScopeHere() => BocScope.AnyBegun ? BocScope.CurrentHere(BocThread.Current) : null;

    /// <summary>
    /// Whether the caller is inside a runtime: in the body of a behaviour (of any runtime, before or after an
    /// <c>await</c>), or on one of this runtime's workers. Such spawns are never bounded: waiting there could wait
    /// for the caller itself, or for a behaviour queued behind cowns it holds.
    /// </summary>
    private bool IsInside() => Behaviour.Current is not null || _bocScheduler?.IsWorkerThread == true;

    private async Task WaitForRoomSlowAsync(CancellationToken cancellationToken)
    {
        Interlocked.Increment(ref _roomWaiters);
        try
        {
            while (true)
            {
                Task signal = RegisterRoomWaiter();
                if (HasRoom() || Volatile.Read(ref _disposed) != 0)
                {
                    // Disposed: there is nothing to wait for; the producer's next TryWhen says why (as for Wait mode above).
                    return;
                }

                await signal.WaitAsync(cancellationToken).ConfigureAwait(ContinuesOnCapturedContext);
                if (HasRoom() || Volatile.Read(ref _disposed) != 0)
                {
                    return;
                }
            }
        }
        finally
        {
            Interlocked.Decrement(ref _roomWaiters);
        }
    }

    /// <summary>Registers a waiter for room (fenced); the caller must look at the count again before it sleeps.</summary>
    private Task RegisterRoomWaiter()
    {
        lock (_roomLock)
        {
            // RunContinuationsAsynchronously: the signalling thread is a worker that just finished a behaviour.
            _roomSignal ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            Interlocked.Exchange(ref _roomWaiting.Value, 1);
            return _roomSignal.Task;
        }
    }

    private void SignalRoom()
    {
        TaskCompletionSource? signal;
        lock (_roomLock)
        {
            signal = _roomSignal;
            _roomSignal = null;
            Interlocked.Exchange(ref _roomWaiting.Value, 0);
        }

        signal?.TrySetResult();
    }
}
