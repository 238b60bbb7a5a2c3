using System.Diagnostics;

namespace Boc;

/// <summary>
/// A bounded runtime's admission (<see cref="BocRuntimeOptions.MaxPendingBehaviours"/>): the exact count of accepted,
/// unfinished behaviours, the bound on it, and the producers waiting for room. An unbounded runtime has none (its
/// spawns pay one null test), and counts its pending behaviours only on <see cref="PendingCount"/>'s stripes.
/// </summary>
/// <remarks>
/// <para>
/// The count. Every spawn adds one before it enqueues (an outside spawn only through <see cref="TryAdmitOutside"/>'s
/// compare-and-swap, which refuses to go from the bound to above it; an inside spawn unconditionally), and every
/// completion takes one off after its release. So the count is exactly the number of accepted, unfinished behaviours,
/// and outside spawns alone never take it past the bound. Admission comes before the spawn rents its behaviour object
/// (see the generated When family), so a spawn that waits holds no pooled object and a refused one has none to give
/// back; the one refusal after renting, a runtime disposed meanwhile, returns it (BocRuntime.SpawnAdmitted). A
/// cancellable spawn that waits gives up when its token is canceled: it has counted nothing, and completes as withdrawn.
/// </para>
/// <para>
/// The wake-up, in numbered steps. A waiter (a blocked When, a batch, or WaitForRoomAsync):
/// (1) under the room lock, takes the current room signal and sets the waiting flag (an interlocked store);
/// (2) looks at the count again, and sleeps on the signal only if there is still no room.
/// A completion: (a) decrements the count (interlocked); (b) reads the waiting flag, and if it is set, signals.
/// Both (1) and (a) are full fences, so either (2) comes after (a) and sees the room, or (b) comes after (1) and sees
/// the flag. The flag is cleared only together with taking and completing the signal, under the lock, so a completion
/// that reads 0 knows every registered waiter's signal has been completed already. The signal wakes every waiter; each
/// competes for the room again and, if it loses, registers again before it sleeps. No waiter owns a wake-up, so a
/// waiter that gives up (a canceled wait) takes none with it and never clears the flag. While nobody waits a
/// completion costs one decrement and one read of a line that rarely changes.
/// </para>
/// </remarks>
internal sealed class Admission
{
    private readonly BocRuntime _runtime;
    private readonly int _bound;
    private readonly bool _throwWhenFull;

    // The exact pending count (see the remarks); alone on its line, written by every spawn and completion.
    private PaddedCounter _admitted;

    // 1 while a waiter for room is registered; read by completions, so on its own line.
    private PaddedCounter _roomWaiting;
    private readonly Lock _roomLock = new();
    private TaskCompletionSource? _roomSignal;

    // How many spawns and WaitForRoomAsync calls are waiting for room now (only waiters write it): for the tests, which
    // must know a waiter is asleep before they cancel it or make room.
    private int _roomWaiters;

    /// <summary>Creates the admission of <paramref name="runtime"/>, bounded at <paramref name="bound"/> (at least 1).</summary>
    internal Admission(BocRuntime runtime, int bound, bool throwWhenFull)
    {
        Debug.Assert(bound >= 1, "Boc error: a bound below 1.");
        _runtime = runtime;
        _bound = bound;
        _throwWhenFull = throwWhenFull;
    }

    /// <summary>Gets the bound.</summary>
    internal int Bound => _bound;

    /// <summary>Gets the number of accepted, unfinished behaviours (at one moment during the read).</summary>
    internal long Pending => Math.Max(0, Atomic.Read(ref _admitted.Value));

    /// <summary>Gets whether an outside spawn would find room now.</summary>
    internal bool HasRoom => Atomic.Read(ref _admitted.Value) < _bound;

    /// <summary>Gets how many blocked spawns and room waits are waiting now.</summary>
    internal int RoomWaiters => Atomic.Read(ref _roomWaiters);

    /// <summary>
    /// Admits one spawn: true once it is counted in; false if <paramref name="cancellationToken"/> was canceled while it
    /// waited for room (nothing counted). Throws for a full runtime in Throw mode, or when full and disposed.
    /// </summary>
    internal bool Admit(CancellationToken cancellationToken)
    {
        if (TryAdmitNow(1))
        {
            return true;
        }

        _runtime.ThrowIfDisposed();
        if (_throwWhenFull)
        {
            throw new BocRuntimeFullException(_bound);
        }

        return WaitToAdmit(cancellationToken);
    }

    /// <summary>For <c>TryWhen</c>: counts one spawn in and returns true if there is room (always from inside), else false, changing nothing.</summary>
    internal bool TryAdmit()
    {
        if (TryAdmitNow(1))
        {
            return true;
        }

        // Refused: but a disposed runtime says so, as every spawn on it does.
        _runtime.ThrowIfDisposed();
        return false;
    }

    /// <summary>Admits a whole batch: all <paramref name="count"/> members or none; from inside, unconditionally.</summary>
    internal void AdmitBatch(int count)
    {
        if (TryAdmitNow(count))
        {
            return;
        }

        _runtime.ThrowIfDisposed();
        if (count > _bound)
        {
            throw new InvalidOperationException(
                $"A batch of {count} behaviours can never be admitted by a runtime with MaxPendingBehaviours = {_bound}; split it, or raise the bound.");
        }

        if (_throwWhenFull)
        {
            throw new BocRuntimeFullException(_bound);
        }

        while (true)
        {
            Task signal = RegisterRoomWaiter();
            if (TryAdmitOutside(count))
            {
                return;
            }

            signal.GetAwaiter().GetResult();
            if (TryAdmitOutside(count))
            {
                return;
            }
        }
    }

