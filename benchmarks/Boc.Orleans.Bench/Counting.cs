using Orleans.Storage;

namespace Boc.Orleans.Bench;

/// <summary>
/// What each system costs per transfer, independent of timing: incoming grain calls (every grain the silos host, one-way
/// calls and grain extensions included; system targets not) and storage writes. The silos of the benchmark's test
/// cluster share this process, so the counts are process-wide.
/// </summary>
internal static class Counting
{
    private static long s_calls;
    private static long s_writes;

    public static long Calls => Interlocked.Read(ref s_calls);

    public static long Writes => Interlocked.Read(ref s_writes);

    public static void CountCall() => Interlocked.Increment(ref s_calls);

    public static void CountWrite() => Interlocked.Increment(ref s_writes);
}

/// <summary>Counts every grain call the silo receives (<see cref="Counting"/>).</summary>
internal sealed class CallCounter : IIncomingGrainCallFilter
{
    public Task Invoke(IIncomingGrainCallContext context)
    {
        Counting.CountCall();
        return context.Invoke();
    }
}

/// <summary>A grain storage that counts writes (<see cref="Counting"/>) and passes everything to the real one.</summary>
internal sealed class WriteCounter(IGrainStorage inner) : IGrainStorage
{
    public Task ReadStateAsync<T>(string stateName, GrainId grainId, IGrainState<T> grainState) => inner.ReadStateAsync(stateName, grainId, grainState);

    public Task WriteStateAsync<T>(string stateName, GrainId grainId, IGrainState<T> grainState)
    {
        Counting.CountWrite();
        return inner.WriteStateAsync(stateName, grainId, grainState);
    }

    public Task ClearStateAsync<T>(string stateName, GrainId grainId, IGrainState<T> grainState) => inner.ClearStateAsync(stateName, grainId, grainState);
}
