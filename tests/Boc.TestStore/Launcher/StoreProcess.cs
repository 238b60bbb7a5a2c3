using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using System.Reflection;
using System.Runtime.InteropServices;
using System.Text;

namespace Boc.TestStore;

/// <summary>
/// A Redis-protocol store of the caller's own, in a process of its own on a free port of 127.0.0.1, with its data in a
/// temporary folder that is removed with it: Garnet (tests/Boc.TestStore, from NuGet) or a redis-server from the PATH.
/// Both keep every answered write on disk (Redis: append-only file, fsync always; Garnet: see Boc.TestStore's
/// Program.cs), so <see cref="Kill"/> then <see cref="RestartAsync"/> on the same folder and port loses nothing that
/// was acknowledged. It can be paused (SIGSTOP) and resumed (SIGCONT) on Unix. Nothing outlives the caller: disposing
/// kills the process, and if the caller dies first <see cref="ChildReaper"/> kills it (the Garnet host also ends when
/// its standard input closes).
/// </summary>
public sealed class StoreProcess : IAsyncDisposable
{
    private const int SigKill = 9;

    private readonly StringBuilder _output = new();
    private Process _process;

    private StoreProcess(StoreKind kind, int port, string directory, Process process)
    {
        Kind = kind;
        Port = port;
        Directory = directory;
        _process = process;
    }

    /// <summary>Gets the kinds this machine can run: Garnet always, Redis when redis-server is on the PATH.</summary>
    public static IReadOnlyList<StoreKind> Available { get; } = IsOnPath("redis-server") ? [StoreKind.Garnet, StoreKind.Redis] : [StoreKind.Garnet];

    /// <summary>Gets the server this process runs.</summary>
    public StoreKind Kind { get; }

    /// <summary>Gets the port on 127.0.0.1, the same across restarts.</summary>
    public int Port { get; }

    /// <summary>Gets host:port, for a Redis client's configuration.</summary>
    public string Endpoint => $"127.0.0.1:{Port.ToString(CultureInfo.InvariantCulture)}";

    /// <summary>Gets the folder of the store's data (its append-only file), kept across restarts.</summary>
    public string Directory { get; }

    /// <summary>Gets the current process's id.</summary>
    public int Pid => _process.Id;

    /// <summary>Gets a value indicating whether the process is stopped by <see cref="Pause"/>.</summary>
    public bool Paused { get; private set; }

    /// <summary>Gets a value indicating whether the process is running (possibly paused).</summary>
    public bool Running => !_process.HasExited;

    /// <summary>Gets what the store printed, for a failure message.</summary>
    public string Output
    {
        get
        {
            lock (_output)
            {
                return _output.ToString();
            }
        }
    }

    /// <summary>Starts a store of <paramref name="kind"/> on a free port and waits until it answers PING.</summary>
    /// <param name="kind">The server to run.</param>
    /// <param name="patience">How long a start may take before it is reported as hung (the caller scales it with the machine's load).</param>
    public static async Task<StoreProcess> StartAsync(StoreKind kind, TimeSpan patience)
    {
        if (!Available.Contains(kind))
        {
            throw new InvalidOperationException($"{kind} cannot run here: redis-server is not on PATH (Debian: apt-get install redis-server; .ci/run installs it).");
        }

        string directory = Path.Combine(Path.GetTempPath(), $"boc-{kind.ToString().ToLowerInvariant()}-{Guid.NewGuid():N}");
        System.IO.Directory.CreateDirectory(directory);
        int port = FreePort();
        var store = new StoreProcess(kind, port, directory, Launch(kind, port, directory));
        store.Attach();
        await store.WaitUntilAnswersAsync(patience);
        return store;
    }

    /// <summary>A port that was free on 127.0.0.1 a moment ago.</summary>
    public static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    /// <summary>Stops the process (SIGSTOP): connections stay open and requests wait, as with a stalled server.</summary>
    public void Pause()
    {
        Signal(OperatingSystem.IsMacOS() ? 17 : 19);
        Paused = true;
    }

    /// <summary>Continues a paused process (SIGCONT).</summary>
    public void Resume()
    {
        Signal(OperatingSystem.IsMacOS() ? 19 : 18);
        Paused = false;
    }

    /// <summary>Kills the process (SIGKILL, also when paused) and waits for it to end; its data stays for a restart.</summary>
    public void Kill()
    {
        if (!_process.HasExited)
        {
            if (OperatingSystem.IsWindows())
            {
                _process.Kill();
            }
            else
            {
                Signal(SigKill);
            }

            _process.WaitForExit();
        }

        Paused = false;
        ChildReaper.Forget(_process.Id);
    }

    /// <summary>Starts the store again on the same port and folder (after <see cref="Kill"/>), replaying its data.</summary>
    /// <param name="patience">How long the start may take before it is reported as hung.</param>
    public async Task RestartAsync(TimeSpan patience)
    {
        Kill();
        _process.Dispose();
        lock (_output)
        {
            _output.Append("--- restarted ---\n");
        }

        var clock = Stopwatch.StartNew();
        while (true)
        {
            _process = Launch(Kind, Port, Directory);
            Attach();
            try
            {
                await WaitUntilAnswersAsync(patience - clock.Elapsed);
                return;
            }
            catch (InvalidOperationException) when (_process.HasExited && clock.Elapsed < patience)
            {
                // The port can be refused for a moment after the kill: start again until the process stays up.
                _process.Dispose();
                await Task.Delay(200);
            }
        }
    }

