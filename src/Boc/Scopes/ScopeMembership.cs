namespace Boc;

/// <summary>
/// The withdrawal arbiter of a scope member that has no token of its own: one object per pooled behaviour, reused by
/// every life of it as a member, so a scoped spawn allocates nothing in steady state. Why reuse is safe is argued under
/// "Withdrawing members" in Scopes/BocScope.Members.cs; in short, the state word carries the life's number, and the
/// canceller's compare-and-swap names the life it means, so it can never withdraw a later life.
/// </summary>
internal sealed class ScopeMembership : Withdrawal
{
    // The low two bits of the word; the rest is the life's number (one per spawn of this object as a member).
    private const long Pending = 0;
    private const long Started = 1;
    private const long Withdrawn = 2;
    private const long PhaseMask = 3;
    private const int LifeShift = 2;

    private readonly Behaviour _behaviour;
    private long _word;

    // The two parties of a withdrawal, as in CancellationRequest: reset by each life, used only by a withdrawn one.
    private int _join;

    internal ScopeMembership(Behaviour behaviour) => _behaviour = behaviour;

    /// <inheritdoc/>
    internal override Behaviour Behaviour => _behaviour;

    /// <inheritdoc/>
    internal override CancellationToken Token => _behaviour.Scope?.Token ?? default;

    /// <summary>
    /// Starts a new life, Pending, and returns its number. Called by the spawner before Enqueue, on a behaviour fresh
    /// from the pool: the previous life has completed, so nothing races with these plain writes, and the enqueue's first
    /// interlocked step publishes them.
    /// </summary>
    internal long BeginLife()
    {
        long life = (_word >> LifeShift) + 1;
        _word = (life << LifeShift) | Pending;
        _join = 2;
        return life;
    }

    /// <inheritdoc/>
    internal override bool TryStart()
    {
        // Run holds the behaviour (its countdown reached zero), so the word is this life's.
        long word = Atomic.Read(ref _word);
        if ((word & PhaseMask) != Pending || Atomic.CompareExchange(ref _word, word | Started, word) != word)
        {
            return false;
        }

        if (_behaviour.Scope is { IsCancellationRequested: true })
        {
            // Claimed, but the scope was canceled before the claim: its walk could not have withdrawn this life (not
            // registered yet, or registered after the walk), so withdraw it here, before the body, as its canceller
            // would ("The start" in BocScope.Members.cs). Run, the other party, joins when this returns false.
            Atomic.Write(ref _word, (word & ~PhaseMask) | Withdrawn);
            _behaviour.Withdraw(this);
            return false;
        }

        return true;
    }

    /// <inheritdoc/>
    internal override void WithdrawFor(long life)
    {
        // Winning this exchange proves the behaviour is in that life and has not started, so it cannot complete (and be
        // pooled) before our Join below: a withdrawn life completes only through the join of two.
        long pending = (life << LifeShift) | Pending;
        if (Atomic.CompareExchange(ref _word, (life << LifeShift) | Withdrawn, pending) != pending)
        {
            return;
        }

        _behaviour.Withdraw(this);
    }

    /// <inheritdoc/>
    internal override bool IsPending(long life) => Atomic.Read(ref _word) == ((life << LifeShift) | Pending);

    /// <inheritdoc/>
    internal override void Join()
    {
        if (Atomic.Decrement(ref _join) == 0)
        {
            _behaviour.CompleteWithdrawn(this);
        }
    }
}
