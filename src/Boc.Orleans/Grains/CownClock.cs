namespace Boc.Orleans.Grains;

/// <summary>
/// The clock a cown reads, registered by <c>AddBocCowns</c> (the system clock) unless a silo registered its own first:
/// the fault tests give one silo a skewed wall clock this way, without touching the machine's, to show that nothing
/// depends on it.
/// </summary>
internal sealed class CownClock(TimeProvider time)
{
    public static CownClock System { get; } = new(TimeProvider.System);

    public TimeProvider Time { get; } = time;

    /// <summary>The wall clock: stamped on commit records, for operators only (no decision reads it).</summary>
    public DateTime UtcNow => Time.GetUtcNow().UtcDateTime;

    /// <summary>The monotonic clock, in milliseconds: what retention is measured on. Skew between machines cannot move it.</summary>
    public long Milliseconds => Time.GetTimestamp() * 1000 / Time.TimestampFrequency;
}
