using StackExchange.Redis;

namespace Boc.Orleans.FaultTests.Node;

/// <summary>
/// The control channel between the fault tests and their processes, in Redis beside the data: storage faults armed by
/// the test and used up by the first matching write of a silo, markers that bodies set for the exclusivity oracle, and
/// gates that hold bodies. Keys are prefixed by the cluster id, so runs sharing a Redis server do not meet.
/// </summary>
public static class Faults
{
    /// <summary>What an armed fault does to the first write of the cown it names.</summary>
    public enum Kind
    {
        /// <summary>Waits, then fails: nothing reaches storage.</summary>
        StallThenFail,

        /// <summary>Fails after half the delay, and the write reaches storage at the full delay anyway (the ambiguous write).</summary>
        TimeOutButLand,

        /// <summary>Waits until the test releases it, then reaches storage with the ETag it was sent with (a paused silo's write).</summary>
        Hold,

        /// <summary>Only records which process wrote (where the cown's activation lives); the write goes through.</summary>
        Observe,
    }

    public static string Rules(string cluster) => $"{cluster}:faults:rules";

    public static string Hit(string cluster, string rule) => $"{cluster}:faults:hit:{rule}";

    public static string Outcome(string cluster, string rule) => $"{cluster}:faults:outcome:{rule}";

    public static string Release(string cluster, string rule) => $"{cluster}:faults:release:{rule}";

    public static string Inside(string cluster, string key) => $"{cluster}:inside:{key}";

    public static string Gate(string cluster, string name) => $"{cluster}:gate:{name}";

    /// <summary>
    /// Arms a fault on the next write of the cown keyed <paramref name="cownKey"/> (with <paramref name="committing"/>:
    /// the next write whose state holds a transfer, i.e. a commit or an apply, not a fence or a flush); returns its id.
    /// </summary>
    public static string Arm(IDatabase db, string cluster, string cownKey, Kind kind, TimeSpan delay, bool committing = false)
    {
        string rule = Guid.NewGuid().ToString("N");
        db.HashSet(Rules(cluster), rule, $"{cownKey}|{kind}|{(long)delay.TotalMilliseconds}{(committing ? "|transfers" : "")}");
        return rule;
    }

    /// <summary>Waits (polling) until <paramref name="key"/> exists, up to <paramref name="timeout"/>; returns its value or null.</summary>
    public static async Task<string?> WaitForAsync(IDatabase db, string key, TimeSpan timeout)
    {
        long deadline = Environment.TickCount64 + (long)timeout.TotalMilliseconds;
        while (Environment.TickCount64 < deadline)
        {
            RedisValue value = await db.StringGetAsync(key);
            if (value.HasValue)
            {
                return value;
            }

            await Task.Delay(50);
        }

        return null;
    }
}
