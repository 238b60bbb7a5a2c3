namespace Boc;

public sealed partial class BocRuntime
{
    // Set when a ShutdownAsync gave up at its token. Disposal after that must not wait again, without a limit, for what
    // the caller already let go: a host drains its runtime within its shutdown timeout and its container disposes the
    // runtime afterwards (Boc.Extensions.Hosting), and an `await using` after a bounded ShutdownAsync ends the same way.
    private bool _shutdownGivenUp;

    /// <summary>
    /// After a <see cref="ShutdownAsync(CancellationToken)"/> that gave up: returns true if behaviours are still pending,
    /// having arranged for the workers to stop once they have finished (a drain in the background, whose unobserved
    /// exceptions nobody can take any more); false if disposal should go on as usual (it will not wait).
    /// </summary>
    private bool ReleaseLaterIfGivenUp()
    {
        if (!Atomic.Read(ref _shutdownGivenUp) || _pending.IsQuiescent())
        {
            return false;
        }

        _ = ShutdownAsync(CancellationToken.None).ContinueWith(
            static drained => _ = drained.Exception,
            CancellationToken.None,
            TaskContinuationOptions.OnlyOnFaulted | TaskContinuationOptions.ExecuteSynchronously,
            TaskScheduler.Default);
        return true;
    }
}
