using System.Diagnostics;

namespace Boc.Benchmarks;

/// <summary>
/// For the probes in <c>eng/</c> that time runs in a plain process: makes sure the process runs as the BenchmarkDotNet
/// jobs do (SavinaConfig), without tiered compilation's call-counting delay.
/// </summary>
/// <remarks>
/// With the delay, which restarts whenever anything is jitted, a run of a few milliseconds stays in tier-0 code for
/// dozens of rounds (Cigarette Smokers actor: 7-9 ms instead of 2.3). The variable must be set before the runtime
/// starts, so a process without it runs itself again with it.
/// </remarks>
public static class SteadyStateProcess
{
    private const string CallCountingDelay = "DOTNET_TC_CallCountingDelayMs";

    /// <summary>
    /// If the call-counting delay is not off in this process, runs the same program again with it off, waits for it and
    /// returns its exit code; otherwise returns null, and the caller goes on.
    /// </summary>
    /// <param name="args">The program's arguments, passed on unchanged.</param>
    public static int? RunAgainWithoutCallCountingDelay(string[] args)
    {
        ArgumentNullException.ThrowIfNull(args);
        if (Environment.GetEnvironmentVariable(CallCountingDelay) is not null)
        {
            return null;
        }

        var again = new ProcessStartInfo(Environment.ProcessPath!) { UseShellExecute = false };
        if (Path.GetFileNameWithoutExtension(Environment.ProcessPath) == "dotnet")
        {
            again.ArgumentList.Add(Environment.GetCommandLineArgs()[0]);
        }

        foreach (string arg in args)
        {
            again.ArgumentList.Add(arg);
        }

        again.Environment[CallCountingDelay] = "0";
        using Process child = Process.Start(again)!;
        child.WaitForExit();
        return child.ExitCode;
    }
}
