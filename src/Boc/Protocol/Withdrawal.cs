namespace Boc;

/// <summary>
/// The arbiter of one spawn's withdrawal (see "Cancellation", Protocol/Behaviour.Cancellation.cs): the state word that
/// the body's start and the canceller race for, and the join of the canceller with the behaviour's dispatch. The
/// protocol sees a cancellable behaviour only through this type (<c>Behaviour.Cancellation</c>). Two kinds:
/// <list type="bullet">
/// <item><see cref="CancellationRequest"/>: a <c>WhenAsync</c> given a token; a new object per spawn, never pooled,
/// because the token's callback may fire at any moment, even after the behaviour went back to its pool.</item>
/// <item><see cref="ScopeMembership"/>: a member of a <see cref="BocScope"/>; one object per pooled behaviour, reused by
/// each of its lives, because its only canceller (the scope's walk) names the life it means and the state word checks
/// it (Scopes/BocScope.Members.cs, "Withdrawing members").</item>
/// </list>
/// </summary>
internal abstract class Withdrawal
{
    /// <summary>Gets the token a withdrawn behaviour's awaitable carries (in its <see cref="BehaviourWithdrawnException"/>).</summary>
    internal abstract CancellationToken Token { get; }

    /// <summary>Gets the token the running body sees (<see cref="Behaviours.CurrentCancellationToken"/>).</summary>
    internal virtual CancellationToken BodyToken => Token;

    /// <summary>Claims the behaviour for its body: false if it was withdrawn first.</summary>
    internal abstract bool TryStart();

    /// <summary>One party of a withdrawal is done; the second completes the behaviour as withdrawn.</summary>
    internal abstract void Join();

    /// <summary>Called once the behaviour has completed (run or withdrawn): drops what the spawn registered.</summary>
    internal virtual void Unregister()
    {
    }

    /// <summary>
    /// The scope's canceller: withdraws the behaviour in its life <paramref name="life"/> if that life has not started
    /// (and has not been withdrawn already); otherwise does nothing. Safe to call on an arbiter whose behaviour has
    /// moved on to another life, or back to the pool.
    /// </summary>
    internal abstract void WithdrawFor(long life);

    /// <summary>
    /// Whether the behaviour is still in life <paramref name="life"/> and neither started nor withdrawn: a racy read,
    /// for a scope's registry (which entries to keep) and its self-wait diagnosis.
    /// </summary>
    internal abstract bool IsPending(long life);

    /// <summary>Gets the behaviour this arbiter belongs to (in whatever life it is now).</summary>
    internal abstract Behaviour Behaviour { get; }
}
