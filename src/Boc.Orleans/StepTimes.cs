using System.Diagnostics;

namespace Boc.Orleans;

/// <summary>
/// Where a spawner's attempts spend their time, by protocol step, summed over every spawner of the process: what the
/// distributed benchmark reports as the cost of each commit step. One Stopwatch reading and one interlocked add per step.
/// </summary>
internal static class StepTimes
{
    public const int Enqueue = 0;
    public const int Acquire = 1;
    public const int Body = 2;
    public const int Prepare = 3;
    public const int Commit = 4;
    public const int Finish = 5;

    public static readonly string[] Names = ["enqueue (sequenced, acknowledged)", "schedule and acquire", "body", "prepare and validate", "commit at the coordinator", "apply, release and forget"];

    private static readonly long[] s_ticks = new long[6];
    private static readonly long[] s_counts = new long[6];

    /// <summary>Adds the time since <paramref name="since"/> to <paramref name="step"/> and returns now.</summary>
    public static long Record(int step, long since)
    {
        long now = Stopwatch.GetTimestamp();
        Interlocked.Add(ref s_ticks[step], now - since);
        Interlocked.Increment(ref s_counts[step]);
        return now;
    }

    /// <summary>Mean milliseconds and count per step since the last reset.</summary>
    public static (double MeanMs, long Count)[] Snapshot() =>
        [.. Enumerable.Range(0, 6).Select(i =>
        {
            long count = Interlocked.Read(ref s_counts[i]);
            return (count == 0 ? 0 : Interlocked.Read(ref s_ticks[i]) * 1000.0 / Stopwatch.Frequency / count, count);
        })];

    public static void Reset()
    {
        for (int i = 0; i < 6; i++)
        {
            Interlocked.Exchange(ref s_ticks[i], 0);
            Interlocked.Exchange(ref s_counts[i], 0);
        }
    }
}
