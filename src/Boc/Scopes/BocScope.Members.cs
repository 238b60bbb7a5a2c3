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
// The finish count (ScopeCount.cs, which proves its sums): monotonic counts of members counted in and counted out,
// inline while one thread at a time counts, on per-processor stripes once two meet. Drained() reads every finished count,
// then every spawned count; equal sums prove a moment with nothing counted in and not out.
//   What is counted: each member from its spawn until it has finished (Behaviour.Finish, after its outcome is
//   delivered) or been withdrawn (Behaviour.Withdraw, once its slots are marked and its outcome delivered: it will
//   never run a body, so it spawns nothing more); each child scope from its BeginScope until it has finished. The block
//   itself is not counted: its flag (_closed) is what a count-out reads before it may finish the scope.
//   When it may be zero: a member's spawns happen in its body, before the member counts out, and a child's members are
//   counted in the child, which is counted in the parent until it finishes. Once the block is closed the count can only
//   rise through a spawn by a live member (which is counted) or by a flow whose ambient scope this still is (code the
//   block started and did not wait for: a Task.Run, a timer; or a block ended in another flow). Those outside joins
//   count in and then read _closed; Close writes _closed and then reads the counts. Both sides are interlocked (full
//   fences), so either the join sees the flag (it counts out again and spawns elsewhere) or the closer's read sees the
//   join's count. Hence:
// Finish. A scope has finished at the first moment, after its block closed, at which its count is zero. Close, and
// every count-out that reads the flag set, checks Drained() and, the first time it holds, publishes the outcome (once:
// an exchange on _finished) and counts the child out of its parent. It is never early: at that moment no member is
// pending, and none can be added (no live member is left to spawn, and every later outside join sees _closed). It is
// never missed: the last count-out reads _closed after its interlocked step, and Close sets the flag before it reads
// the counts, so whichever of the two is last checks with every count visible.

// Withdrawing members. The protocol's withdrawal ("Cancellation", Protocol/Behaviour.Cancellation.cs) is reused as it
// is: it needs an arbiter whose state word the body's start (Run: TryStart) and the canceller race for, and it requires
// that the canceller never meets a spawner in phase 1 or 2. A member's arbiter (Withdrawal) is its own
// CancellationRequest if it was spawned with a token, else the ScopeMembership kept with the pooled behaviour, whose
// word carries the number of the behaviour's life (one per spawn as a member).
//   Registration. After Enqueue returns, the spawner adds (arbiter, life) to the registry (MemberRegistry.cs: a short
//   spin lock), then reads the scope's cancel flag; Cancel sets the flag, then takes the registry's lock and withdraws
//   every entry it finds. A lock section orders the two: either the walk sees the entry, or the spawner's read after its
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
//   compacts.
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

    private ScopeCount _count;
    private MemberRegistry _registry;

    // Guards the failures and the children (both rare); created with the first of them.
    private Lock? _gate;
    private KeptFailures _failures;
    private List<BocScope>? _children;

    private int _closed;
    private int _finished;
    private int _cancelReason;

    // 1 once a self-wait ended the block (see RefuseSelfWait): nobody will take the outcome, so failures go to the parent.
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
    internal static bool AnyBegun => Atomic.Read(ref s_anyBegun);

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
            if (Atomic.Read(ref ambient._closed) == 0)
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
        if (outside && Atomic.Read(ref _closed) != 0)
        {
            return JoinResult.Closed;
        }

        if (IsCancellationRequested)
        {
            return JoinResult.Canceled;
        }

        CountIn();
        bool recheck = outside;
#if BOC_MODEL
        recheck &= !ModelMutations.Is(ModelMutations.JoinWithoutRecheck);
