using System.Numerics;
using System.Runtime.InteropServices;

namespace Boc;

/// <summary>
/// How many behaviours a runtime has accepted and how many have finished, kept so that neither a spawn nor a completion
/// writes a cache line that every core writes: each processor counts on a stripe of its own.
/// </summary>
/// <remarks>
/// <para>
/// Why not one counter: a single pending count is written by every spawn and every completion, on every core, so on a
/// flood each of them is a cache miss on that one line. With stripes, a producer thread and the workers each write
/// their own line; the lines are read together only to decide quiescence, and only while someone waits for it.
/// </para>
/// <para>
/// Why two monotonic counts per stripe, not one net count: a behaviour is often counted in on one stripe (its spawner's)
/// and out on another (the worker that ran it). A sum of net counts read stripe by stripe can then see the "out" and miss
/// the "in", or the reverse, and come to zero while work is pending. With monotonic counts, <see cref="IsQuiescent"/>
/// reads every finished count first and every spawned count after. Let t be the moment between the two passes. Each
/// finished count read is at most its value at t, and each spawned count read is at least its value at t; a behaviour
/// is counted as spawned before it can finish (the spawn's increment happens before its enqueue), so
/// finished(t) ≤ spawned(t). If the two sums are equal, then finished(t) = spawned(t): at t nothing was pending.
/// </para>
/// <para>
/// Waking a waiter (see <see cref="BocRuntime"/>): a finisher increments its stripe (an interlocked, fully fenced step)
/// and then reads <see cref="Waiting"/>; a waiter sets <see cref="Waiting"/> (also fenced) and then checks. Either the
/// waiter's check sees the last increment, or the last finisher sees the flag and checks, and because interlocked
/// increments are totally ordered (x64; on ARM64 the runtime's interlocked operations are full barriers) the last
/// finisher's check sees every earlier increment. So a quiescent moment is never missed, and while nobody waits a
/// completion costs one uncontended increment and one read of a line that rarely changes.
/// </para>
/// <para>
/// The stripe is chosen by <see cref="Thread.GetCurrentProcessorId"/>: threads on one core share a line, which that core
/// already owns. Two threads may still meet on a stripe (a thread migrates, or more processors than stripes), hence the
/// interlocked increments; they are uncontended in the common case.
/// </para>
/// </remarks>
internal sealed class PendingCount
{
    private readonly Stripe[] _stripes;
    private readonly int _mask;

    // 1 while a quiescence waiter is registered. Read by every completion, written rarely: its own line.
    private PaddedCounter _waiting;

    public PendingCount()
    {
        int count = (int)BitOperations.RoundUpToPowerOf2((uint)Math.Max(1, Environment.ProcessorCount));
        _stripes = new Stripe[count];
        _mask = count - 1;
    }

    /// <summary>Gets whether a quiescence waiter is registered (see the remarks).</summary>
    public bool Waiting => Volatile.Read(ref _waiting.Value) != 0;

    /// <summary>Counts one accepted behaviour. A full fence (the runtime's disposal check relies on it).</summary>
    public void Spawned() => Interlocked.Increment(ref _stripes[Thread.GetCurrentProcessorId() & _mask].Spawned);

    /// <summary>Counts one finished behaviour; returns whether a waiter is registered (read after the fenced increment).</summary>
    public bool Finished()
    {
        Interlocked.Increment(ref _stripes[Thread.GetCurrentProcessorId() & _mask].Finished);
        return Volatile.Read(ref _waiting.Value) != 0;
    }

    /// <summary>Registers a waiter (or clears the registration). Fenced: the caller checks <see cref="IsQuiescent"/> after.</summary>
    public void SetWaiting(bool waiting) => Interlocked.Exchange(ref _waiting.Value, waiting ? 1 : 0);

    /// <summary>Whether nothing was pending at some moment during the call (see the remarks for why that is sound).</summary>
    public bool IsQuiescent()
    {
        (long finished, long spawned) = Read();
        return finished == spawned;
    }

    /// <summary>Gets about how many behaviours are pending (a snapshot, never negative).</summary>
    public long Estimate()
    {
        (long finished, long spawned) = Read();
        return Math.Max(0, spawned - finished);
    }

    /// <summary>Every finished count, then every spawned count: the order the quiescence argument needs.</summary>
    private (long Finished, long Spawned) Read()
    {
        long finished = 0;
        foreach (ref Stripe stripe in _stripes.AsSpan())
        {
            finished += Volatile.Read(ref stripe.Finished);
        }

        long spawned = 0;
        foreach (ref Stripe stripe in _stripes.AsSpan())
        {
            spawned += Volatile.Read(ref stripe.Spawned);
        }

        return (finished, spawned);
    }

    /// <summary>Two counters that one processor writes, on a cache line of their own (64 bytes of padding before).</summary>
    [StructLayout(LayoutKind.Explicit, Size = 128)]
    private struct Stripe
    {
        [FieldOffset(64)]
        public long Spawned;

        [FieldOffset(72)]
        public long Finished;
    }
}
