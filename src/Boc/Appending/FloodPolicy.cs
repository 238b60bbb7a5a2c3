using System.Diagnostics;

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
    /// still filling (<c>Behaviour.Appending.cs</c>, "Holding a filling tail"): long enough for a body that floods a
    /// cown to append several bodies (docs/performance/decisions.md, "Holding a filling tail", has the interval and the
    /// count on the benchmark machine). A shorter interval ends the hold on a spawner's brief stall; a longer one makes
    /// the runner wait longer for a spawner that has finished.
    /// </summary>
    internal const int PollSpins = 50;

    /// <summary>
    /// How long, in milliseconds, a behaviour may run appended bodies before it offers its worker to waiting work
    /// between two of them (<c>AppendableBehaviour.cs</c>, "Yielding"); see <see cref="SliceMilliseconds"/>.
    /// </summary>
    internal const int DefaultSliceMilliseconds = 10;

    /// <summary>
    /// How long, in microseconds, a behaviour may run appended bodies while work from outside the workers waits in the
    /// inbox, before it hands its worker over between two bodies (<c>AppendableBehaviour.cs</c>, "Yielding"): a request
    /// arriving during a flood waits about this long, not for the flood's behaviours of up to 32 bodies each to finish.
    /// Long enough that a flood of cheap bodies (tens of nanoseconds each: a whole behaviour of 32 takes a few
    /// microseconds) never yields, which would cut its batches short while its producer is still filling them.
    /// </summary>
    internal const int InboxSliceMicroseconds = 100;

    /// <summary>
    /// A run of appended bodies checks after every this many of them (after the 8th, 16th and 24th) whether one of its
    /// slices is over while work waits: often enough that waiting work gets the worker within a few bodies past the
    /// slice; a run whose first bodies went fast checks no more (two timestamp reads in all).
    /// </summary>
    internal const int CheckEvery = 8;

    // Counted on the rare path only (a yield follows at least a slice of running).
    private long _yieldedRuns;

    /// <summary>
    /// Gets or sets how long, in milliseconds, a behaviour may run appended bodies on the scheduler's workers before it
    /// offers its worker to any waiting work (<see cref="DefaultSliceMilliseconds"/>). Settable for tests: 0 makes every
    /// check that finds other work waiting yield.
    /// </summary>
    internal int SliceMilliseconds
    {
        get => (int)(SliceTicks * 1000 / Stopwatch.Frequency);
        set => SliceTicks = value * Stopwatch.Frequency / 1000;
    }

    /// <summary>Gets <see cref="SliceMilliseconds"/> in <see cref="Stopwatch"/> ticks.</summary>
    internal long SliceTicks { get; private set; } = DefaultSliceMilliseconds * Stopwatch.Frequency / 1000;

    /// <summary>
    /// Gets or sets <see cref="InboxSliceMicroseconds"/> in <see cref="Stopwatch"/> ticks (settable for tests: 0 makes
    /// every check that finds the inbox with work yield).
    /// </summary>
    internal long InboxSliceTicks { get; set; } = InboxSliceMicroseconds * Stopwatch.Frequency / 1_000_000;

    /// <summary>Gets how many times a run of appended bodies has yielded on the scheduler (for tests and probes).</summary>
    internal long YieldedRuns => Atomic.Read(ref _yieldedRuns);

    /// <summary>Test hook: runs on a worker at each poll interval of a hold on a filling tail, before it waits.</summary>
    internal Action? PollHook { get; set; }

    /// <summary>Counts a yielded run (before its rest is queued).</summary>
    internal void CountYield() => Atomic.Increment(ref _yieldedRuns);
}
