using System.Diagnostics;
using System.Net.Sockets;
using System.Text.RegularExpressions;
using Xunit.Abstractions;

namespace Samples.Tests;

/// <summary>
/// The distributed sample runs with one command and nothing installed: with <c>--redis local</c> (what it does by itself
/// when no Redis answers on localhost:6379) it starts a local store of its own (Garnet, from NuGet), two silo processes
/// and a client, exits 0 only if the total was conserved and every transfer counted, and leaves nothing running.
/// </summary>
public sealed partial class DistributedBankTests(ITestOutputHelper output)
{
    // A hang guard only: the run takes seconds.
    private static readonly TimeSpan Limit = TimeSpan.FromMinutes(5);

    [Fact]
    public async Task The_distributed_sample_runs_on_a_local_store_of_its_own_and_leaves_nothing_running()
    {
        string here = AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar);
        string sep = Path.DirectorySeparatorChar.ToString();
        string dll = Path.Combine(here.Replace($"{sep}tests{sep}Samples.Tests{sep}", $"{sep}samples{sep}DistributedBank{sep}", StringComparison.Ordinal), "DistributedBank.dll");
        Assert.True(File.Exists(dll), $"the sample's build is not at {dll}");
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (string argument in (string[])[dll, "--redis", "local"])
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

        string printed = await stdout;
        output.WriteLine(printed);
        output.WriteLine(await stderr);
        Assert.Equal(0, process.ExitCode);
        Assert.Contains("total 100000 (expected 100000); transfers counted 1000 (expected 1000)", printed, StringComparison.Ordinal);

        // The store it started is gone: nothing answers on its port any more.
        Match store = StoreLine().Match(printed);
        Assert.True(store.Success, "the sample did not say which local store it started");
        using var client = new TcpClient();
        await Assert.ThrowsAnyAsync<SocketException>(() => client.ConnectAsync("127.0.0.1", int.Parse(store.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture)));
    }

    [GeneratedRegex(@"started a local store .* at 127\.0\.0\.1:(\d+)", RegexOptions.IgnoreCase)]
    private static partial Regex StoreLine();
}
