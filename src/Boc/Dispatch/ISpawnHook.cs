namespace Boc.Dispatch;

/// <summary>
/// Implemented by a dispatcher that wants to see every spawn (Boc.Testing's controlled runtime: there a spawn is a
/// scheduling point, and the spawning body may be paused right after its behaviour is enqueued, as a slow thread would
/// be). A runtime created with such a dispatcher hands each accepted behaviour to <see cref="Enqueue"/> instead of
/// enqueuing it itself.
/// </summary>
internal interface ISpawnHook
{
    /// <summary>
    /// Must call <see cref="Behaviour.Enqueue()"/> exactly once, on the spawning thread, before returning or pausing: the
    /// protocol is unchanged, only what the spawning thread does after the enqueue is up to the hook.
    /// </summary>
    void Enqueue(Behaviour behaviour);

    /// <summary>
    /// The same for a batch: must call <see cref="Behaviour.EnqueueBatch"/> exactly once, on the spawning thread, before
    /// returning or pausing. A batch is one spawn, so it is one scheduling point.
    /// </summary>
    void EnqueueBatch(Behaviour[] members, int count);
}
