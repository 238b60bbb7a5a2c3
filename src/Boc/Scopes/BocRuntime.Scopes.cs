using System.Runtime.CompilerServices;

namespace Boc;

// Scopes on the runtime: beginning one, cancelling all of them, and the spawn side of membership (Scopes/BocScope.Members.cs
// has the argument). The spawn path calls in here only once the process has begun a scope (BocScope.AnyBegun).
public sealed partial class BocRuntime
{
    // Scopes begun outside every scope and not finished, for CancelScopes; a child is reached through its parent.
    private readonly Lock _scopesLock = new();
    private readonly HashSet<BocScope> _scopes = [];

    /// <summary>
    /// Begins a scope (structured concurrency: AC's <c>finish</c> block): every behaviour spawned from the calling flow
    /// until the scope is finished or disposed, and every behaviour those behaviours' bodies spawn, is a member; the
    /// scope's <see cref="BocScope.FinishAsync"/> waits for all of them. Use it with <c>await using</c>.
    /// </summary>
    /// <returns>The scope, which is now the calling flow's ambient scope; a child of the flow's (or the running body's) scope, if any.</returns>
    /// <exception cref="ObjectDisposedException">The runtime has been disposed.</exception>
    /// <exception cref="OperationCanceledException">The scope it would be a child of has been canceled.</exception>
    public BocScope BeginScope() => BocScope.Begin(this, Timeout.InfiniteTimeSpan, CancellationToken.None);

    /// <summary>
    /// Begins a scope (see <see cref="BeginScope()"/>) that <paramref name="cancellationToken"/> cancels.
    /// </summary>
    /// <param name="cancellationToken">
    /// Cancels the scope: members that do not hold their cowns yet are withdrawn, running ones see the cancellation, and
    /// the finish is canceled with this token if it fires before the scope has finished (see <see cref="BocScope.FinishAsync"/>).
    /// </param>
    /// <returns>The scope, which is now the calling flow's ambient scope; a child of the flow's (or the running body's) scope, if any.</returns>
    /// <exception cref="ObjectDisposedException">The runtime has been disposed.</exception>
    /// <exception cref="OperationCanceledException">The scope it would be a child of has been canceled.</exception>
    public BocScope BeginScope(CancellationToken cancellationToken) => BocScope.Begin(this, Timeout.InfiniteTimeSpan, cancellationToken);

    /// <summary>
    /// Begins a scope (see <see cref="BeginScope()"/>) with a deadline: when <paramref name="timeout"/> has passed (on
    /// <see cref="TimeProvider"/>) before the scope has finished, the scope is canceled and its finish fails with a
    /// <see cref="TimeoutException"/> (members' failures, if any, are its inner exception), whatever the members were doing.
    /// </summary>
    /// <param name="timeout">How long the scope's work may take; <see cref="Timeout.InfiniteTimeSpan"/> for no deadline.</param>
    /// <returns>The scope, which is now the calling flow's ambient scope.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="timeout"/> is negative and not <see cref="Timeout.InfiniteTimeSpan"/>.</exception>
    /// <exception cref="ObjectDisposedException">The runtime has been disposed.</exception>
    /// <exception cref="OperationCanceledException">The scope it would be a child of has been canceled.</exception>
    public BocScope BeginScope(TimeSpan timeout) => BocScope.Begin(this, timeout, CancellationToken.None);

    /// <summary>
    /// Begins a scope (see <see cref="BeginScope()"/>) with a deadline that <paramref name="cancellationToken"/> may
    /// cancel earlier (see <see cref="BeginScope(TimeSpan)"/> and <see cref="BeginScope(CancellationToken)"/>).
    /// </summary>
    /// <param name="timeout">How long the scope's work may take; <see cref="Timeout.InfiniteTimeSpan"/> for no deadline.</param>
    /// <param name="cancellationToken">Cancels the scope earlier; the finish is then canceled with this token.</param>
    /// <returns>The scope, which is now the calling flow's ambient scope.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="timeout"/> is negative and not <see cref="Timeout.InfiniteTimeSpan"/>.</exception>
    /// <exception cref="ObjectDisposedException">The runtime has been disposed.</exception>
    /// <exception cref="OperationCanceledException">The scope it would be a child of has been canceled.</exception>
    public BocScope BeginScope(TimeSpan timeout, CancellationToken cancellationToken) => BocScope.Begin(this, timeout, cancellationToken);