    /// <summary>Kills the process and removes its folder.</summary>
    public ValueTask DisposeAsync()
    {
        Kill();
        _process.Dispose();
        try
        {
            System.IO.Directory.Delete(Directory, recursive: true);
        }
        catch (IOException)
        {
        }

        return ValueTask.CompletedTask;
    }

    private static Process Launch(StoreKind kind, int port, string directory)
    {
        ProcessStartInfo start;
        string portText = port.ToString(CultureInfo.InvariantCulture);
        if (kind == StoreKind.Redis)
        {
            start = new ProcessStartInfo("redis-server")
            {
                ArgumentList = { "--port", portText, "--bind", "127.0.0.1", "--dir", directory, "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--protected-mode", "no" },
            };
        }
        else
        {
            start = new ProcessStartInfo("dotnet") { ArgumentList = { HostPath, portText, directory } };
            start.Environment["DOTNET_gcServer"] = "0";
        }

        start.UseShellExecute = false;
        start.RedirectStandardOutput = true;
        start.RedirectStandardError = true;

        // The Garnet host ends when this pipe closes, i.e. when this process ends.
        start.RedirectStandardInput = true;
        Process process = Process.Start(start) ?? throw new InvalidOperationException($"could not start {start.FileName}");
        ChildReaper.Track(process.Id);
        return process;
    }

    /// <summary>Boc.TestStore.dll, as its build left it (Boc.TestStore.targets records the path in the consumer's assembly).</summary>
    private static string HostPath
    {
        get
        {
            string? path = typeof(StoreProcess).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().FirstOrDefault(a => a.Key == "BocTestStorePath")?.Value;
            return path is not null && File.Exists(path)
                ? path
                : throw new FileNotFoundException($"The Garnet host is not built: build tests/Boc.TestStore (a project that imports Boc.TestStore.targets builds it first).", path);
        }
    }

    private void Attach()
    {
        Process process = _process;
        process.OutputDataReceived += (_, e) => Append(e.Data);
        process.ErrorDataReceived += (_, e) => Append(e.Data);
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
    }

    private void Append(string? line)
    {
        if (line is not null)
        {
            lock (_output)
            {
                _output.Append(line).Append('\n');
            }
        }
    }

    /// <summary>Polls PING until the store answers PONG (not LOADING), failing at once if the process exits.</summary>
    private async Task WaitUntilAnswersAsync(TimeSpan patience)
    {
        var clock = Stopwatch.StartNew();
        while (true)
        {
            if (_process.HasExited)
            {
                throw new InvalidOperationException($"{Kind} on port {Port} exited with {_process.ExitCode} before it answered; it printed:\n{Output}");
            }

            if (await PingAsync("127.0.0.1", Port))
            {
                return;
            }

            if (clock.Elapsed > patience)
            {
                throw new TimeoutException($"{Kind} on port {Port} did not answer PING within {patience.TotalSeconds:F0} s; it printed:\n{Output}");
            }

            await Task.Delay(50);
        }
    }

    /// <summary>Whether a Redis-protocol server at <paramref name="host"/>:<paramref name="port"/> answers PING with PONG (within 5 s).</summary>
    public static async Task<bool> PingAsync(string host, int port)
    {
        try
        {
            using var client = new TcpClient();
            using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(5));
            await client.ConnectAsync(host, port, timeout.Token);
            NetworkStream stream = client.GetStream();
            await stream.WriteAsync("PING\r\n"u8.ToArray(), timeout.Token);
            byte[] reply = new byte[64];
            int read = await stream.ReadAsync(reply, timeout.Token);
            return Encoding.ASCII.GetString(reply, 0, read).StartsWith("+PONG", StringComparison.Ordinal);
        }
#pragma warning disable CA1031 // Refused, reset, timed out: any failure to connect or answer means "not answering".
        catch (Exception)
#pragma warning restore CA1031
        {
            return false;
        }
    }

    private void Signal(int signal)
    {
        if (OperatingSystem.IsWindows())
        {
            throw new PlatformNotSupportedException("pausing a store needs SIGSTOP (Unix)");
        }

        if (!_process.HasExited && SysKill(_process.Id, signal) != 0)
        {
            throw new InvalidOperationException($"kill({_process.Id}, {signal}) failed: errno {Marshal.GetLastPInvokeError()}");
        }
    }

    private static bool IsOnPath(string file) =>
        (Environment.GetEnvironmentVariable("PATH") ?? "").Split(Path.PathSeparator, StringSplitOptions.RemoveEmptyEntries).Any(d => File.Exists(Path.Combine(d, file)));

    // DllImport, not LibraryImport: this file is compiled into other projects by link, and the analyzer tests compile
    // the samples' sources without source generators.
    [DllImport("libc", EntryPoint = "kill", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static extern int SysKill(int pid, int signal);
}
