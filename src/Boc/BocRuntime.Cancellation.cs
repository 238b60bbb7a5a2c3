namespace Boc;

public sealed partial class BocRuntime
{
    /// <summary>
    /// Accepts a cancellable <paramref name="behaviour"/> (an awaited one). A token that is canceled already completes it
    /// as withdrawn without enqueuing anything; one that can never be canceled costs nothing over <see cref="Spawn(Behaviour)"/>.
    /// </summary>
    internal void Spawn(Behaviour behaviour, CancellationToken cancellationToken)
    {
        if (!cancellationToken.CanBeCanceled)
        {
            Spawn(behaviour);
            return;
        }

        if (cancellationToken.IsCancellationRequested)
        {
            ObjectDisposedException.ThrowIf(Volatile.Read(ref _disposed) != 0, this);
            behaviour.CompleteUnspawned(cancellationToken);
            return;
        }

        // Register only once the behaviour is enqueued everywhere: the canceller then never meets a spawner in phase 1
        // or 2. Until then the behaviour cannot go back to the pool: the awaiter, who owns half of it, gets its
        // awaitable only when this method has returned. The callback may run inline, if the token is canceled meanwhile.
        CancellationRequest request = behaviour.MakeCancellable(cancellationToken);
        Spawn(behaviour);
        request.Register();
    }
}
