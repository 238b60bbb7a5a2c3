namespace Boc.Tests;

/// <summary>A linearizable logical clock: every tick is unique and totally ordered across threads.</summary>
internal sealed class LogicalClock
{
    private long _now;

    public long Tick() => Interlocked.Increment(ref _now);
}

/// <summary>
/// One behaviour's use of one cown, stamped with the logical clock: when its <c>When</c> call began and returned, and
/// when its body started and ended.
/// </summary>
internal readonly record struct Access(int Behaviour, int Cown, bool Writes, long SpawnStart, long SpawnEnd, long Start, long End);

/// <summary>
/// Checks recorded accesses against the BoC guarantees:
/// exclusivity (no two conflicting bodies overlap on a cown; two accesses conflict unless both only read) and
/// happens-before (if b1's When returned before b2's When began, and they conflict on a cown, b1's body ended before
/// b2's started). Spawns whose When calls overlapped in time have no known order, so only exclusivity applies to them.
/// Both checks are sweeps, O(n log n) per cown.
/// </summary>
internal static class Oracle
{
    public static List<string> Check(IEnumerable<Access> accesses, int maxReports = 10)
    {
        var violations = new List<string>();
        foreach (IGrouping<int, Access> perCown in accesses.GroupBy(a => a.Cown))
        {
            Access[] all = perCown.ToArray();
            CheckExclusive(all, violations);
            CheckOrdered(all, violations);
            if (violations.Count >= maxReports)
            {
                break;
            }
        }

        return violations;
    }

    private static void CheckExclusive(Access[] accesses, List<string> violations)
    {
        // In order of start: an access must start after every earlier-started access it conflicts with has ended.
        Access[] byStart = accesses.OrderBy(a => a.Start).ToArray();
        Access? lastEndingWriter = null;
        Access? lastEnding = null;
        foreach (Access a in byStart)
        {
            Access? blocker = a.Writes ? lastEnding : lastEndingWriter;
            if (blocker is { } b && b.End > a.Start)
            {
                violations.Add($"cown {a.Cown}: behaviour {a.Behaviour} ({Mode(a)}) started at {a.Start} while behaviour {b.Behaviour} ({Mode(b)}) ran until {b.End}");
            }

            if (lastEnding is null || a.End > lastEnding.Value.End)
            {
                lastEnding = a;
            }

            if (a.Writes && (lastEndingWriter is null || a.End > lastEndingWriter.Value.End))
            {
                lastEndingWriter = a;
            }
        }
    }

    private static void CheckOrdered(Access[] accesses, List<string> violations)
    {
        // For each access a2 (by spawn start), every access a1 whose When returned before a2's began must have ended
        // before a2 started, if they conflict.
        Access[] bySpawnEnd = accesses.OrderBy(a => a.SpawnEnd).ToArray();
        Access[] bySpawnStart = accesses.OrderBy(a => a.SpawnStart).ToArray();
        int next = 0;
        Access? latestAll = null;
        Access? latestWriter = null;
        foreach (Access a2 in bySpawnStart)
        {
            while (next < bySpawnEnd.Length && bySpawnEnd[next].SpawnEnd < a2.SpawnStart)
            {
                Access a1 = bySpawnEnd[next++];
                if (latestAll is null || a1.End > latestAll.Value.End)
                {
                    latestAll = a1;
                }

                if (a1.Writes && (latestWriter is null || a1.End > latestWriter.Value.End))
                {
                    latestWriter = a1;
                }
            }

            Access? must = a2.Writes ? latestAll : latestWriter;
            if (must is { } a1b && a1b.End > a2.Start)
            {
                violations.Add($"cown {a2.Cown}: behaviour {a1b.Behaviour} ({Mode(a1b)}) was spawned first but ended at {a1b.End}, after behaviour {a2.Behaviour} ({Mode(a2)}) started at {a2.Start}");
            }
        }
    }

    private static string Mode(Access a) => a.Writes ? "write" : "read";
}

/// <summary>A task under test made no progress within <see cref="Progress.Limit"/> (a hang, not a slow machine).</summary>
internal sealed class NoProgressException(string message) : Exception(message);

/// <summary>Fails a test that stops making progress, instead of hanging the run. Not a timing assertion.</summary>
internal static class Progress
{
    public static readonly TimeSpan Limit = TimeSpan.FromSeconds(60);

    public static Task Guard(this Task task) => task.WaitAsync(Limit);

    public static Task<T> Guard<T>(this Task<T> task) => task.WaitAsync(Limit);

    public static Task Guard(this ValueTask task) => task.AsTask().WaitAsync(Limit);

    public static Task<T> Guard<T>(this ValueTask<T> task) => task.AsTask().WaitAsync(Limit);

    /// <summary>
    /// <see cref="Guard(Task)"/> for a task whose expected outcome is itself a <see cref="TimeoutException"/>: a task
    /// that makes no progress fails with <see cref="NoProgressException"/> instead, which no such assertion accepts.
    /// </summary>
    public static async Task GuardTimeout(this Task task)
    {
        if (await Task.WhenAny(task, Task.Delay(Limit)) != task)
        {
            throw new NoProgressException($"The task made no progress within {Limit.TotalSeconds} s.");
        }

        await task;
    }

    /// <summary>
    /// Disposes <paramref name="runtime"/> at the end of a scope with a bounded drain: <c>await using</c> on the runtime
    /// itself would wait forever for a deadlocked program (the very bug a stress test looks for) and hang the run.
    /// </summary>
    public static BoundedDrain DrainOnExit(this BocRuntime runtime) => new(runtime);

    internal readonly struct BoundedDrain(BocRuntime runtime) : IAsyncDisposable
    {
        public async ValueTask DisposeAsync()
        {
            using var limit = new CancellationTokenSource(Limit);
            try
            {
                await runtime.ShutdownAsync(limit.Token);
            }
            catch (BocShutdownCanceledException e)
            {
                throw new TimeoutException($"The runtime did not drain within {Limit.TotalSeconds} s: {e.PendingBehaviours} behaviours still pending (a deadlock?).", e);
            }
        }
    }
}