#endif
        if (recheck && Atomic.Read(ref _closed) != 0)
        {
            // The close came between: the closer may have read the counts without this one. Undo, as a member that
            // finished would (so a closer that did see it finds the scope drained again).
            CountOut();
            return JoinResult.Closed;
        }

        return JoinResult.Joined;
    }

    /// <summary>Counts one member (or a child) in.</summary>
    private void CountIn() => _count.CountIn();

    /// <summary>
    /// Counts one member (or a child) out; once the block has ended, the count-out that finds the scope drained
    /// finishes it ("Finish").
    /// </summary>
    internal void CountOut()
    {
        _count.CountOut();
        if (Atomic.Read(ref _closed) != 0)
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

        _registry.Add(arbiter, life);
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

        lock (Gate())
        {
            _failures.Add(error);
        }
    }

    /// <summary>Cancels the scope for <see cref="BocRuntime.CancelScopes"/>; false if it was canceled or finished already.</summary>
    internal bool CancelForRuntime() => CancelFor(CancelReason.Runtime);

    /// <summary>Counts in one more member of a spawn that has joined already (a batch's later members).</summary>
    internal void CountInMember() => CountIn();

    /// <summary>Cancels the scope for <paramref name="reason"/>, if it is neither canceled nor finished; returns whether it did.</summary>
    private bool CancelFor(CancelReason reason)
    {
        if (Atomic.Read(ref _finished) != 0 || Atomic.CompareExchange(ref _cancelReason, (int)reason, (int)CancelReason.None) != (int)CancelReason.None)
        {
            return false;
        }

        // The flag is set (a full fence): a spawn that passes its check from now on is registered after this walk
        // visits its stripe, and withdraws itself.
        WithdrawPendingMembers();
        if (Atomic.Read(ref _tokenSource) is { } source)
        {
            CancelSource(source);
        }

        foreach (BocScope child in Children())
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

    /// <summary>Withdraws every registered member that has not started ("Withdrawing members").</summary>
    private void WithdrawPendingMembers()
    {
        // Outside the registry's lock: a withdrawal passes turns on and may complete behaviours (and count them out).
        foreach (MemberRegistry.Entry entry in _registry.TakePending() ?? [])
        {
            entry.Arbiter.WithdrawFor(entry.Life);
        }
    }

    /// <summary>Ends the block (once): from now on a drained count finishes the scope ("Finish").</summary>
    private void Close()
    {
        if (Atomic.Exchange(ref _closed, 1) == 0)
        {
            TryFinish();
        }
    }

    private void TryFinish()
    {
        if (!_count.Drained() || Atomic.Exchange(ref _finished, 1) != 0)
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

    /// <summary>Gets about how many members (and child scopes) are counted in and not out.</summary>
    private long PendingEstimate() => _count.Estimate();

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
            Atomic.Write(ref _outcomeAbandoned, 1);
            EndBlock();
            return new InvalidOperationException(
                "A behaviour's body waits for a scope whose member needs a cown the body holds; that member can run only after the body ends, so the body would wait for itself forever. "
                + "The scope's block has ended; it finishes once the body has ended, and its failures go to the enclosing scope. Finish the scope outside the body, or spawn its members on other cowns.");
        }

        return null;
    }

    /// <summary>Whether a member of this scope, or of a scope inside it, waits for a cown that <paramref name="holder"/> holds.</summary>
    private bool HasPendingMemberBehind(Behaviour holder) =>
        _registry.AnyPendingBehind(holder) || Children().Any(child => child.HasPendingMemberBehind(holder));

    private void AddChild(BocScope child)
    {
        lock (Gate())
        {
            (_children ??= []).Add(child);
        }
    }

    private void RemoveChild(BocScope child)
    {
        lock (Gate())
        {
            _children?.Remove(child);
        }
    }

    /// <summary>A snapshot of the child scopes that have not finished (none, without taking a lock, if there never were any).</summary>
    private BocScope[] Children()
    {
        if (Atomic.Read(ref _gate) is null)
        {
            return [];
        }

        lock (Gate())
        {
            return _children?.ToArray() ?? [];
        }
    }

    /// <summary>The lock of the failures and the children, created with the first of them.</summary>
    private Lock Gate()
    {
        if (Atomic.Read(ref _gate) is { } gate)
        {
            return gate;
        }

        var created = new Lock();
        return Atomic.CompareExchange(ref _gate, created, null) ?? created;
    }
}
