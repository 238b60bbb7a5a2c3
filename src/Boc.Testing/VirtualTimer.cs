namespace Boc.Testing;

/// <summary>A timer of <see cref="VirtualTimeProvider"/>; firing it is a step of the controlled run.</summary>
internal sealed class VirtualTimer(
    VirtualTimeProvider time, int number, int chain, TimerCallback callback, object? state, ExecutionContext? context) : ITimer
{
    private bool _disposed;

    public int Number => number;

    public int Chain => chain;

    internal long DueTicks { get; set; }

    internal long PeriodTicks { get; set; }

    internal long Sequence { get; set; }

    public bool Change(TimeSpan dueTime, TimeSpan period)
    {
        ArgumentOutOfRangeException.ThrowIfLessThan(dueTime, Timeout.InfiniteTimeSpan);
        ArgumentOutOfRangeException.ThrowIfLessThan(period, Timeout.InfiniteTimeSpan);
        if (_disposed)
        {
            return false;
        }

        time.Arm(this, dueTime, period);
        return true;
    }

    public void Dispose()
    {
        _disposed = true;
        time.Disarm(this);
    }

    public ValueTask DisposeAsync()
    {
        Dispose();
        return ValueTask.CompletedTask;
    }

    internal void Invoke()
    {
        if (context is null)
        {
            callback(state);
            return;
        }

        ExecutionContext.Run(context, static s => ((VirtualTimer)s!).InvokeCallback(), this);
    }

    private void InvokeCallback() => callback(state);
}
