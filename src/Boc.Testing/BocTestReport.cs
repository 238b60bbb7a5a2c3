namespace Boc.Testing;

/// <summary>What an exploration that found no failure covered.</summary>
public sealed class BocTestReport
{
    internal BocTestReport(int iterations, long totalSteps, int longestRun)
    {
        Iterations = iterations;
        TotalSteps = totalSteps;
        LongestRun = longestRun;
    }

    /// <summary>Gets how many schedules ran.</summary>
    public int Iterations { get; }

    /// <summary>Gets the number of steps over all runs.</summary>
    public long TotalSteps { get; }

    /// <summary>Gets the most steps one run took.</summary>
    public int LongestRun { get; }
}
