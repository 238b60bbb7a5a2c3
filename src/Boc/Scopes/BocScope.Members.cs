using System.Runtime.InteropServices;

namespace Boc;

// =====================================================================================================================
// Scopes: membership, the finish count, withdrawal of members, and why they are correct. The overview is in
// docs/internals/scopes.md; the public contract on BocScope (BocScope.cs).
//
// Membership. A spawn joins at most one scope, decided once, in BocRuntime.SpawnAdmitted before anything is counted or
// enqueued (JoinFromHere): the flow's ambient scope if it has one (s_ambient, set by BeginScope, restored when its block
// ends), else the scope of the behaviour whose body runs in this flow (Behaviour.CurrentOn: a synchronous body on this
// thread, or an asynchronous body's continuation), else none. Bodies run in a clean execution context, so inside a body
// the ambient scope is only one the body itself began (a child); membership otherwise travels with the behaviour, in
// its side object (Behaviour.Scope), set before the enqueue and cleared when it returns to its pool. A batch joins as
// its members, together. A member spawn never rides in another behaviour (Appending: SpawnOne/SpawnPair skip the append,
// and a member never opens its append word), because each member is counted and withdrawn on its own.
//   Cost outside scopes: until the first BeginScope of the process, a spawn reads one static flag (s_anyBegun) and
// branches; after, it also reads the flow's AsyncLocal and the running behaviour's side object. Nothing is written.
//
// The finish count. Like the runtime's PendingCount: monotonic counts of members counted in (Spawned) and counted out
// (Finished), on stripes chosen by the processor the thread runs on (interlocked, so threads that share a processor
// may meet), each stripe on cache lines of its own and created on first use, so no spawn or completion writes a line
// that every core writes. Drained() reads every Finished count, then every Spawned count; as in PendingCount, if the
// sums are equal then at the moment between the two passes nothing was counted in and not out (each member is counted
// in before its enqueue, with an interlocked step, and everything that finishes it is ordered after that enqueue).
//   What is counted: the block itself, one unit from BeginScope until its block ends (Close); each member from its
//   spawn until it has finished (Behaviour.Finish, after its outcome is delivered) or been withdrawn
//   (Behaviour.Withdraw, once its slots are marked and its outcome delivered: it will never run a body, so it spawns
//   nothing more); each child scope from its BeginScope until it has finished.
//   When it may be zero: a member's spawns happen in its body, before the member counts out, and a child's members are
//   counted in the child, which is counted in the parent until it finishes. So while the block is open the count is at
//   least 1, and once it is closed the count can only rise through a spawn by a live member (which is counted) or by a
//   flow whose ambient scope this still is (code the block started and did not wait for: a Task.Run, a timer). Those
//   outside joins count in and then read _closed; Close writes _closed and then counts its unit out and reads the
//   counts. Both sides are interlocked (full fences), so either the join sees the flag (it counts out again and spawns
//   outside the scope) or the closer's read sees the join's count. Hence:
// Finish. A scope has finished at the first moment its count is zero after its block closed. Every count-out after the
// close (and Close itself, for its unit) checks Drained() and, the first time it holds, publishes the outcome (once:
// an exchange on _finished) and counts the child out of its parent. It is never early: at that moment no member is
// pending, and none can be added (no live member is left to spawn, and every later outside join sees _closed). It is
// never missed: the last count-out reads _closed after its interlocked increment, and Close sets the flag before its
// own count-out, so whichever of the two is last checks with every count visible. While a closed scope drains, each
// completion reads the stripes in use, as a completion does for the runtime while someone waits for quiescence.
//
// Withdrawing members. The protocol's withdrawal ("Cancellation", Protocol/Behaviour.Cancellation.cs) is reused as it
// is: it needs an arbiter whose state word the body's start (Run: TryStart) and the canceller race for, and it requires
// that the canceller never meets a spawner in phase 1 or 2. A member's arbiter (Withdrawal) is its own
// CancellationRequest if it was spawned with a token, else the ScopeMembership kept with the pooled behaviour, whose
// word carries the number of the behaviour's life (one per spawn as a member).
//   Registration. After Enqueue returns, the spawner adds (arbiter, life) to its stripe's registry (a short spin lock),
//   then reads the scope's cancel flag; Cancel sets the flag, then takes each stripe's lock in turn and withdraws every
//   entry it finds. A lock section orders the two: either the walk sees the entry, or the spawner's read after its
//   section sees the flag and withdraws the member itself. Both may try; the arbiter's exchange lets one win. So every
//   member spawned before a cancellation, or racing it, that has not started is withdrawn at once, passing on the turns
//   it holds; a member spawned after it is refused before it is counted (TryCountIn), so nothing is enqueued.
//   The start. The walk and the spawner's check give promptness (a member holding some of its cowns lets them go at
//   once); the arbiter's TryStart gives the rule. It claims the life (Pending -> Started), then reads the cancel flag:
//   if it is set, the body has not run yet, nobody else can act on a Started life, and TryStart withdraws the member
//   itself (every slot has the turn now, so the withdrawal passes each on) and returns false for Run to join. The
//   claim is interlocked and so is the canceller's flag: a member whose claim did not see the flag claimed before the
//   flag was set. So no member's body starts once its scope's cancellation has begun, and which members ran is decided
//   by that moment alone, not by when their spawners registered them.
//   Reuse. After Enqueue a fire-and-forget member may run, finish and go back to its pool, and its object may start
//   another life, before the spawner registers it: a registry entry may name a life that is over. The canceller's
//   exchange goes from (life, Pending) to (life, Withdrawn), so it succeeds only on the life it names, and only if that
//   life has not started; a life that has not started has not completed, so the behaviour is not back in its pool, and
//   once withdrawn it completes only through the join of the canceller and its dispatch, so it stays live while the
//   canceller marks its slots. An entry for a life that is over does nothing; the registry drops such entries when it
//   compacts (when full, before growing), so it holds about as many entries as there are members not yet started.
//   The rest of the withdrawal argument is the protocol's: the turn passes on in order, a held turn is passed on by the
//   canceller at once, a turn that arrives later is passed on by whoever delivers it, and the countdown still reaches
//   zero exactly once, so no cown stays held and no other behaviour's order changes.
// Exceptions. A fire-and-forget member's exception is added to the scope (AddFailure) before the member counts out,
// so the finish, which follows the last count-out, sees all of them. An OperationCanceledException from a member once
// the scope is canceled is the member giving up, and is dropped.
// The outcome. Decided once, by Complete, at the finish: the cancel reason it reads there is the one set before the
// finish (CancelFor refuses once _finished is set, and Complete runs after setting it), so a cancellation either
// precedes the finish and decides the outcome, or comes after it and does nothing. A deadline or a token that fires
// before the finish makes the outcome a TimeoutException or an OperationCanceledException whatever stage each member was
// at (withdrawn, running and giving up, running to its end), so the code that opened the scope has one exception to
// handle per cause; the members' failures travel inside it (InnerException), never instead of it.
// Withdrawn members count out when they are withdrawn (Behaviour.Withdraw), not when their places in the queues have
// been passed on: a deadline then ends the wait for every member that never started at once, and the finish waits only
// for the bodies that did start.
// =====================================================================================================================

