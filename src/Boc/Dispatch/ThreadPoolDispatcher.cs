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

    public void Dispatch(Behaviour behaviour) =>
        ThreadPool.UnsafeQueueUserWorkItem(behaviour, preferLocal: false);
}
