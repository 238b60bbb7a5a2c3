namespace Boc.Testing;

/// <summary>
/// Idle fiber threads, reused by the runs of one exploration: a thread is created only when every idle one is taken,
/// that is, when more steps are paused at spawns at once than ever before.
/// </summary>
internal sealed class FiberPool : IDisposable
{
    private readonly Lock _gate = new();
    private readonly Stack<Fiber> _idle = new();
    private readonly List<Fiber> _all = [];
    private bool _disposed;

    public Fiber Rent()
    {
        lock (_gate)
        {
            ObjectDisposedException.ThrowIf(_disposed, this);
            if (_idle.TryPop(out Fiber? fiber))
            {
                return fiber;
            }

            fiber = Fiber.StartPooled(this);
            _all.Add(fiber);
            return fiber;
        }
    }

    public void Return(Fiber fiber)
    {
        lock (_gate)
        {
            _idle.Push(fiber);
        }
    }

    /// <summary>Lets every thread exit. Called when no run uses the pool: every fiber is idle or about to be.</summary>
    public void Dispose()
    {
        lock (_gate)
        {
            if (_disposed)
            {
                return;
            }

            _disposed = true;
            foreach (Fiber fiber in _all)
            {
                fiber.Signal(FiberCommand.Exit);
            }
        }
    }
}
