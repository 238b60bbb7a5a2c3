using System.Diagnostics;

namespace Boc.Diagnostics;

/// <summary>
/// A 32-bit microsecond clock for the spawn-to-start histogram: small enough to fit in the padding of every behaviour.
/// It wraps after about 71 minutes; differences are taken modulo 2^32, so waits shorter than that are exact.
/// </summary>
internal static class SpawnClock
{
    private static readonly double s_microsecondsPerTick = 1_000_000.0 / Stopwatch.Frequency;

    /// <summary>Now, in microseconds modulo 2^32, never 0 (0 means "not stamped").</summary>
    internal static uint NowMicros()
    {
        uint now = unchecked((uint)(ulong)(Stopwatch.GetTimestamp() * s_microsecondsPerTick));
        return now == 0 ? 1 : now;
    }

    /// <summary>Milliseconds since <paramref name="stamp"/>, taken with <see cref="NowMicros"/>.</summary>
    internal static double MillisecondsSince(uint stamp) => unchecked(NowMicros() - stamp) / 1000.0;
}
