namespace Boc;

/// <summary>
/// The cancellation of one spawn: the behaviour-level state word (Pending, then Started or Withdrawn), the join of the
/// canceller with the behaviour's dispatch, and the token registration. A new object per cancellable spawn, never
/// pooled: a token callback can fire at any moment, even after the behaviour went back to its pool, and then it touches
/// only this object (see Behaviour.Cancellation.cs).
/// </summary>
internal sealed class CancellationRequest
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

    internal CancellationRequest(Behaviour behaviour, CancellationToken token)
    {
        _behaviour = behaviour;
        Token = token;
    }

    /// <summary>Gets the spawn's token.</summary>
    internal CancellationToken Token { get; }

    /// <summary>Registers the callback; called by the spawner after Enqueue. It may run the callback inline.</summary>
    internal void Register()
    {
        CancellationTokenRegistration registration = Token.UnsafeRegister(static s => ((CancellationRequest)s!).Cancel(), this);
        _tokenRegistration = registration;
        if (Interlocked.Exchange(ref _registration, Registered) == Unregistered)
        {
            // The behaviour already completed: nobody else will unregister.
            registration.Unregister();
        }
    }

    /// <summary>Drops the callback (it may still be running or about to run: it then finds the state decided).</summary>
    internal void Unregister()
    {
        if (Interlocked.Exchange(ref _registration, Unregistered) == Registered)
        {
            _tokenRegistration.Unregister();
        }
    }

    /// <summary>Claims the behaviour for its body: false if it was withdrawn first.</summary>
    internal bool TryStart() => Interlocked.CompareExchange(ref _state, Started, Pending) == Pending;

    /// <summary>One party of a withdrawal is done; the second completes the behaviour as withdrawn.</summary>
    internal void Join()
    {
        if (Interlocked.Decrement(ref _join) == 0)
        {
            _behaviour.CompleteWithdrawn(this);
        }
    }

    private void Cancel()
    {
        // Only the winner of Pending -> Withdrawn touches the behaviour: a Started (or later pooled) behaviour is left alone.
        if (Interlocked.CompareExchange(ref _state, Withdrawn, Pending) != Pending)
        {
            return;
        }

        _behaviour.WithdrawSlots();
        Join();
    }
}
