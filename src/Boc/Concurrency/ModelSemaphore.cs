#if BOC_MODEL
namespace Boc;

/// <summary>
/// Model builds only: the semaphore the scheduler's workers park on (<c>BocScheduler._wake</c>), with its waits and
/// releases as steps of the model when a controlled thread makes them, so that a parked worker is a blocked thread of
/// the model, not of the operating system. A timed wait times out only when no other thread of the model can run (time
/// passes only when nothing else happens). Threads that no explorer controls use a real semaphore.
/// </summary>
internal sealed class ModelSemaphore(int initialCount) : IDisposable
{
    private readonly SemaphoreSlim _real = new(initialCount);
    private int _count = initialCount;

    /// <summary>Gets the permits available to controlled threads.</summary>
    internal int Count => _count;

    public void Wait()
    {
        if (ModelPoints.Current is not { } thread)
        {
            _real.Wait();
            return;
        }

        _ = Take(thread, timed: false);
    }

    public bool Wait(TimeSpan timeout)
    {
        if (ModelPoints.Current is not { } thread)
        {
            return _real.Wait(timeout);
        }

        return Take(thread, timed: true);
    }

    public int Release() => Release(1);

    public int Release(int releaseCount)
    {
        if (ModelPoints.Current is not { } thread)
        {
            return _real.Release(releaseCount);
        }

        thread.Point(writes: true);
        int previous = _count;
        _count += releaseCount;
        thread.Wake(this, releaseCount);
        return previous;
    }

    public void Dispose() => _real.Dispose();

    private bool Take(IModelThread thread, bool timed)
    {
        thread.Point(writes: true);
        while (_count == 0)
        {
            if (!thread.Block(this, timed))
            {
                return false;
            }
        }

        _count--;
        return true;
    }
}
#endif
