using System.Globalization;
using System.Text;

namespace Boc.Testing;

/// <summary>
/// A controlled run failed. The message names the strategy and seed that reproduce it with
/// <see cref="BocTest.Replay(BocTestStrategy, int, Func{BocRuntime, Task}, BocTestOptions?)"/>, and prints the schedule.
/// </summary>
public sealed class BocTestFailureException : Exception
{
    /// <summary>The most trace lines the message prints (the last ones); <see cref="Trace"/> has them all.</summary>
    public const int MaxTraceLinesInMessage = 200;

    internal BocTestFailureException(BocTestFailureKind kind, BocTestRun run, int iteration, Exception? cause)
        : base(Describe(kind, run, iteration, cause), cause)
    {
        Kind = kind;
        Run = run;
        Iteration = iteration;
    }

    /// <summary>Gets why the run failed.</summary>
    public BocTestFailureKind Kind { get; }

    /// <summary>Gets the failing run: its strategy, seed and schedule.</summary>
    public BocTestRun Run { get; }

    /// <summary>Gets the strategy that reproduces the failure.</summary>
    public BocTestStrategy Strategy => Run.Strategy;

    /// <summary>Gets the seed that reproduces the failure.</summary>
    public int Seed => Run.Seed;

    /// <summary>Gets the failing schedule (see <see cref="BocTestRun.Trace"/>).</summary>
    public IReadOnlyList<string> Trace => Run.Trace;

    /// <summary>Gets the 0-based iteration of the exploration that failed (0 for a replay).</summary>
    public int Iteration { get; }

    private static string Describe(BocTestFailureKind kind, BocTestRun run, int iteration, Exception? cause)
    {
        var text = new StringBuilder();
        text.Append(CultureInfo.InvariantCulture, $"Boc.Testing: {kind} in iteration {iteration}, strategy {run.Strategy}, seed {run.Seed}.");
        if (cause is not null)
        {
            text.AppendLine().Append(cause.GetType().Name).Append(": ").Append(cause.Message);
        }

        text.AppendLine()
            .Append(CultureInfo.InvariantCulture, $"Replay: BocTest.Replay({run.Strategy.ToCode()}, seed: {run.Seed}, scenario)")
            .AppendLine()
            .Append(CultureInfo.InvariantCulture, $"Schedule ({run.Trace.Count} steps):");
        int first = Math.Max(0, run.Trace.Count - MaxTraceLinesInMessage);
        if (first > 0)
        {
            text.AppendLine().Append(CultureInfo.InvariantCulture, $"  … {first} earlier steps (see Trace)");
        }

        for (int i = first; i < run.Trace.Count; i++)
        {
            text.AppendLine().Append("  ").Append(run.Trace[i]);
        }

        return text.ToString();
    }
}
