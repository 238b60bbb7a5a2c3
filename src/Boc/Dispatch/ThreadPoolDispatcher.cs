namespace Boc.Dispatch;

/// <summary>
/// Runs each ready behaviour as its own <see cref="IThreadPoolWorkItem"/> on the .NET thread pool: no wrapper object,
/// no <see cref="Task"/>, and no <see cref="ExecutionContext"/> flow (behaviours do not inherit the spawner's
/// AsyncLocal values, which keeps dispatch allocation-free).
/// </summary>
internal sealed class ThreadPoolDispatcher : IDispatcher
{
    public static readonly ThreadPoolDispatcher Instance = new();

    private ThreadPoolDispatcher()
    {
    }

    // preferLocal: a behaviour made ready on a pool thread (by a release or a spawn in a body) goes to that thread's
    // local queue and usually runs next on the same core; from other threads it goes to the global queue anyway.
    public void Dispatch(Behaviour behaviour) =>
        ThreadPool.UnsafeQueueUserWorkItem(behaviour, preferLocal: true);
}
