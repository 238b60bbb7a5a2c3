using System.Diagnostics;
using System.Net;
using System.Net.Sockets;
using StackExchange.Redis;

namespace Boc.Orleans.FaultTests;

/// <summary>
/// A Redis server of the test's own, on a free port, with its append-only file on and fsynced at every write, so a
/// write Redis acknowledged is on disk. Nothing is left running or on disk after it is disposed.
/// </summary>
public sealed class RedisServer : IAsyncLifetime
{
    private readonly string _dir = Path.Combine(Path.GetTempPath(), "boc-redis-" + Guid.NewGuid().ToString("N"));
    private Process? _process;

    public string Endpoint { get; private set; } = "";

    public IDatabase Db => Connection.GetDatabase();

    public ConnectionMultiplexer Connection { get; private set; } = null!;

    public async Task InitializeAsync()
    {
        Directory.CreateDirectory(_dir);
        int port = FreePort();
        Endpoint = $"127.0.0.1:{port}";
        var start = new ProcessStartInfo("redis-server")
        {
            ArgumentList = { "--port", port.ToString(System.Globalization.CultureInfo.InvariantCulture), "--bind", "127.0.0.1", "--dir", _dir, "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--protected-mode", "no" },
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        try
        {
            _process = Process.Start(start)!;
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            throw new InvalidOperationException("redis-server is not on PATH: install it (Debian: apt-get install redis-server); .ci/run does.", e);
        }

        _process.OutputDataReceived += (_, _) => { };
        _process.BeginOutputReadLine();
        _process.BeginErrorReadLine();
        for (int i = 0; ; i++)
        {
            try
            {
                Connection = await ConnectionMultiplexer.ConnectAsync(Endpoint + ",abortConnect=true,connectTimeout=500");
                break;
            }
            catch (RedisConnectionException) when (i < 40)
            {
                await Task.Delay(100);
            }
        }

        string aof = (string)(await Db.ExecuteAsync("CONFIG", "GET", "appendfsync"))[1]!;
        Assert.Equal("always", aof);
    }

    public async Task DisposeAsync()
    {
        if (Connection is not null)
        {
            await Connection.DisposeAsync();
        }

        if (_process is { HasExited: false })
        {
            _process.Kill();
            await _process.WaitForExitAsync();
        }

        _process?.Dispose();
        try
        {
            Directory.Delete(_dir, recursive: true);
        }
        catch (IOException)
        {
        }
    }

    internal static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