public sealed partial class BocScope
{
    // The ambient scope of the calling flow (outside bodies, or a child scope begun in a body's own flow).
    private static readonly AsyncLocal<BocScope?> s_ambient = new();

    // Set by the first BeginScope in the process and never cleared: until then a spawn pays one read for scopes.
    private static bool s_anyBegun;

    // The registry's first size, per stripe; it doubles when compaction cannot free half of it.
    private const int FirstRegistrySize = 8;

    // Stripes: a power of two at least the processor count, so that a processor's stripe is its id masked.
    private static readonly int StripeCount = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Max(1, Environment.ProcessorCount));

    private readonly Stripe?[] _stripes;

    // Guards the failures and the children (both rare).
    private readonly Lock _gate = new();
    private List<Exception>? _failures;
    private long _failuresDropped;
    private List<BocScope>? _children;

    private int _closed;
    private int _finished;
    private int _cancelReason;

    // 1 once a self-wait ended the block (see SelfWait): nobody will take the outcome, so failures go to the parent.
    private int _outcomeAbandoned;

    /// <summary>Why a scope was canceled: its finish reports it (<see cref="FinishAsync"/>).</summary>
    private enum CancelReason
    {
        None,
        Cancel,
        Token,
        Deadline,
        Parent,
        Runtime,
    }

    /// <summary>How a spawn joined, or failed to join, a scope (<see cref="TryCountIn"/>).</summary>
    private enum JoinResult
    {
        Joined,

        /// <summary>The scope was canceled: the spawn is refused.</summary>
        Canceled,

        /// <summary>The scope's block has ended: a spawn through the ambient scope is not a member.</summary>
        Closed,
    }

    /// <summary>Gets whether a scope has ever been begun in this process (the spawn path's only read until then).</summary>
    internal static bool AnyBegun => Volatile.Read(ref s_anyBegun);

    /// <summary>
    /// Whether a spawn from the calling flow may join a scope: then it must not ride in another behaviour (Appending),
    /// since a member is counted and withdrawn on its own. A hint that errs towards true (a stale ambient scope).
    /// </summary>
    internal static bool MayJoinHere(BocThread thread) =>
        AnyBegun && (s_ambient.Value is not null || Behaviour.CurrentOn(thread)?.Scope is not null);

    /// <summary>Gets the scope the calling flow is in, as a spawn from here would join it (for <see cref="Behaviours.CurrentScope"/>).</summary>
    internal static BocScope? CurrentHere(BocThread thread)
    {
        for (BocScope? ambient = s_ambient.Value; ambient is not null; ambient = ambient._previousAmbient)
        {
            if (Volatile.Read(ref ambient._closed) == 0)
            {
                return ambient;
            }
        }

        return Behaviour.CurrentOn(thread)?.Scope;
    }

    /// <summary>
    /// Decides which scope a spawn (or a child scope) from the calling flow joins ("Membership"), and counts it in
    /// there. Returns the scope joined, or null for none; if that scope was canceled, returns null with
    /// <paramref name="canceled"/> set, having counted nothing: the spawn must be refused.
    /// </summary>
    internal static BocScope? JoinFromHere(BocThread thread, out BocScope? canceled)
    {
        canceled = null;

        // A closed ambient scope is one whose block ended in another flow (an async helper that finished it: the end of
        // a block restores the previous scope only in the flow that ends it, since AsyncLocal changes do not flow back
        // to callers), or one this flow outlived (a task the block started). Either way the flow is still inside the
        // blocks that enclosed that one: the innermost open one is its scope.
        for (BocScope? ambient = s_ambient.Value; ambient is not null; ambient = ambient._previousAmbient)
        {
            switch (ambient.TryCountIn(outside: true))
            {
                case JoinResult.Joined:
                    return ambient;
                case JoinResult.Canceled:
                    canceled = ambient;
                    return null;
            }
        }

        // Outside every open block: the flow belongs to the body it runs in, if any.

        if (Behaviour.CurrentOn(thread)?.Scope is not { } scope)
        {
            return null;
        }

        if (scope.TryCountIn(outside: false) == JoinResult.Canceled)
        {
            canceled = scope;
            return null;
        }

        return scope;
    }

    /// <summary>
    /// Counts a spawn in ("The finish count"). <paramref name="outside"/>: the spawn comes through the ambient scope, so
    /// the block may have ended (then nothing stays counted); otherwise it comes from a live member's body.
    /// </summary>
    private JoinResult TryCountIn(bool outside)
    {
        if (outside && Volatile.Read(ref _closed) != 0)
        {
            return JoinResult.Closed;
        }

        if (IsCancellationRequested)
        {
            return JoinResult.Canceled;
        }

        CountIn();
        if (outside && Volatile.Read(ref _closed) != 0)
        {
            // The close came between: the closer may have read the counts without this one. Undo, as a member that
            // finished would (so a closer that did see it finds the scope drained again).
            CountOut();
            return JoinResult.Closed;
        }

        return JoinResult.Joined;
    }

    /// <summary>Counts one member (or the block, or a child) in, on the calling processor's stripe.</summary>
    private void CountIn() => Interlocked.Increment(ref StripeHere().Spawned);

    /// <summary>
    /// Counts one member (or the block, or a child) out; once the block has ended, the count-out that finds the scope
    /// drained finishes it ("Finish").
    /// </summary>
    internal void CountOut()
    {
        Interlocked.Increment(ref StripeHere().Finished);
        if (Volatile.Read(ref _closed) != 0)
        {
            TryFinish();
        }
    }

    /// <summary>
    /// Registers a member after its enqueue, so that a cancellation can find it, then withdraws it if the scope was
    /// canceled meanwhile ("Registration").
    /// </summary>
    internal void Register(Withdrawal arbiter, long life)
    {
#if DEBUG
        ProtocolTestHooks.ScopeRegistering?.Invoke(this);
#endif

        // A member that has started (or finished, or gone back to its pool) has nothing left to withdraw: a fan-out onto
        // idle cowns then registers few of its members. A life leaves Pending only once, so a read that sees it gone is
        // right; one that sees it pending may register a life that starts meanwhile, a stale entry like any other.
        if (!arbiter.IsPending(life))
        {
            return;
        }

        Stripe stripe = StripeHere();
        Lock(stripe);
        try
        {
            Entry[]? entries = stripe.Entries;
            if (entries is null || stripe.Count == entries.Length)
            {
                entries = Compact(stripe);
            }

            entries[stripe.Count++] = new Entry(arbiter, life);
        }
        finally
        {
            Unlock(stripe);
        }

        if (IsCancellationRequested)
        {
            arbiter.WithdrawFor(life);
        }
    }

    /// <summary>A fire-and-forget member failed: keep the exception for the finish (at most MaxKeptExceptions).</summary>
    internal void AddFailure(Exception error)
    {
        if (error is OperationCanceledException && IsCancellationRequested)
        {
            // The member gave up because the scope was canceled: that is what was asked of it, not a failure.
            return;
        }

        lock (_gate)
        {
            _failures ??= [];
            if (_failures.Count < BocRuntime.MaxKeptExceptions)
            {
                _failures.Add(error);
            }
            else
            {
                _failuresDropped++;
            }
        }
    }

    /// <summary>Cancels the scope for <see cref="BocRuntime.CancelScopes"/>; false if it was canceled or finished already.</summary>
    internal bool CancelForRuntime() => CancelFor(CancelReason.Runtime);

    /// <summary>Counts in one more member of a spawn that has joined already (a batch's later members).</summary>
    internal void CountInMember() => CountIn();

    /// <summary>Cancels the scope for <paramref name="reason"/>, if it is neither canceled nor finished; returns whether it did.</summary>
    private bool CancelFor(CancelReason reason)
    {
        if (Volatile.Read(ref _finished) != 0 || Interlocked.CompareExchange(ref _cancelReason, (int)reason, (int)CancelReason.None) != (int)CancelReason.None)
        {
            return false;
        }

        // The flag is set (a full fence): a spawn that passes its check from now on is registered after this walk
        // visits its stripe, and withdraws itself.
        WithdrawPendingMembers();
        if (Volatile.Read(ref _tokenSource) is { } source)
        {
            CancelSource(source);
        }

        BocScope[] children;
        lock (_gate)
        {
            children = _children?.ToArray() ?? [];
        }

        foreach (BocScope child in children)
        {
            _ = child.CancelFor(CancelReason.Parent);
        }

        return true;
    }

    /// <summary>Cancels <see cref="Token"/>; a callback registered on it that throws is a failure of the scope.</summary>
    private void CancelSource(CancellationTokenSource source)
    {
        try
        {
            source.Cancel();
        }
#pragma warning disable CA1031 // Callbacks on the scope's token are user code; what they throw is reported at the finish.
        catch (Exception callbackError)
#pragma warning restore CA1031
        {
            AddFailure(callbackError is AggregateException { InnerExceptions.Count: 1 } single ? single.InnerExceptions[0] : callbackError);
        }
    }

    /// <summary>Withdraws every registered member that has not started ("Withdrawing members"), stripe by stripe.</summary>
    private void WithdrawPendingMembers()
    {
        List<Entry>? pending = null;
        foreach (Stripe? stripe in _stripes)
        {
            if (stripe is null)
            {
                continue;
            }

            Lock(stripe);
            try
            {
                Entry[]? entries = stripe.Entries;
                for (int i = 0; i < stripe.Count; i++)
                {
                    if (entries![i].Arbiter.IsPending(entries[i].Life))
                    {
                        (pending ??= []).Add(entries[i]);
                    }
                }

                // Nothing registered from now on needs the walk (a late registration withdraws itself): let go of them.
                if (entries is not null)
                {
                    Array.Clear(entries, 0, stripe.Count);
                }

                stripe.Count = 0;
            }
            finally
            {
                Unlock(stripe);
            }
        }

        // Outside the locks: a withdrawal passes turns on and may complete behaviours (and count them out of this scope).
        foreach (Entry entry in pending ?? [])
        {
            entry.Arbiter.WithdrawFor(entry.Life);
        }
    }

    /// <summary>Ends the block: its unit is counted out (once), and from now on a drained count finishes the scope.</summary>
    private void Close()
    {
        if (Interlocked.Exchange(ref _closed, 1) == 0)
        {
            CountOut();
        }
    }

    private void TryFinish()
    {
        if (!Drained() || Interlocked.Exchange(ref _finished, 1) != 0)
        {
            return;
        }

        // Nothing can cancel or join the scope usefully any more: drop what ties it to longer-lived objects.
        _userRegistration.Unregister();
        _deadline?.Dispose();
        if (_parent is { } parent)
        {
            parent.RemoveChild(this);
        }
        else
        {
            _runtime.RemoveScope(this);
        }

        Complete();

        // A child is one member of its parent until it has finished.
        _parent?.CountOut();
    }

    /// <summary>Publishes the outcome (see <see cref="FinishAsync"/> and "The outcome").</summary>
    private void Complete()
    {
        AggregateException? failures = Failures();
        Exception? outcome = (CancelReason)Volatile.Read(ref _cancelReason) switch
        {
            CancelReason.Deadline => new TimeoutException(
                $"The scope's deadline ({_timeout}) passed before its behaviours finished: the ones that had not started were withdrawn, and the ones running were asked to stop."
                + (failures is null ? "" : " Behaviours of the scope also threw: see the inner exception."),
                failures),
            CancelReason.Token => Canceled("The scope was canceled by its token before its behaviours finished.", failures, _userToken),
            CancelReason.Parent => Canceled("The scope was canceled by its parent scope before its behaviours finished.", failures, Token),
            CancelReason.Runtime => Canceled("The scope was canceled by BocRuntime.CancelScopes before its behaviours finished.", failures, Token),
            _ => failures,
        };

        if (Volatile.Read(ref _outcomeAbandoned) != 0 && Volatile.Read(ref _outcomeClaimed) == 0 && failures is not null)
        {
            // Nobody waits for this outcome (a self-wait ended the block): the failures are not lost, they go where a
            // failure of the body that began the scope would go.
            if (_parent is { } parent)
            {
                foreach (Exception failure in failures.InnerExceptions)
                {
                    parent.AddFailure(failure);
                }
            }
            else
            {
                _runtime.ReportUnhandled(failures);
            }
        }

        if (outcome is null)
        {
            _done.TrySetResult();
        }
        else if (outcome is OperationCanceledException { InnerException: null } canceled)
        {
            // A plain cancellation is a canceled task, as every other .NET wait gives.
            _done.TrySetCanceled(canceled.CancellationToken);
        }
        else
        {
            _done.TrySetException(outcome);
        }
    }

    private static OperationCanceledException Canceled(string message, AggregateException? failures, CancellationToken token) =>
        failures is null
            ? new OperationCanceledException(message, token)
            : new OperationCanceledException(message + " Behaviours of the scope also threw: see the inner exception.", failures, token);

    /// <summary>The fire-and-forget members' failures as one exception, or null if none failed.</summary>
    private AggregateException? Failures()
    {
        List<Exception>? failures;
        long dropped;
        lock (_gate)
        {
            failures = _failures;
            dropped = _failuresDropped;
        }

        if (failures is not { Count: > 0 })
        {
            return null;
        }

        string message = dropped == 0
            ? "Behaviours of the scope threw exceptions."
            : $"Behaviours of the scope threw exceptions: the first {failures.Count} are kept, and {dropped} more were counted but not kept.";
        return new AggregateException(message, failures);
    }

    /// <summary>Whether nothing was counted in and not out at some moment during the call ("The finish count").</summary>
    private bool Drained()
    {
        long finished = 0;
        foreach (Stripe? stripe in _stripes)
        {
            if (stripe is not null)
            {
                finished += Volatile.Read(ref stripe.Finished);
            }
        }

        long spawned = 0;
        foreach (Stripe? stripe in _stripes)
        {
            if (stripe is not null)
            {
                spawned += Volatile.Read(ref stripe.Spawned);
            }
        }

        return finished == spawned;
    }

    private long PendingEstimate()
    {
        long finished = 0;
        long spawned = 0;
        foreach (Stripe? stripe in _stripes)
        {
            if (stripe is not null)
            {
                finished += Volatile.Read(ref stripe.Finished);
            }
        }

        foreach (Stripe? stripe in _stripes)
        {
            if (stripe is not null)
            {
                spawned += Volatile.Read(ref stripe.Spawned);
            }
        }

        return spawned - finished;
    }

    /// <summary>
    /// Why the calling body may not wait for this scope, or null: it is a member of the scope or of a scope inside it
    /// (it counts in the scope until it ends), or a member still waiting in the scope needs a cown the body holds (it
    /// can start only after the body ends). Waits through other behaviours are not seen.
    /// </summary>
    /// <remarks>
    /// In the second case the block ends all the same (as <see cref="FinishAsync"/> promises), before the failure is
    /// returned: the waiting member runs once the body has released the cown, and the scope then finishes. Left open,
    /// the block would keep its unit in the scope's count, and a child scope would keep its unit in its parent's, so the
    /// parent would never finish. Nobody waits for that finish, so its failures go to the parent (or the runtime's
    /// handler) instead of being lost.
    /// </remarks>
    private InvalidOperationException? RefuseSelfWait()
    {
        if (Behaviour.Current is not { } waiter)
        {
            return null;
        }

        for (BocScope? scope = waiter.Scope; scope is not null; scope = scope._parent)
        {
            if (ReferenceEquals(scope, this))
            {
                return new InvalidOperationException(
                    "A behaviour's body waits for the scope it belongs to; the scope cannot finish before the body ends, so the body would wait for itself forever. Wait for the scope outside its members.");
            }
        }

        if (HasPendingMemberBehind(waiter))
        {
            Volatile.Write(ref _outcomeAbandoned, 1);
            EndBlock();
            return new InvalidOperationException(
                "A behaviour's body waits for a scope whose member needs a cown the body holds; that member can run only after the body ends, so the body would wait for itself forever. "
                + "The scope's block has ended; it finishes once the body has ended, and its failures go to the enclosing scope. Finish the scope outside the body, or spawn its members on other cowns.");
        }

        return null;
    }

    /// <summary>Whether a member of this scope, or of a scope inside it, waits for a cown that <paramref name="holder"/> holds.</summary>
    private bool HasPendingMemberBehind(Behaviour holder)
    {
        foreach (Stripe? stripe in _stripes)
        {
            if (stripe is null)
            {
                continue;
            }

            Lock(stripe);
            try
            {
                for (int i = 0; i < stripe.Count; i++)
                {
                    // Pending before and after the look: the member was in that life, not started, throughout, so the
                    // slots read were its own (a life changes them only once it is over).
                    Entry entry = stripe.Entries![i];
                    if (entry.Arbiter.IsPending(entry.Life) && entry.Arbiter.Behaviour.WaitsFor(holder) && entry.Arbiter.IsPending(entry.Life))
                    {
                        return true;
                    }
                }
            }
            finally
            {
                Unlock(stripe);
            }
        }

        BocScope[] children;
        lock (_gate)
        {
            children = _children?.ToArray() ?? [];
        }

        return children.Any(child => child.HasPendingMemberBehind(holder));
    }

    private void AddChild(BocScope child)
    {
        lock (_gate)
        {
            (_children ??= []).Add(child);
        }
    }

    private void RemoveChild(BocScope child)
    {
        lock (_gate)
        {
            _children?.Remove(child);
        }
    }

    /// <summary>The calling processor's stripe, created on first use.</summary>
    private Stripe StripeHere()
    {
        int index = Thread.GetCurrentProcessorId() & (StripeCount - 1);
        return Volatile.Read(ref _stripes[index]) ?? CreateStripe(index);
    }

    private Stripe CreateStripe(int index)
    {
        var created = new Stripe();
        return Interlocked.CompareExchange(ref _stripes[index], created, null) ?? created;
    }

    /// <summary>
    /// Makes room in a full (or missing) registry: keeps the entries of members that have not started, and doubles the
    /// array if they fill more than half of it. Under the stripe's lock.
    /// </summary>
    private static Entry[] Compact(Stripe stripe)
    {
        Entry[]? entries = stripe.Entries;
        if (entries is null)
        {
            return stripe.Entries = new Entry[FirstRegistrySize];
        }

        int kept = 0;
        for (int i = 0; i < stripe.Count; i++)
        {
            if (entries[i].Arbiter.IsPending(entries[i].Life))
            {
                entries[kept++] = entries[i];
            }
        }

        Array.Clear(entries, kept, stripe.Count - kept);
        stripe.Count = kept;
        if (kept > entries.Length / 2)
        {
            Array.Resize(ref entries, entries.Length * 2);
            stripe.Entries = entries;
        }

        return entries;
    }

    // The registry's lock: held for an append, a compaction or a walk, never while waiting for anything else.
    private static void Lock(Stripe stripe)
    {
        if (Interlocked.CompareExchange(ref stripe.Busy, 1, 0) != 0)
        {
            LockContended(stripe);
        }
    }

    private static void LockContended(Stripe stripe)
    {
        var spin = default(SpinWait);
        while (Volatile.Read(ref stripe.Busy) != 0 || Interlocked.CompareExchange(ref stripe.Busy, 1, 0) != 0)
        {
            spin.SpinOnce();
        }
    }

    private static void Unlock(Stripe stripe) => Volatile.Write(ref stripe.Busy, 0);

    /// <summary>A registered member: its arbiter and the life the registration means.</summary>
    private readonly record struct Entry(Withdrawal Arbiter, long Life);

    /// <summary>
    /// One processor's counts and registry. Its fields sit 64 bytes into an object of 160, so the fields of two stripes
    /// (written from two processors) are never on one cache line, wherever the GC puts them.
    /// </summary>
    [StructLayout(LayoutKind.Explicit)]
    private sealed class Stripe
    {
        [FieldOffset(64)]
        public Entry[]? Entries;

        [FieldOffset(72)]
        public long Spawned;

        [FieldOffset(80)]
        public long Finished;

        [FieldOffset(88)]
        public int Count;

        [FieldOffset(92)]
        public int Busy;

        // Never used: only makes the object 160 bytes long.
        [FieldOffset(152)]
        public long Padding;
    }
}
