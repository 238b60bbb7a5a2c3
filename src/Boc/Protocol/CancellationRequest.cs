namespace Boc;

/// <summary>
/// The cancellation of one spawn: the behaviour-level state word (Pending, then Started or Withdrawn), the join of the
/// canceller with the behaviour's dispatch, and the token registration. A new object per cancellable spawn, never
/// pooled: a token callback can fire at any moment, even after the behaviour went back to its pool, and then it touches
/// only this object (see Behaviour.Cancellation.cs).
/// </summary>
internal sealed class CancellationRequest : Withdrawal
{
    private const int Pending = 0;
    private const int Started = 1;
    private const int Withdrawn = 2;

    private const int Registering = 0;
    private const int Registered = 1;
    private const int Unregistered = 2;

    private readonly Behaviour _behaviour;
    private int _state = Pending;

    // Two parties finish a withdrawal: the canceller, once it has marked every slot, and the behaviour's dispatch (its
    // countdown reaches zero once every slot has received the turn and passed it on). The second completes it.
    private int _join = 2;

    // Who unregisters: the spawner, once it has the registration, or the one completing the behaviour; the later one.
    private int _registration = Registering;
    private CancellationTokenRegistration _tokenRegistration;

    // A member of a scope spawned with a token of its own: the body's token, canceled by either, made the first time
    // the body asks (see BodyToken); disposed when the behaviour completes.
    private CancellationTokenSource? _linked;

    internal CancellationRequest(Behaviour behaviour, CancellationToken token)
    {
        _behaviour = behaviour;
        Token = token;
    }

    /// <summary>Gets the spawn's token.</summary>
    internal override CancellationToken Token { get; }

    /// <summary>
    /// Gets the token the body sees: the spawn's, or, for a member of a scope (Scopes/), a token canceled by either the
    /// spawn's token or the scope's. That one is linked only when a body asks for it, so a member with a token pays
    /// nothing for it otherwise.
    /// </summary>
    internal override CancellationToken BodyToken
    {
        get
        {
            if (_behaviour.Scope is not { } scope)
            {
                return Token;
            }

            // Only the body reads it, on its own flow: no other thread creates the source.
            _linked ??= CancellationTokenSource.CreateLinkedTokenSource(Token, scope.Token);
            return _linked.Token;
        }
    }

    /// <inheritdoc/>
    internal override Behaviour Behaviour => _behaviour;

    /// <summary>Registers the callback; called by the spawner after Enqueue. It may run the callback inline.</summary>
    internal void Register()
    {
        CancellationTokenRegistration registration = Token.UnsafeRegister(static s => ((CancellationRequest)s!).Cancel(), this);
        _tokenRegistration = registration;
        if (Atomic.Exchange(ref _registration, Registered) == Unregistered)
        {
            // The behaviour already completed: nobody else will unregister.
            registration.Unregister();
        }
    }

    /// <summary>Drops the callback (it may still be running or about to run: it then finds the state decided).</summary>
    internal override void Unregister()
    {
        if (Atomic.Exchange(ref _registration, Unregistered) == Registered)
        {
            _tokenRegistration.Unregister();
        }

        // The body has ended (or never ran): nothing reads the linked token any more, and it must not stay registered
        // on the caller's and the scope's tokens.
        _linked?.Dispose();
    }

    /// <summary>Claims the behaviour for its body: false if it was withdrawn first.</summary>
    internal override bool TryStart()
    {
        if (Atomic.CompareExchange(ref _state, Started, Pending) != Pending)
        {
            return false;
        }

        if (_behaviour.Scope is { IsCancellationRequested: true })
        {
            // A member of a scope canceled before this claim never starts (Scopes/BocScope.Members.cs, "The start"):
            // withdraw it here, as its canceller would; the token's callback now finds the state decided. Run joins.
            Atomic.Write(ref _state, Withdrawn);
            _behaviour.Withdraw(this);
            return false;
        }

        return true;
    }

    /// <summary>A scope's canceller (the behaviour is also a scope member): the same as the token's callback.</summary>
    internal override void WithdrawFor(long life) => Cancel();

    /// <inheritdoc/>
    internal override bool IsPending(long life) => Atomic.Read(ref _state) == Pending;

    /// <summary>One party of a withdrawal is done; the second completes the behaviour as withdrawn.</summary>
    internal override void Join()
    {
        if (Atomic.Decrement(ref _join) == 0)
        {
            _behaviour.CompleteWithdrawn(this);
        }
    }

    private void Cancel()
    {
        // Only the winner of Pending -> Withdrawn touches the behaviour: a Started (or later pooled) behaviour is left alone.
        if (Atomic.CompareExchange(ref _state, Withdrawn, Pending) != Pending)
        {
            return;
        }

        _behaviour.Withdraw(this);
    }
}
