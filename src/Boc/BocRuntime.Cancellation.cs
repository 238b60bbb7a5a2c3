namespace Boc;

public sealed partial class BocRuntime
{
    /// <summary>
    /// Accepts a cancellable <paramref name="behaviour"/> (an awaited one) after <see cref="Admit(CancellationToken)"/>.
    /// A spawn that was not <paramref name="admitted"/> (its token was canceled before it was counted in) completes as
    /// withdrawn without enqueuing anything; a token that can never be canceled costs nothing over
    /// <see cref="SpawnAdmitted(Behaviour, BocThread)"/>. <paramref name="thread"/> is the calling thread's.
    /// </summary>
    private void SpawnAdmitted(Behaviour behaviour, BocThread thread, bool admitted, CancellationToken cancellationToken)
    {
        if (!admitted)
        {
            behaviour.CompleteUnspawned(cancellationToken);
            return;
        }

        if (!cancellationToken.CanBeCanceled)
        {
            SpawnAdmitted(behaviour, thread);
            return;
        }

        // Register only once the behaviour is enqueued everywhere: the canceller then never meets a spawner in phase 1
        // or 2. Until then the behaviour cannot go back to the pool: the awaiter, who owns half of it, gets its
        // awaitable only when this method has returned. The callback may run inline, if the token is canceled meanwhile.
        CancellationRequest request = behaviour.MakeCancellable(cancellationToken);
        if (SpawnAdmitted(behaviour, thread, mayRunInline: false))
        {
            request.Register();
        }
    }
}
