namespace Boc.Tests;

/// <summary>
/// A <see cref="TimeProvider"/> whose timers fire only when the test says so (<see cref="FireAll"/>), so that a deadline
/// passes at a chosen point of the test, after the events it must follow, whatever the machine's speed.
/// </summary>
internal sealed class ManualClock : TimeProvider
{
    private readonly object _gate = new();
    private readonly List<ManualTimer> _timers = [];

    /// <summary>Gets how many timers are armed (created or changed with a finite due time, not fired or disposed).</summary>
    public int Armed
    {
        get
        {
            lock (_gate)
            {
                return _timers.Count(t => t.IsArmed);
            }
        }
    }

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        var timer = new ManualTimer(callback, state, dueTime);
        lock (_gate)
        {
            _timers.Add(timer);
        }

        return timer;
    }

    /// <summary>Fires every armed timer once (on the calling thread), as if all their due times had passed.</summary>
    public void FireAll()
    {
        ManualTimer[] armed;
        lock (_gate)
        {
            armed = [.. _timers.Where(t => t.IsArmed)];
        }

        foreach (ManualTimer timer in armed)
        {
            timer.Fire();
        }
    }

    /// <summary>Fires the armed timers created with <paramref name="state"/> as their state (a scope's deadline names its scope).</summary>
    public void FireFor(object state)
    {
        ManualTimer[] armed;
        lock (_gate)
        {
            armed = [.. _timers.Where(t => t.IsArmed && ReferenceEquals(t.State, state))];
        }

        foreach (ManualTimer timer in armed)
        {
            timer.Fire();
        }
    }

    private sealed class ManualTimer(TimerCallback callback, object? state, TimeSpan dueTime) : ITimer
    {
        public object? State => state;

        private TimeSpan _dueTime = dueTime;
        private bool _disposed;

        public bool IsArmed => !_disposed && _dueTime != Timeout.InfiniteTimeSpan;

        public bool Change(TimeSpan dueTime, TimeSpan period)
        {
            _dueTime = dueTime;
            return !_disposed;
        }

        public void Fire()
        {
            _dueTime = Timeout.InfiniteTimeSpan;
            callback(state);
        }

        public void Dispose() => _disposed = true;

        public ValueTask DisposeAsync()
        {
            Dispose();
            return default;
        }
    }
}