    /// <summary>
    /// The completion of <paramref name="count"/> behaviours (and a refused spawn's undo): counted out (step a of the
    /// wake-up), then waiters woken if any are registered (step b).
    /// </summary>
    internal void Release(int count)
    {
        long after = Atomic.Add(ref _admitted.Value, -count);
        Debug.Assert(after >= 0, "Boc error: more behaviours counted out of the bound than were admitted.");
        if (Atomic.Read(ref _roomWaiting.Value) != 0)
        {
            SignalRoom();
        }
    }

    /// <summary>Wakes every producer waiting for room (disposal: each then sees the runtime disposed).</summary>
    internal void ReleaseWaiters() => SignalRoom();

    /// <summary>
    /// <see cref="BocRuntime.WaitForRoomAsync"/> when there is no room now: completes when a completion leaves room, or when
    /// the runtime is disposed (the next spawn then says so).
    /// </summary>
    internal async Task WaitForRoomAsync(CancellationToken cancellationToken)
    {
        Atomic.Increment(ref _roomWaiters);
        try
        {
            while (true)
            {
                Task signal = RegisterRoomWaiter();
                if (HasRoom || _runtime.IsDisposed)
                {
                    // Disposed: there is nothing to wait for; the producer's next TryWhen says why (as for Wait mode).
                    return;
                }

                await signal.WaitAsync(cancellationToken).ConfigureAwait(_runtime.ContinuesOnCapturedContext);
                if (HasRoom || _runtime.IsDisposed)
                {
                    return;
                }
            }
        }
        finally
        {
            Atomic.Decrement(ref _roomWaiters);
        }
    }

    /// <summary>
    /// Wait mode, full: blocks the calling thread (the documented behaviour of a synchronous spawn) until the spawn is
    /// counted in (true), or until <paramref name="cancellationToken"/> is canceled (false). Only a successful
    /// <see cref="TryAdmitOutside"/> counts, and nothing is counted after the cancellation is seen, so a canceled spawn
    /// leaves the count as it found it, and takes no wake-up with it (the signal wakes every waiter).
    /// </summary>
    private bool WaitToAdmit(CancellationToken cancellationToken)
    {
        // A spawn into a scope also gives up when the scope is canceled (it would be refused once admitted): a request
        // whose deadline passes while it waits for room does not wait on.
        BocScope? scope = BocRuntime.ScopeHere();
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

        Atomic.Increment(ref _roomWaiters);
        try
        {
            while (true)
            {
                Task signal = RegisterRoomWaiter();
                if (TryAdmitOutside(1))
                {
                    return true;
                }

                // Disposal signals every registered waiter after it set the flag, so a waiter registered after that signal
                // sees the flag here: either way nobody sleeps through a shutdown waiting for room that may never come.
                _runtime.ThrowIfDisposed();
                try
                {
                    signal.Wait(cancellationToken);
                }
                catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
                {
                    return false;
                }

                if (TryAdmitOutside(1))
                {
                    return true;
                }
            }
        }
        finally
        {
            Atomic.Decrement(ref _roomWaiters);
        }
    }

    /// <summary>
    /// Counts <paramref name="count"/> spawns in without waiting: always from inside the runtime (such spawns are never
    /// bounded: waiting there could wait for the caller itself), and from outside if they fit under the bound. False,
    /// having counted nothing, if they do not.
    /// </summary>
    private bool TryAdmitNow(int count)
    {
        if (_runtime.IsInside())
        {
            Atomic.Add(ref _admitted.Value, count);
            return true;
        }

        return TryAdmitOutside(count);
    }

    /// <summary>Takes <paramref name="count"/> units of room at once if they fit under the bound.</summary>
    private bool TryAdmitOutside(int count)
    {
        long current = Atomic.Read(ref _admitted.Value);
        while (current + count <= _bound)
        {
            long seen = Atomic.CompareExchange(ref _admitted.Value, current + count, current);
            if (seen == current)
            {
                return true;
            }

            current = seen;
        }

        return false;
    }

    /// <summary>Step 1 of the wake-up: registers a waiter for room (fenced); the caller must look at the count again before it sleeps.</summary>
    private Task RegisterRoomWaiter()
    {
        lock (_roomLock)
        {
#if BOC_MODEL
            using ModelPoints.AtomicSection section = ModelPoints.Atomically();
#endif
            // RunContinuationsAsynchronously: the signalling thread is a worker that just finished a behaviour.
            _roomSignal ??= new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            Atomic.Exchange(ref _roomWaiting.Value, 1);
            return _roomSignal.Task;
        }
    }

    private void SignalRoom()
    {
        TaskCompletionSource? signal;
        lock (_roomLock)
        {
#if BOC_MODEL
            using ModelPoints.AtomicSection section = ModelPoints.Atomically();
#endif
            signal = _roomSignal;
            _roomSignal = null;
            Atomic.Exchange(ref _roomWaiting.Value, 0);
        }

        signal?.TrySetResult();
    }
}
