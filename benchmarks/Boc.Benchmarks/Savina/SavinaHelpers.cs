using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Boc.Benchmarks.Savina;

/// <summary>
/// Savina's PseudoRandom (SOURCES.md §3): a full-period 16-bit LCG. <see cref="NextLong"/> returns the *new* value,
/// as Savina's Java does ([V]'s C++ port returns the old one; that shift is deliberately not copied).
/// </summary>
public sealed class PseudoRandom(long seed = 74755)
{
    private long _value = seed;

    public long NextLong()
    {
        _value = ((_value * 1309) + 13849) & 65535;
        return _value;
    }

    public int NextInt() => (int)NextLong();

    public int NextInt(int exclusiveMax) => NextInt() % exclusiveMax;

    public double NextDouble() => 1.0 / (NextLong() + 1);
}

/// <summary>The shared Savina helpers of SOURCES.md §3.</summary>
public static class SavinaHelpers
{
    /// <summary>Savina's busyWait(limit): burns CPU by drawing <paramref name="limit"/> random numbers.</summary>
    public static long BusyWait(int limit, PseudoRandom random)
    {
        long test = 0;
        for (int k = 0; k < limit; k++)
        {
            random.NextLong();
            test++;
        }

        return test;
    }

    /// <summary>Savina's processItem(cur, cost) (Bounded Buffer).</summary>
    public static double ProcessItem(double current, int cost)
    {
        double result = current;
        var random = new PseudoRandom(cost);
        if (cost > 0)
        {
            for (int i = 0; i < cost; i++)
            {
                for (int j = 0; j < 100; j++)
                {
                    result += Math.Log(Math.Abs(random.NextDouble()) + 0.01);
                }
            }
        }
        else
        {
            result += Math.Log(Math.Abs(random.NextDouble()) + 0.01);
        }

        return result;
    }

    /// <summary>Savina's performComputation(theta) (Fork-Join): the throw defeats dead-code elimination.</summary>
    /// <remarks>
    /// Never inlined: every caller passes the constant 37.2, and once inlined the JIT folds Math.Sin of a constant, so a
    /// handler whose tier-1 code inlined it computed nothing while another that called it computed a sine per message
    /// (the Channels Fork-Join handlers did the former, Boc's the latter;
    /// docs/performance/decisions.md#same-work-on-every-substrate).
    /// </remarks>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static double PerformComputation(double theta)
    {
        double sine = Math.Sin(theta);
        double result = sine * sine;
        if (result <= 0)
        {
            throw new InvalidOperationException("Benchmark exited with unrealistic result: " + result);
        }

        return result;
    }

    /// <summary>The Trapezoid integrand: sin(x^3 - 1) / (x + 1) * sqrt(1 + exp(sqrt(2x))).</summary>
    public static double Fx(double x)
    {
        double a = Math.Sin((x * x * x) - 1);
        double b = x + 1;
        double c = a / b;
        double d = Math.Sqrt(1 + Math.Exp(Math.Sqrt(2 * x)));
        return c * d;
    }

    /// <summary>
    /// Verona's busy_loop(usec): spins on the wall clock (it does not sleep), in 10 µs chunks plus the remainder.
    /// </summary>
    public static void BusyLoop(int microseconds)
    {
        for (int chunk = 0; chunk < microseconds / 10; chunk++)
        {
            SpinFor(10);
        }

        SpinFor(microseconds % 10);

        static void SpinFor(int us)
        {
            long end = Stopwatch.GetTimestamp() + (us * Stopwatch.Frequency / 1_000_000);
            while (Stopwatch.GetTimestamp() < end)
            {
            }
        }
    }
}
