namespace Boc.Testing;

/// <summary>
/// Virtual time for a controlled run: the clock starts at <see cref="Epoch"/> and moves only when a timer fires (to that
/// timer's due time). Timers fire in due order, but a due timer may fire before any other ready step, as on a busy
/// machine where the other work happens to be slow.
/// </summary>
internal sealed class VirtualTimeProvider(ControlledExecution execution) : TimeProvider
{
    /// <summary>The virtual clock's start: a fixed instant, so runs are reproducible.</summary>
    public static readonly DateTimeOffset Epoch = new(2000, 1, 1, 0, 0, 0, TimeSpan.Zero);

    private readonly Lock _gate = new();
    private readonly List<VirtualTimer> _armed = [];
    private long _nowTicks;
    private long _nextSequence;
    private int _nextTimer;

    public override TimeZoneInfo LocalTimeZone => TimeZoneInfo.Utc;

    public override long TimestampFrequency => TimeSpan.TicksPerSecond;

    public long NowTicks
    {
        get
        {
            lock (_gate)
            {
                return _nowTicks;
            }
        }
    }

    public override DateTimeOffset GetUtcNow() => Epoch.AddTicks(NowTicks);

    public override long GetTimestamp() => NowTicks;

    public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period)
    {
        ArgumentNullException.ThrowIfNull(callback);
        int number;
        lock (_gate)
        {
            number = ++_nextTimer;
        }

        var timer = new VirtualTimer(this, number, execution.ChainForNewWork(), callback, state, ExecutionContext.Capture());
        timer.Change(dueTime, period);
        return timer;
    }

    /// <summary>The armed timer that fires first (earliest due time, then earliest armed), or null.</summary>
    public VirtualTimer? Earliest()
    {
        lock (_gate)
        {
            VirtualTimer? first = null;
            foreach (VirtualTimer timer in _armed)
            {
                if (first is null || timer.DueTicks < first.DueTicks || (timer.DueTicks == first.DueTicks && timer.Sequence < first.Sequence))
                {
                    first = timer;
                }
            }

            return first;
        }
    }

    public bool HasArmedTimers
    {
        get
        {
            lock (_gate)
            {
                return _armed.Count > 0;
            }
        }
    }

    /// <summary>Fires <paramref name="timer"/>: time moves to its due time, a periodic timer re-arms, the callback runs.</summary>
    public void Fire(VirtualTimer timer)
    {
        lock (_gate)
        {
            if (!_armed.Remove(timer))
            {
                return;
            }

            _nowTicks = Math.Max(_nowTicks, timer.DueTicks);
            if (timer.PeriodTicks > 0)
            {
                timer.DueTicks = _nowTicks + timer.PeriodTicks;
                timer.Sequence = ++_nextSequence;
                _armed.Add(timer);
            }
        }

        timer.Invoke();
    }

    internal void Arm(VirtualTimer timer, TimeSpan dueTime, TimeSpan period)
    {
        lock (_gate)
        {
            _armed.Remove(timer);
            if (dueTime == Timeout.InfiniteTimeSpan)
            {
                return;
            }

            timer.DueTicks = _nowTicks + dueTime.Ticks;
            timer.PeriodTicks = period == Timeout.InfiniteTimeSpan ? 0 : period.Ticks;
            timer.Sequence = ++_nextSequence;
            _armed.Add(timer);
        }
    }

    internal void Disarm(VirtualTimer timer)
    {
        lock (_gate)
        {
            _armed.Remove(timer);
        }
    }
}
