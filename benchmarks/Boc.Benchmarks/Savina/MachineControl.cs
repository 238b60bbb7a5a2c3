using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina;

// Machine controls: two workloads with no Boc code in them, measured with the Savina job. On the 2-vCPU benchmark
// machine the same code runs at different speeds from one minute to the next, so a row's spread, or a before/after
// ratio, mixes what the code does with what the machine did meanwhile. Run next to the Savina rows (or as one more
// pair in a before/after run, where both jobs run the same control code), their rows show how much of a difference the
// machine alone makes in that run:
// - Cpu: one thread, integer arithmetic and a 64 KB table (core speed and the first cache levels);
// - Stores: one thread, independent 8-byte stores into a 32 KB array (the core's store path: on this machine it has
//   two speeds, about 1.5x apart, while Cpu stays put, and Thread Ring and Ping Pong follow it;
//   docs/performance/decisions.md#the-machine-has-two-store-speeds);
// - CrossCore: two threads handing a counter back and forth through two cache lines (the latency of moving a line
//   between cores, which Boc's chains and floods pay whenever work changes core).

/// <summary>Machine controls for the Savina job: how fast the machine itself ran (no Boc code).</summary>
[Config(typeof(SavinaConfig))]
public class MachineControl
{
    /// <summary>Steps of <see cref="CpuWork"/> per iteration: about 10 ms on the benchmark machine.</summary>
    public const int CpuSteps = 6_000_000;

    /// <summary>Stores of <see cref="StoreWork"/> per iteration: about 10 ms on the benchmark machine.</summary>
    public const int StoreCount = 12_000_000;

    /// <summary>Entries of <see cref="StoreWork"/>'s array (32 KB): a power of two, so the index is a mask.</summary>
    public const int StoreTableLength = 4096;

    /// <summary>Round trips of <see cref="CrossCorePartner.RoundTrips"/> per iteration: about 10 ms on the benchmark machine.</summary>
    public const int CrossCoreRoundTrips = 50_000;

    private CrossCorePartner _partner = null!;

    [GlobalSetup]
    public void Setup() => _partner = new CrossCorePartner();

    [GlobalCleanup]
    public void Cleanup() => _partner.Dispose();

    [Benchmark]
    public long Cpu() => CpuWork(CpuSteps);

    [Benchmark]
    public long Stores() => StoreWork(StoreCount);

    [Benchmark]
    public long CrossCore() => _partner.RoundTrips(CrossCoreRoundTrips);

    /// <summary>
    /// A dependent chain of <paramref name="steps"/> linear congruential steps, each incrementing one entry of a 64 KB
    /// table; returns a checksum of the table (so nothing can be optimised away).
    /// </summary>
    public static long CpuWork(int steps)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(steps);
        int[] table = new int[16_384];
        uint x = 1;
        for (int i = 0; i < steps; i++)
        {
            x = (x * 1_664_525) + 1_013_904_223;
            table[x >> 18]++;
        }

        long sum = 0;
        for (int i = 0; i < table.Length; i++)
        {
            sum += (long)table[i] * i;
        }

        return sum;
    }

    /// <summary>
    /// <paramref name="count"/> stores of the loop index into a 32 KB array of longs, visiting every entry in a fixed
    /// order with a stride of 17 entries; no store depends on a load, so the loop runs at the speed of the store path.
    /// Returns a checksum of the array (so nothing can be optimised away).
    /// </summary>
    public static long StoreWork(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        long[] table = new long[StoreTableLength];
        for (int i = 0; i < count; i++)
        {
            table[(i * 17) & (StoreTableLength - 1)] = i;
        }

        long sum = 0;
        for (int i = 0; i < table.Length; i++)
        {
            sum += table[i];
        }

        return sum;
    }
}

/// <summary>
/// A thread that answers pings: <see cref="RoundTrips"/> writes 1, 2, … to one cache line and waits for each to be
/// echoed on another, which this thread does. Both sides spin, so each round trip is two cache-line transfers between
/// the cores the two threads run on (or a preemption, if the machine takes one of them away).
/// </summary>
public sealed class CrossCorePartner : IDisposable
{
    private readonly Thread _thread;
    private readonly SemaphoreSlim _start = new(0);
    private readonly SemaphoreSlim _done = new(0);
    private readonly Line _ping = new();
    private readonly Line _pong = new();
    private int _count;
    private volatile bool _stopping;

    public CrossCorePartner()
    {
        _thread = new Thread(Serve) { IsBackground = true, Name = "Cross-core control partner" };
        _thread.Start();
    }

    /// <summary>Makes <paramref name="count"/> round trips; returns the sum of the echoed values (1 + 2 + … + count).</summary>
    public long RoundTrips(int count)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(count);
        ObjectDisposedException.ThrowIf(_stopping, this);
        Volatile.Write(ref _ping.Value, 0);
        Volatile.Write(ref _pong.Value, 0);
        _count = count;
        _start.Release();
        long sum = 0;
        for (int i = 1; i <= count; i++)
        {
            Volatile.Write(ref _ping.Value, i);
            int echoed;
            while ((echoed = Volatile.Read(ref _pong.Value)) != i)
            {
                // Spinning is the measurement; only a partner that never answers would loop here for good.
                Thread.SpinWait(1);
            }

            sum += echoed;
        }

        _done.Wait();
        return sum;
    }

    public void Dispose()
    {
        if (_stopping)
        {
            return;
        }

        _stopping = true;
        _start.Release();
        _thread.Join();
        _start.Dispose();
        _done.Dispose();
    }

    private void Serve()
    {
        while (true)
        {
            _start.Wait();
            if (_stopping)
            {
                return;
            }

            int count = _count;
            for (int i = 1; i <= count; i++)
            {
                while (Volatile.Read(ref _ping.Value) != i)
                {
                    Thread.SpinWait(1);
                }

                Volatile.Write(ref _pong.Value, i);
            }

            _done.Release();
        }
    }

    /// <summary>One counter on a cache line of its own (64 bytes of padding on each side).</summary>
    [System.Runtime.InteropServices.StructLayout(System.Runtime.InteropServices.LayoutKind.Explicit, Size = 136)]
    private sealed class Line
    {
        [System.Runtime.InteropServices.FieldOffset(64)]
        public int Value;
    }
}