    /// <summary>
    /// Cancels every scope begun on this runtime that has not finished (and so every scope inside them), as
    /// <see cref="BocScope"/>'s cancellation does: their members that do not hold their cowns yet are withdrawn. A
    /// shutdown that runs out of time can use it to drop queued work that would run after it; the hosting package's
    /// drain does.
    /// </summary>
    /// <returns>How many scopes it canceled (not counting the scopes inside them). Scopes begun during the call may be missed.</returns>
    public int CancelScopes()
    {
        BocScope[] open;
        lock (_scopesLock)
        {
            open = [.. _scopes];
        }

        int canceled = 0;
        foreach (BocScope scope in open)
        {
            if (scope.CancelForRuntime())
            {
                canceled++;
            }
        }

        return canceled;
    }

    internal void AddScope(BocScope scope)
    {
        lock (_scopesLock)
        {
            _scopes.Add(scope);
        }
    }

    internal void RemoveScope(BocScope scope)
    {
        lock (_scopesLock)
        {
            _scopes.Remove(scope);
        }
    }

    /// <summary>
    /// The spawn side of "Membership": joins an admitted, not yet counted <paramref name="behaviour"/> to the scope of
    /// the calling flow, if any (<paramref name="join"/> says which, for the registration after the enqueue). Returns
    /// false if that scope was canceled: the spawn is refused, having enqueued and counted nothing (an awaited one
    /// completes as withdrawn; a fire-and-forget one throws).
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool TryJoinScope(Behaviour behaviour, BocThread thread, out ScopeJoin join)
    {
        join = default;
        BocScope? scope = BocScope.JoinFromHere(thread, out BocScope? canceled);
        if (canceled is not null)
        {
            RefuseForScope(behaviour, canceled);
            return false;
        }

        if (scope is not null)
        {
            Withdrawal arbiter = behaviour.JoinScope(scope, out long life);
            join = new ScopeJoin(scope, arbiter, life);
        }

        return true;
    }

    /// <summary>
    /// Refuses a spawn into a canceled scope, after its admission (given back here) and before anything was counted:
    /// an awaited behaviour's awaitable completes as withdrawn, as for a token canceled before the spawn; a
    /// fire-and-forget one, which has no awaitable, throws.
    /// </summary>
    private void RefuseForScope(Behaviour behaviour, BocScope scope)
    {
        GiveRoomBack();
        CancellationToken token = scope.Token;
        if (behaviour.IsAwaited)
        {
            behaviour.CompleteUnspawned(token);
            return;
        }

        behaviour.Discard();
        throw ScopeCanceled(token);
    }

    private static OperationCanceledException ScopeCanceled(CancellationToken token) =>
        new("The behaviour was not spawned: the scope it would belong to has been canceled. Nothing was enqueued.", token);

    /// <summary>
    /// The batch's side of "Membership": joins every member (already admitted, not yet counted) to the calling flow's
    /// scope, all or none, and returns the scope's part of each, or null if the flow is in no scope. A canceled scope
    /// refuses the whole batch: nothing is joined, the room is given back, and the members are abandoned.
    /// </summary>
    private ScopeJoin[]? JoinBatchToScope(Behaviour[] members, int count, BocThread thread)
    {
        BocScope? scope = BocScope.JoinFromHere(thread, out BocScope? canceled);
        if (canceled is not null)
        {
            GiveRoomBack(count);
            OperationCanceledException refused = ScopeCanceled(canceled.Token);
            AbandonAll(members, count, refused);
            throw refused;
        }

        if (scope is null)
        {
            return null;
        }

        // The first member's count holds the scope open, so the others join it as a live member's spawns would.
        var joins = new ScopeJoin[count];
        for (int i = 0; i < count; i++)
        {
            if (i > 0)
            {
                scope.CountInMember();
            }

            Withdrawal arbiter = members[i].JoinScope(scope, out long life);
            joins[i] = new ScopeJoin(scope, arbiter, life);
        }

        return joins;
    }

    /// <summary>
    /// A spawn's membership, kept by the spawner from before its enqueue to its registration after it (default: the
    /// spawn joined no scope).
    /// </summary>
    private readonly record struct ScopeJoin(BocScope? Scope, Withdrawal? Arbiter, long Life)
    {
        /// <summary>Registers the member for its scope's cancellation, after its enqueue; nothing for no scope.</summary>
        public void Register() => Scope?.Register(Arbiter!, Life);
    }
}
