using System.Diagnostics;
using System.Globalization;
using System.Net;
using System.Net.Sockets;
using StackExchange.Redis;

namespace Boc.Orleans.FaultTests.Node;

/// <summary>
/// A redis-server of the caller's own, on a free port, with its append-only file on and fsynced at every write (so a
/// write Redis acknowledged is on disk), in a temporary folder removed with it. Used by the fault tests and the
/// distributed benchmark (linked there), so neither needs a fixed port nor leaves anything running.
/// </summary>
public sealed class RedisProcess : IAsyncDisposable
{
    private readonly Process _process;

    private RedisProcess(Process process, string endpoint, ConnectionMultiplexer connection)
    {
        _process = process;
        Endpoint = endpoint;
        Connection = connection;
    }

    /// <summary>Gets host:port.</summary>
    public string Endpoint { get; }

    public ConnectionMultiplexer Connection { get; }

    public static async Task<RedisProcess> StartAsync()
    {
        string dir = Path.Combine(Path.GetTempPath(), "boc-redis-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        int port = FreePort();
        var start = new ProcessStartInfo("redis-server")
        {
            ArgumentList = { "--port", port.ToString(CultureInfo.InvariantCulture), "--bind", "127.0.0.1", "--dir", dir, "--appendonly", "yes", "--appendfsync", "always", "--save", "", "--protected-mode", "no" },
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        Process process;
        try
        {
            process = Process.Start(start)!;
        }
        catch (System.ComponentModel.Win32Exception e)
        {
            throw new InvalidOperationException("redis-server is not on PATH: install it (Debian: apt-get install redis-server); .ci/run does.", e);
        }

        process.OutputDataReceived += (_, _) => { };
        process.ErrorDataReceived += (_, _) => { };
        process.BeginOutputReadLine();
        process.BeginErrorReadLine();
        string endpoint = $"127.0.0.1:{port}";
        for (int i = 0; ; i++)
        {
            try
            {
                ConnectionMultiplexer connection = await ConnectionMultiplexer.ConnectAsync(endpoint + ",abortConnect=true,connectTimeout=500");
                RedisResult fsync = await connection.GetDatabase().ExecuteAsync("CONFIG", "GET", "appendfsync");
                if ((string?)fsync[1] != "always")
                {
                    throw new InvalidOperationException("redis-server did not take appendfsync always");
                }

                return new RedisProcess(process, endpoint, connection);
            }
            catch (RedisConnectionException) when (i < 50)
            {
                await Task.Delay(100);
            }
        }
    }

    public static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    public async ValueTask DisposeAsync()
    {
        await Connection.DisposeAsync();
        if (!_process.HasExited)
        {
            _process.Kill();
            await _process.WaitForExitAsync();
        }

        _process.Dispose();
        string dir = _process.StartInfo.ArgumentList[5];
        try
        {
            Directory.Delete(dir, recursive: true);
        }
        catch (IOException)
        {
        }
    }
}
