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
        string dll = SampleDll();
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

    [Fact]
    public async Task A_sample_killed_with_SIGKILL_leaves_no_store_or_silo_running()
    {
        if (OperatingSystem.IsWindows())
        {
            return;
        }

        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
        foreach (string argument in (string[])[SampleDll(), "--redis", "local"])
        {
            start.ArgumentList.Add(argument);
        }

        using Process process = Process.Start(start)!;
        _ = process.StandardError.ReadToEndAsync();
        using var limit = new CancellationTokenSource(Limit);
        string? line;
        Match store;
        do
        {
            line = await process.StandardOutput.ReadLineAsync(limit.Token);
            Assert.True(line is not null, "the sample ended before it said which local store it started");
            store = StoreLine().Match(line);
        }
        while (!store.Success);

        int port = int.Parse(store.Groups[1].Value, System.Globalization.CultureInfo.InvariantCulture);
        Assert.True(await PingAsync(port), "the local store does not answer while the sample runs");
        process.Kill();
        await process.WaitForExitAsync(limit.Token);
        _ = process.StandardOutput.ReadToEndAsync();

        // The store and the silos (whose command lines name the store's port) end when the pipes from the sample close,
        // and the sample's reaper kills them; the hang guard fails the test if any is left.
        while (await PingAsync(port) || Survivors(store.Groups[1].Value).Length > 0)
        {
            Assert.False(limit.IsCancellationRequested, $"still running after the sample was killed: {string.Join("; ", Survivors(store.Groups[1].Value))}");
            await Task.Delay(100);
        }
    }

    private static string[] Survivors(string port) =>
        [.. Process.GetProcesses().Select(p => CommandLine(p.Id)).OfType<string>().Where(c => c.Contains("DistributedBank", StringComparison.Ordinal) || c.Contains("Boc.TestStore", StringComparison.Ordinal)).Where(c => c.Contains(port, StringComparison.Ordinal))];

    private static string SampleDll()
    {
        string here = AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar);
        string sep = Path.DirectorySeparatorChar.ToString();
        return Path.Combine(here.Replace($"{sep}tests{sep}Samples.Tests{sep}", $"{sep}samples{sep}DistributedBank{sep}", StringComparison.Ordinal), "DistributedBank.dll");
    }

    private static async Task<bool> PingAsync(int port)
    {
        try
        {
            using var client = new TcpClient();
            await client.ConnectAsync("127.0.0.1", port);
            return true;
        }
        catch (SocketException)
        {
            return false;
        }
    }

    private static string? CommandLine(int pid)
    {
        try
        {
            return File.ReadAllText($"/proc/{pid}/cmdline").Replace('\0', ' ');
        }
        catch (IOException)
        {
            return null;
        }
    }

    [GeneratedRegex(@"started a local store .* at 127\.0\.0\.1:(\d+)", RegexOptions.IgnoreCase)]
    private static partial Regex StoreLine();
}
