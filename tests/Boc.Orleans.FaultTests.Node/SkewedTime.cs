namespace Boc.Orleans.FaultTests.Node;

/// <summary>
/// A wall clock <see cref="Skew"/> ahead of the machine's (behind if negative), for one silo's cowns: a scenario's
/// clock skew without touching the machine clock. Timestamps (the monotonic clock) are the machine's own.
/// </summary>
internal sealed class SkewedTime(TimeSpan skew) : TimeProvider
{
    public TimeSpan Skew { get; } = skew;

    public override DateTimeOffset GetUtcNow() => base.GetUtcNow() + Skew;
}
