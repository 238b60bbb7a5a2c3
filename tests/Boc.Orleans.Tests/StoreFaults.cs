using Boc.Orleans.Grains;
using Orleans.Storage;

namespace Boc.Orleans.Tests;

/// <summary>
/// Faults armed by a test on chosen writes of <see cref="ProcessGrainStorage"/>: a write that stalls and then fails, one
/// that stalls and lands, one whose caller times out while the write still lands later (the ambiguous write), one
/// held until the test lets it go (a paused silo's write in flight), and one held until the test lets it fail. Each fault matches its first write only, by the
/// grain and a predicate on the record being written, and tells the test when it was hit.
/// </summary>
internal static class StoreFaults
{
    private static readonly List<WriteFault> s_armed = [];

    /// <summary>Matches a coordinator's commit write: a ledger record with a commit record in it.</summary>
    public static bool HasCommit(object record) => record is CownRecord<LedgerAccount> { Commits.Length: > 0 };

    public static WriteFault Arm(GrainId grain, Func<object, bool> match, FaultKind kind, TimeSpan delay)
    {
        var fault = new WriteFault(grain, match, kind, delay);
        lock (s_armed)
        {
            s_armed.Add(fault);
        }

        return fault;
    }

    public static void Disarm(WriteFault fault)
    {
        lock (s_armed)
        {
            s_armed.Remove(fault);
        }
    }

    /// <summary>Performs a write through the first matching fault (which is used up), or directly.</summary>
    public static async Task Apply(GrainId grain, object record, Action land)
    {
        WriteFault? fault;
        lock (s_armed)
        {
            fault = s_armed.Find(f => f.Grain == grain && f.Match(record));
            if (fault is not null)
            {
                s_armed.Remove(fault);
            }
        }

        if (fault is null)
        {
            land();
            return;
        }

        fault.Hit.TrySetResult();
        switch (fault.Kind)
        {
            case FaultKind.StallThenFail:
                await Task.Delay(fault.Delay);
                fault.Outcome.TrySetResult("failed");
                throw new TimeoutException("test fault: the write stalled and failed");
            case FaultKind.StallThenLand:
                await Task.Delay(fault.Delay);
                land();
                fault.Outcome.TrySetResult("landed");
                return;
            case FaultKind.HoldThenFail:
                await fault.Released.Task;
                fault.Outcome.TrySetResult("failed");
                throw new TimeoutException("test fault: the write was held and failed");
            case FaultKind.TimeOutButLand:
                _ = LandLater(fault, land);
                await Task.Delay(fault.Delay / 2);
                throw new TimeoutException("test fault: the write timed out (it will still land)");
            default:
                // Held until the test releases it: a write in flight from a silo that stopped.
                await fault.Released.Task;
                try
                {
                    land();
                    fault.Outcome.TrySetResult("landed");
                }
                catch (InconsistentStateException)
                {
                    fault.Outcome.TrySetResult("rejected");
                    throw;
                }

                return;
        }
    }

    private static async Task LandLater(WriteFault fault, Action land)
    {
        await Task.Delay(fault.Delay);
        try
        {
            land();
            fault.Outcome.TrySetResult("landed");
        }
        catch (InconsistentStateException)
        {
            fault.Outcome.TrySetResult("rejected");
        }
    }
}

internal enum FaultKind
{
    StallThenFail,
    StallThenLand,
    TimeOutButLand,
    Hold,
    HoldThenFail,
}

internal sealed class WriteFault(GrainId grain, Func<object, bool> match, FaultKind kind, TimeSpan delay)
{
    public GrainId Grain { get; } = grain;

    public Func<object, bool> Match { get; } = match;

    public FaultKind Kind { get; } = kind;

    public TimeSpan Delay { get; } = delay;

    /// <summary>Completes when a write matched.</summary>
    public TaskCompletionSource Hit { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    /// <summary>What became of the write: failed, landed, or rejected (its ETag was fenced).</summary>
    public TaskCompletionSource<string> Outcome { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

    public TaskCompletionSource Released { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);
}
