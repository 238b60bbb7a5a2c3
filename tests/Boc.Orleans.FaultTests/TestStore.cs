using Boc.TestStore;
using StackExchange.Redis;

namespace Boc.Orleans.FaultTests;

/// <summary>
/// The store the scenarios run on: a <see cref="StoreProcess"/> (Garnet or redis-server, on a free port of 127.0.0.1)
/// and a connection to it, shared by the scenarios of one test class, one at a time (each run has its own cluster id
/// and keys). A scenario may pause, kill and restart it; <see cref="StoreFixture"/> brings it back up for the next one.
/// </summary>
public sealed class TestStore : IAsyncDisposable
{
    private readonly StoreProcess _process;

    private TestStore(StoreProcess process, ConnectionMultiplexer connection)
    {
        _process = process;
        Connection = connection;
    }

    public StoreKind Kind => _process.Kind;

    /// <summary>host:port; the same across restarts.</summary>
    public string Endpoint => _process.Endpoint;

    public ConnectionMultiplexer Connection { get; }

    public IDatabase Db => Connection.GetDatabase();

    public int Pid => _process.Pid;

    public bool Paused => _process.Paused;

    /// <summary>What the store printed (for a failure message).</summary>
    public string Output => _process.Output;

    public static async Task<TestStore> StartAsync(StoreKind kind)
    {
        StoreProcess process = await StoreProcess.StartAsync(kind, Patience.Ceiling(TimeSpan.FromSeconds(30)));
        ConnectionMultiplexer connection = await ConnectionMultiplexer.ConnectAsync($"{process.Endpoint},abortConnect=false");
        return new TestStore(process, connection);
    }

    /// <summary>Stops the store (SIGSTOP): requests wait, connections stay open.</summary>
    public void Pause() => _process.Pause();

    /// <summary>Continues a paused store (SIGCONT).</summary>
    public void Resume() => _process.Resume();

    /// <summary>Kills the store (SIGKILL): what it acknowledged is on disk, the rest is lost.</summary>
    public void Kill() => _process.Kill();

    /// <summary>Starts the killed store again on its port and data, and waits until it answers.</summary>
    public Task RestartAsync() => _process.RestartAsync(Patience.Ceiling(TimeSpan.FromSeconds(30)));

    /// <summary>Resumes or restarts the store if a scenario left it paused or killed.</summary>
    internal async Task EnsureUpAsync()
    {
        if (_process.Paused)
        {
            _process.Resume();
        }

        if (!_process.Running)
        {
            await RestartAsync();
        }
    }

    public async ValueTask DisposeAsync()
    {
        await Connection.DisposeAsync();
        await _process.DisposeAsync();
    }
}
