namespace Boc;

public sealed partial class BocRuntime
{
    /// <summary>
    /// Gets the debugger's one-line summary: name, dispatcher, pending estimate and whether the runtime was disposed
    /// (a snapshot: the count moves while behaviours run).
    /// </summary>
    internal string DebuggerDisplay
    {
        get
        {
            string name = Name is null ? "BocRuntime" : $"BocRuntime \"{Name}\"";
            string dispatcher = _bocScheduler is { } scheduler
                ? $"BocScheduler ({scheduler.WorkerCount} workers)"
                : Dispatcher is Dispatch.BoundedThreadPoolDispatcher ? "thread pool (bounded)" : Dispatcher is Dispatch.ThreadPoolDispatcher ? "thread pool" : Dispatcher.GetType().Name;
            string state = Atomic.Read(ref _disposed) != 0 ? ", disposed" : _isDefault ? ", default" : string.Empty;
            return $"{name}, {dispatcher}, pending ≈ {PendingEstimate}{state}";
        }
    }
}
