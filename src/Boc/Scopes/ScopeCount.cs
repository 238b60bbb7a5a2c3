using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace Boc;

/// <summary>
/// A scope's finish count ("The finish count" in Scopes/BocScope.Members.cs): monotonic counts of members counted in
/// and counted out. A mutable struct, kept inside its <see cref="BocScope"/> (never copied), so that a scope whose
/// members are counted from one thread at a time allocates nothing for it.
/// </summary>
/// <remarks>
/// <para>
/// Where the counts live. First in the two inline counters, each bumped with one compare-and-swap. The first time a
/// swap fails, two threads met on the line; from then on every count goes to a stripe chosen by the processor the
/// thread runs on, each stripe on cache lines of its own and created on first use, so that a fan-out over many cores
/// does not make every member's spawn and completion write one line. A request's scope (a member or two, counted from
/// the request's thread and a worker, rarely at the same instant) never leaves the inline counters.
/// </para>
/// <para>
/// Why the sums are sound wherever a count went: every location (the inline pair, each stripe) holds counts that only
/// grow. <see cref="Drained"/> reads every finished count, then every spawned count; let t be the moment between the two
/// passes. Each finished count read is at most its value at t, each spawned count at least its value at t, and a member
/// is counted in (an interlocked step, before its enqueue) before anything can count it out. So finished(t) ≤
/// spawned(t), and equal sums prove that at t nothing was counted in and not out. A stripe array created during a read
/// starts at zero: skipped by the finished pass it reads as zero, and the spawned pass reads every stripe that exists
/// when it starts. Every step is interlocked (a full fence), so the Dekker pairs of "Finish" (count, then read the
/// closed flag) hold at every location.
/// </para>
/// </remarks>
internal struct ScopeCount
{
    // Stripes: a power of two at least the processor count, so that a processor's stripe is its id masked.
    private static readonly int StripeCount = (int)System.Numerics.BitOperations.RoundUpToPowerOf2((uint)Math.Max(1, Environment.ProcessorCount));

    private long _spawned;
    private long _finished;

    // Created the first time two threads meet on the inline counters; every count goes to a stripe from then on.
    private Stripe?[]? _stripes;

    /// <summary>Counts one member (or child scope) in.</summary>
    public void CountIn()
    {
        if (Atomic.Read(ref _stripes) is null && TryBump(ref _spawned))
        {
            return;
        }

        Atomic.Increment(ref StripeHere().Spawned);
    }

    /// <summary>Counts one member (or child scope) out.</summary>
    public void CountOut()
    {
        if (Atomic.Read(ref _stripes) is null && TryBump(ref _finished))
        {
            return;
        }

        Atomic.Increment(ref StripeHere().Finished);
    }

    /// <summary>Whether nothing was counted in and not out at some moment during the call (see the remarks).</summary>
    public readonly bool Drained()
    {
        (long finished, long spawned) = Read();
        return finished == spawned;
    }

    /// <summary>Gets about how many members are counted in and not out (a snapshot, never negative).</summary>
    public readonly long Estimate()
    {
        (long finished, long spawned) = Read();
        return Math.Max(0, spawned - finished);
    }

    private readonly (long Finished, long Spawned) Read()
    {
        long finished = Atomic.Read(in _finished);
        Stripe?[]? stripes = Atomic.Read(in _stripes);
        if (stripes is not null)
        {
            foreach (Stripe? stripe in stripes)
            {
                if (stripe is not null)
                {
                    finished += Atomic.Read(ref stripe.Finished);
                }
            }
        }

        long spawned = Atomic.Read(in _spawned);
        stripes = Atomic.Read(in _stripes);
        if (stripes is not null)
        {
            foreach (Stripe? stripe in stripes)
            {
                if (stripe is not null)
                {
                    spawned += Atomic.Read(ref stripe.Spawned);
                }
            }
        }

        // The sums' argument: every finished count read is at most its value between the passes, every spawned count
        // at least its value there, and nothing is counted out before it was counted in.
        Debug.Assert(finished <= spawned, "Boc error: more counted out than in.");
        return (finished, spawned);
    }

    /// <summary>One compare-and-swap on an inline counter; false if another thread changed it meanwhile.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool TryBump(ref long counter)
    {
        long value = Atomic.Read(ref counter);
        return Atomic.CompareExchange(ref counter, value + 1, value) == value;
    }

    /// <summary>The calling processor's stripe, creating the stripes (and it) on first use.</summary>
    private Stripe StripeHere()
    {
        Stripe?[] stripes = Atomic.Read(ref _stripes) ?? CreateStripes();
        int index = Atomic.CurrentProcessorId() & (StripeCount - 1);
        return Atomic.Read(ref stripes[index]) ?? CreateStripe(stripes, index);
    }

    private Stripe?[] CreateStripes()
    {
        var created = new Stripe?[StripeCount];
        return Atomic.CompareExchange(ref _stripes, created, null) ?? created;
    }

    private static Stripe CreateStripe(Stripe?[] stripes, int index)
    {
        var created = new Stripe();
        return Atomic.CompareExchange(ref stripes[index], created, null) ?? created;
    }

    /// <summary>
    /// One processor's counts. Its fields sit 64 bytes into an object of 144, so the fields of two stripes (written from
    /// two processors) are never on one cache line, wherever the GC puts them.
    /// </summary>
    [StructLayout(LayoutKind.Explicit)]
    private sealed class Stripe
    {
        [FieldOffset(64)]
        public long Spawned;

        [FieldOffset(72)]
        public long Finished;

        // Never used: only makes the object long enough that its counters have a line of their own.
        [FieldOffset(136)]
        public long Padding;
    }
}
