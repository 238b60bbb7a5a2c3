namespace Boc.Benchmarks.Baselines;

/// <summary>
/// The threads of the threads-and-locks baselines: one dedicated OS thread per body, as a developer writing against
/// <c>pthread</c> or <see cref="Thread"/> would, rather than thread-pool work items (a pool thread that blocks on a
/// lock starves the pool and makes the pool's injection heuristics part of the measurement).
/// </summary>
/// <remarks>
/// Threads are started in the order given, inside the timed part of a run: the paper's pthread baseline creates its
/// threads inside the measured program too, and the start order is what its "optimal order" variant varies. The
/// returned task completes, instead of the caller joining, so that <c>ExecuteAsync</c> stays asynchronous.
/// </remarks>
internal static class DedicatedThreads
{
    /// <summary>
    /// Starts one thread per element of <paramref name="order"/>, running <paramref name="body"/> with that element;
    /// the task completes when every thread has returned, and faults with their exceptions if any threw.
    /// </summary>
    public static Task RunAsync(IReadOnlyList<int> order, Action<int> body, string name)
    {
        var done = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var errors = new System.Collections.Concurrent.ConcurrentQueue<Exception>();
        int running = order.Count;
        if (running == 0)
        {
            done.SetResult();
            return done.Task;
        }

        foreach (int index in order)
        {
            var thread = new Thread(() =>
            {
                try
                {
                    body(index);
                }
                catch (Exception e)
                {
                    // Rethrown through the task: a failing thread must fail the run, not vanish.
                    errors.Enqueue(e);
                }
                finally
                {
                    // The decrement is a full fence, so the last thread's SetResult publishes every thread's writes.
                    if (Interlocked.Decrement(ref running) == 0)
                    {
                        if (errors.IsEmpty)
                        {
                            done.SetResult();
                        }
                        else
                        {
                            done.SetException(errors);
                        }
                    }
                }
            })
            {
                IsBackground = true,
                Name = $"{name} {index}",
            };
            thread.Start();
        }

        return done.Task;
    }
}
