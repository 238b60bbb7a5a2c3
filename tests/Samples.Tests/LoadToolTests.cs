using System.Diagnostics;
using Xunit.Abstractions;

namespace Samples.Tests;

/// <summary>
/// The seat-booking load generator (benchmarks/SeatBooking.Load) at a tiny size, so that the tool behind the published
/// service numbers keeps working: every implementation, uniform and contended, in process and with the service in a
/// process of its own. It exits non-zero if any response was wrong or any audit failed; its rows are checked here too,
/// and so is the service's JIT count, which the warm-up follows.
/// No numbers are asserted: speed belongs in the benchmark.
/// </summary>
public sealed class LoadToolTests(ITestOutputHelper output)
{
    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(3);

    public static TheoryData<string, string[]> Runs() => new()
    {
        { "boc,boc-scheduler,lock,channel", ["--in-process"] },
        { "boc,boc-scheduler,lock,channel", ["--in-process", "--contended", "--pricing-us", "5"] },
        { "boc,lock", [] },
    };

    [Theory]
    [MemberData(nameof(Runs))]
    public async Task The_load_tool_checks_every_response_and_audits_every_implementation(string implementations, string[] mode)
    {
        string dll = Path.Combine(AppContext.BaseDirectory, "SeatBooking.Load.dll");
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (string argument in (string[])[dll, "--clients", "4", "--seconds", "0.5", "--warmup", "0.2", "--warmup-max", "0.5", "--runs", "1", "--seed", "7", "--impl", implementations, .. mode])
        {
            start.ArgumentList.Add(argument);
        }

        using Process process = Process.Start(start)!;
        Task<string> stdout = process.StandardOutput.ReadToEndAsync();
        Task<string> stderr = process.StandardError.ReadToEndAsync();
        using var limit = new CancellationTokenSource(Limit);
        try
        {
            await process.WaitForExitAsync(limit.Token);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw;
        }

        string table = await stdout;
        string log = await stderr;
        output.WriteLine(table);
        output.WriteLine(log);
        Assert.Equal(0, process.ExitCode);

        // The warm-up follows the service's JIT: a service in its own process reports its count through the startup hook.
        Assert.Contains("methods compiled while measured", log, StringComparison.Ordinal);
        Assert.DoesNotContain("unknown methods compiled", log, StringComparison.Ordinal);
        string[] rows = table.Split('\n').Where(line => line.StartsWith("| 4 |", StringComparison.Ordinal)).ToArray();
        Assert.Equal(implementations.Split(','), rows.Select(r => r.Split('|')[2].Trim()));
        Assert.All(rows, row => Assert.EndsWith("| consistent |", row.TrimEnd()));
    }
}
