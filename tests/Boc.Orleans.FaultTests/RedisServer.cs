using Boc.Orleans.FaultTests.Node;
using StackExchange.Redis;

namespace Boc.Orleans.FaultTests;

/// <summary>The collection's Redis server: one <see cref="RedisProcess"/>, shared by runs that each use their own cluster id.</summary>
public sealed class RedisServer : IAsyncLifetime
{
    private RedisProcess? _redis;

    public string Endpoint => _redis!.Endpoint;

    public ConnectionMultiplexer Connection => _redis!.Connection;

    public IDatabase Db => Connection.GetDatabase();

    public async Task InitializeAsync() => _redis = await RedisProcess.StartAsync();

    public async Task DisposeAsync()
    {
        if (_redis is not null)
        {
            await _redis.DisposeAsync();
        }
    }

    internal static int FreePort() => RedisProcess.FreePort();
}
