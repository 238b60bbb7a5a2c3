using System.Diagnostics;
using System.Globalization;

namespace Boc.Orleans.FaultTests;

/// <summary>
/// Waits for a scenario's next step with a budget that stretches with the machine's load, so a slow machine is not
/// reported as a stalled scenario. A budget is what the step may take on an idle machine with room to spare; the clock
/// charged against it runs at 1 / slowdown, where the slowdown is the 1-minute load average over the processors (a
/// runnable thread gets about that share of a processor), re-read at every poll, at least 1 and at most
/// <see cref="MaxSlowdown"/> (so a hang is still reported, after at most that many budgets).
/// </summary>
public static class Patience
{
    public const double MaxSlowdown = 10;

    /// <summary>The slowdown now: the 1-minute load average over the processors, clamped to [1, <see cref="MaxSlowdown"/>].</summary>
    public static double Slowdown
    {
        get
        {
            try
            {
                string first = File.ReadAllText("/proc/loadavg").Split(' ')[0];
                return Math.Clamp(double.Parse(first, CultureInfo.InvariantCulture) / Environment.ProcessorCount, 1, MaxSlowdown);
            }
            catch (IOException)
            {
                return 1;
            }
        }
    }

    /// <summary>The longest a step with <paramref name="budget"/> may take in wall-clock time (for an API that wants one bound).</summary>
    public static TimeSpan Ceiling(TimeSpan budget) => budget * MaxSlowdown;

    /// <summary>
    /// Polls <paramref name="poll"/> until it returns a value, every <paramref name="interval"/> (100 ms by default);
    /// fails with <paramref name="what"/> once the load-scaled clock has spent <paramref name="budget"/>.
    /// </summary>
    public static async Task<T> UntilAsync<T>(Func<Task<T?>> poll, TimeSpan budget, Func<string> what, TimeSpan? interval = null)
        where T : class
    {
        var wall = Stopwatch.StartNew();
        TimeSpan last = TimeSpan.Zero, spent = TimeSpan.Zero;
        while (true)
        {
            if (await poll() is { } value)
            {
                return value;
            }

            TimeSpan now = wall.Elapsed;
            spent += (now - last) / Slowdown;
            last = now;
            if (spent > budget)
            {
                throw new TimeoutException($"{what()} (budget {budget.TotalSeconds:F0} s scaled by the load: {now.TotalSeconds:F0} s wall, load {Slowdown:F1} per processor now)");
            }

            await Task.Delay(interval ?? TimeSpan.FromMilliseconds(100));
        }
    }

    /// <summary>Waits for <paramref name="task"/> under a load-scaled <paramref name="budget"/>.</summary>
    public static async Task WaitAsync(Task task, TimeSpan budget, Func<string> what)
    {
        await UntilAsync(() => Task.FromResult(task.IsCompleted ? task : null), budget, what);
        await task;
    }
}
