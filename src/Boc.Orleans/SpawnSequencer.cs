namespace Boc.Orleans;

/// <summary>
/// The per-spawner sequencing (docs/distributed.md, "The protocol"): a spawn starts
/// its enqueue phase on a cown only after the previous spawn of the same spawner that shares the cown has finished its
/// own. Spawns over disjoint cowns enqueue concurrently; nothing waits for a body.
/// </summary>
internal sealed class SpawnSequencer
{
    private readonly Dictionary<string, Task> _tails = new(StringComparer.Ordinal);
    private readonly object _gate = new();

    /// <summary>
    /// Registers a spawn's enqueue phase (<paramref name="done"/>) as the last one on each of its cowns and returns the
    /// earlier spawns' phases it must wait for. Under the lock, so two spawns of this spawner see each other in call order.
    /// </summary>
    public Task[] Register(CownEntry[] entries, Task done)
    {
        var predecessors = new List<Task>();
        lock (_gate)
        {
            foreach (CownEntry entry in entries)
            {
                if (_tails.TryGetValue(entry.SortKey, out Task? tail))
                {
                    predecessors.Add(tail);
                }

                _tails[entry.SortKey] = done;
            }
        }

        return [.. predecessors];
    }

    /// <summary>
    /// Ends a registered phase, whatever its outcome, so its successors go on; but never before its own predecessors
    /// ended: a spawn canceled while it waited for them must not let a later spawn overtake them.
    /// </summary>
    public void End(CownEntry[] entries, TaskCompletionSource done, Task[] predecessors)
    {
        if (!Array.TrueForAll(predecessors, p => p.IsCompleted))
        {
            _ = Task.WhenAll(predecessors).ContinueWith(_ => End(entries, done, []), CancellationToken.None, TaskContinuationOptions.ExecuteSynchronously, TaskScheduler.Default);
            return;
        }

        lock (_gate)
        {
            foreach (CownEntry entry in entries)
            {
                if (_tails.TryGetValue(entry.SortKey, out Task? tail) && tail == done.Task)
                {
                    _tails.Remove(entry.SortKey);
                }
            }
        }

        done.TrySetResult();
    }
}
