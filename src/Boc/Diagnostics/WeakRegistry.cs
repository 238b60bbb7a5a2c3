namespace Boc.Diagnostics;

/// <summary>
/// The live objects of one kind (runtimes, schedulers) that observable instruments read when a listener collects.
/// Objects are held weakly, so a runtime that is dropped without being disposed is not kept alive by the meter; they
/// leave explicitly when disposed, and dead entries are pruned on every snapshot.
/// </summary>
/// <typeparam name="T">The kind of object.</typeparam>
internal sealed class WeakRegistry<T>
    where T : class
{
    private readonly Lock _lock = new();
    private readonly List<WeakReference<T>> _items = [];

    /// <summary>Gets how many entries are held, dead ones not yet pruned included (for tests).</summary>
    internal int Count
    {
        get
        {
            lock (_lock)
            {
                return _items.Count;
            }
        }
    }

    /// <summary>Adds <paramref name="item"/> (once per object: creation is the only caller).</summary>
    public void Add(T item)
    {
        var reference = new WeakReference<T>(item);
        lock (_lock)
        {
            _items.Add(reference);
        }
    }

    /// <summary>Removes <paramref name="item"/> if present (idempotent: disposal may run more than once).</summary>
    public void Remove(T item)
    {
        lock (_lock)
        {
            _items.RemoveAll(r => !r.TryGetTarget(out T? target) || ReferenceEquals(target, item));
        }
    }

    /// <summary>Returns the live objects now, pruning entries whose object was collected.</summary>
    public List<T> Snapshot()
    {
        var live = new List<T>();
        lock (_lock)
        {
            _items.RemoveAll(r =>
            {
                if (r.TryGetTarget(out T? target))
                {
                    live.Add(target);
                    return false;
                }

                return true;
            });
        }

        return live;
    }
}
