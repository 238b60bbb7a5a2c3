namespace Boc;

/// <summary>
/// How runs of appended bodies (a flood's batches, Behaviour.Appending.cs) share a <see cref="BocScheduler"/>'s workers:
/// how long a runner holds a filling tail, and how long a run may go on while other work waits. Owned by the appending
/// code; each scheduler carries one (<see cref="BocScheduler.Floods"/>), so the public scheduler type itself knows only
/// work items.
/// </summary>
internal sealed class FloodPolicy
{
    /// <summary>
    /// <see cref="Thread.SpinWait(int)"/> iterations in one poll interval of a runner's hold on a flood's tail that is
    /// still filling (<c>Behaviour.Appending.cs</c>, "Holding a filling tail"): about 1.4 µs on the 2-vCPU benchmark
    /// machine, where a body that floods a cown appends 30 to 60 bodies in that time. A shorter interval ends the hold on
    /// a spawner's brief stall; a longer one makes the runner wait longer for a spawner that has finished.
    /// </summary>
    internal const int PollSpins = 50;

    /// <summary>
    /// How long, in milliseconds, a behaviour may run appended bodies before it offers its worker to waiting work
    /// between two of them (<c>AppendableBehaviour.cs</c>, "Yielding"); see <see cref="SliceMilliseconds"/>.
    /// </summary>
    internal const int DefaultSliceMilliseconds = 10;

    /// <summary>
    /// A run of appended bodies checks after every this many of them (after the 8th, 16th and 24th) whether its worker
    /// owes the inbox its turn, and whether its slice is over: often enough that outside work waits at most this many
    /// bodies beyond the inbox bound, and that long bodies give up their worker within a few of them; rarely enough that
    /// a run of 32 short ones pays for at most two clock reads.
    /// </summary>
    internal const int CheckEvery = 8;

    // Counted on the rare path only (a yield follows at least a slice of running).
    private long _yieldedRuns;

    /// <summary>
    /// Gets or sets how long, in milliseconds, a behaviour may run appended bodies on the scheduler's workers before it
    /// offers its worker to waiting work (<see cref="DefaultSliceMilliseconds"/>; measured on
    /// <see cref="Environment.TickCount64"/>, so in steps of its resolution). Settable for tests: 0 makes every check
    /// that finds other work waiting yield.
    /// </summary>
    internal int SliceMilliseconds { get; set; } = DefaultSliceMilliseconds;

    /// <summary>Gets how many times a run of appended bodies has yielded on the scheduler (for tests and probes).</summary>
    internal long YieldedRuns => Volatile.Read(ref _yieldedRuns);

    /// <summary>Test hook: runs on a worker at each poll interval of a hold on a filling tail, before it waits.</summary>
    internal Action? PollHook { get; set; }

    /// <summary>Counts a yielded run (before its rest is queued).</summary>
    internal void CountYield() => Interlocked.Increment(ref _yieldedRuns);
}
