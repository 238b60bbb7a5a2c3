using System.Diagnostics;
using System.Runtime.InteropServices;
using Boc.TestStore;

namespace Boc.Orleans.FaultTests;

/// <summary>
/// One process of a run (a silo, a spawner, a reader), started from Boc.Orleans.FaultTests.Node's build output. The
/// test kills (SIGKILL) and pauses (SIGSTOP, SIGCONT) only the processes it started, by pid. Output goes to a log file
/// beside the run's journals, for the failure message. <see cref="ChildReaper"/> kills it if the test host dies first.
/// </summary>
public sealed partial class NodeProcess : IDisposable
{
    private const int SigKill = 9;
    private const int SigCont = 18;
    private const int SigStop = 19;

    private readonly Process _process;
    private readonly StreamWriter _log;
    private readonly TaskCompletionSource _ready = new(TaskCreationOptions.RunContinuationsAsynchronously);

    private NodeProcess(string name, Process process, string logPath)
    {
        Name = name;
        _process = process;
        LogPath = logPath;
        _log = new StreamWriter(logPath) { AutoFlush = true };
        _process.OutputDataReceived += (_, e) => OnLine(e.Data);
        _process.ErrorDataReceived += (_, e) => OnLine(e.Data);
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();
        ChildReaper.Track(process.Id);
        _process.EnableRaisingEvents = true;
        _process.Exited += (_, _) => ChildReaper.Forget(process.Id);
    }

    public string Name { get; }

    public int Pid => _process.Id;

    public string LogPath { get; }

    public bool Paused { get; private set; }

    /// <summary>A silo's gateway port (0 for other processes).</summary>
    public int GatewayPort { get; init; }

    public bool HasExited => _process.HasExited;

    public static NodeProcess Start(string name, string directory, IEnumerable<string> args, int gatewayPort = 0)
    {
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(NodeDll);
        foreach (string arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        start.Environment["DOTNET_gcServer"] = "0";
        start.Environment["DOTNET_TieredPGO"] = "0";
        return new NodeProcess(name, Process.Start(start)!, Path.Combine(directory, name + ".log")) { GatewayPort = gatewayPort };
    }

    /// <summary>
    /// Waits until the process prints "ready" (a silo that has joined the cluster), failing at once if it exits first
    /// and otherwise after a load-scaled <paramref name="budget"/> (<see cref="Patience"/>).
    /// </summary>
    public async Task WaitReadyAsync(TimeSpan budget)
    {
        await Patience.UntilAsync(
            () => Task.FromResult<object?>(_ready.Task.IsCompleted || _process.HasExited ? this : null),
            budget,
            () => $"{Name} did not print ready; its log: {LogPath}");
        if (!_ready.Task.IsCompleted)
        {
            throw new InvalidOperationException($"{Name} exited with {_process.ExitCode} before it was ready; its log: {LogPath}");
        }
    }

    /// <summary>Waits until the process exits, within a load-scaled <paramref name="budget"/>.</summary>
    public Task WaitForExitAsync(TimeSpan budget) =>
        Patience.WaitAsync(_process.WaitForExitAsync(), budget, () => $"{Name} did not exit; its log: {LogPath}");

    public void Kill()
    {
        if (!_process.HasExited)
        {
            Signal(SigKill);
            _process.WaitForExit(10_000);
        }
    }

    public void Pause()
    {
        Signal(SigStop);
        Paused = true;
    }

    public void Resume()
    {
        Signal(SigCont);
        Paused = false;
    }

    public void Dispose()
    {
        if (Paused)
        {
            Resume();
        }

        Kill();
        _process.Dispose();
        _log.Dispose();
    }

    private void Signal(int signal)
    {
        if (!_process.HasExited && SysKill(_process.Id, signal) != 0)
        {
            throw new InvalidOperationException($"kill({_process.Id}, {signal}) failed: errno {Marshal.GetLastPInvokeError()}");
        }
    }

    private void OnLine(string? line)
    {
        if (line is null)
        {
            return;
        }

        lock (_log)
        {
            _log.WriteLine(line);
        }

        if (line == "ready")
        {
            _ready.TrySetResult();
        }
    }

    /// <summary>The node's entry assembly: the sibling project's output for the same configuration and framework.</summary>
    private static string NodeDll
    {
        get
        {
            string here = AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar);
            string dll = Path.Combine(here.Replace($"{Path.DirectorySeparatorChar}Boc.Orleans.FaultTests{Path.DirectorySeparatorChar}", $"{Path.DirectorySeparatorChar}Boc.Orleans.FaultTests.Node{Path.DirectorySeparatorChar}", StringComparison.Ordinal), "Boc.Orleans.FaultTests.Node.dll");
            return File.Exists(dll) ? dll : throw new FileNotFoundException("Build tests/Boc.Orleans.FaultTests.Node first (dotnet test builds it as a reference).", dll);
        }
    }

    [LibraryImport("libc", EntryPoint = "kill", SetLastError = true)]
    private static partial int SysKill(int pid, int signal);
}
