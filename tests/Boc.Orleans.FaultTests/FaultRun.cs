using Boc.Orleans.FaultTests.Node;
using Boc.Orleans.Grains;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Serialization;
using StackExchange.Redis;

namespace Boc.Orleans.FaultTests;

/// <summary>
/// One run of a scenario: its own cluster id on the shared Redis server, its processes, their journals, and the
/// ground truth read straight from Redis. Disposing it kills every process it started. On failure its folder (logs and
/// journals) is kept and named in the message.
/// </summary>
public sealed class FaultRun : IDisposable
{
    private static readonly Serializer s_serializer = new ServiceCollection()
        .AddSerializer(b => b.AddAssembly(typeof(LedgerAccount).Assembly).AddAssembly(typeof(BocCluster).Assembly))
        .BuildServiceProvider()
        .GetRequiredService<Serializer>();

    private readonly RedisServer _redis;
    private readonly List<NodeProcess> _processes = [];

    public FaultRun(RedisServer redis, string scenario, int seed, int leaseMs = 2000)
    {
        _redis = redis;
        Seed = seed;
        LeaseMs = leaseMs;
        Cluster = $"{scenario}-{seed}-{Guid.NewGuid().ToString("N")[..6]}";
        Directory = Path.Combine(Path.GetTempPath(), "boc-faults", Cluster);
        System.IO.Directory.CreateDirectory(Directory);
    }

    public string Cluster { get; }

    public string Directory { get; }

    public int Seed { get; }

    public int LeaseMs { get; }

    public TimeSpan Lease => TimeSpan.FromMilliseconds(LeaseMs);

    public IDatabase Db => _redis.Db;

    /// <summary>The prefix of every message: what to look at when it fails.</summary>
    public string Tag => $"seed {Seed}, run {Cluster} (logs and journals in {Directory})";

    public IReadOnlyList<NodeProcess> Silos => [.. _processes.Where(p => p.Name.StartsWith("silo", StringComparison.Ordinal))];

    private string[] Common => [$"redis={_redis.Endpoint}", $"cluster={Cluster}", $"lease-ms={LeaseMs}", $"poll-ms={Math.Max(100, LeaseMs / 4)}"];

    public async Task<NodeProcess> StartSiloAsync(string name, params string[] args)
    {
        int gateway = RedisServer.FreePort();
        NodeProcess silo = Start(name, "silo", [$"silo-port={RedisServer.FreePort()}", $"gateway-port={gateway}", .. args], gateway);
        await silo.WaitReadyAsync(TimeSpan.FromMinutes(2));
        return silo;
    }

    public async Task StartSilosAsync(int count) => await Task.WhenAll(Enumerable.Range(0, count).Select(i => StartSiloAsync($"silo{i}")));

    public NodeProcess Start(string name, string role, IEnumerable<string> args, int gatewayPort = 0)
    {
        NodeProcess process = NodeProcess.Start(name, Directory, [role, .. Common, .. args], gatewayPort);
        lock (_processes)
        {
            _processes.Add(process);
        }

        return process;
    }

    public string JournalPath(string name) => Path.Combine(Directory, name + ".journal");

    public string[] Journal(string name) => File.Exists(JournalPath(name)) ? File.ReadAllLines(JournalPath(name)) : [];

    /// <summary>Waits until <paramref name="name"/>'s journal has a line starting with <paramref name="prefix"/>.</summary>
    public async Task WaitForJournalAsync(string name, string prefix, TimeSpan timeout)
    {
        long deadline = Environment.TickCount64 + (long)timeout.TotalMilliseconds;
        while (!Journal(name).Any(l => l.StartsWith(prefix, StringComparison.Ordinal)))
        {
            Assert.True(Environment.TickCount64 < deadline, $"{Tag}: {name} never journaled '{prefix}' within {timeout.TotalSeconds} s");
            await Task.Delay(100);
        }
    }

    /// <summary>The ground truth: every cown record of the run in Redis, by cown key.</summary>
    internal Dictionary<string, CownRecord<LedgerAccount>> Stored()
    {
        var stored = new Dictionary<string, CownRecord<LedgerAccount>>(StringComparer.Ordinal);
        IServer server = _redis.Connection.GetServer(_redis.Endpoint);
        foreach (RedisKey key in server.Keys(pattern: $"{Cluster}:state:*"))
        {
            byte[]? data = Db.HashGet(key, "data");
            if (data is { Length: > 0 })
            {
                string name = key.ToString();
                stored[name[(name.LastIndexOf('/') + 1)..]] = s_serializer.Deserialize<CownRecord<LedgerAccount>>(data)!;
            }
        }

        return stored;
    }

    /// <summary>The process hosting the activation that hit a fault (the pid the injector recorded).</summary>
    public NodeProcess ProcessOf(int pid) => _processes.First(p => p.Pid == pid);

    public void Dispose()
    {
        foreach (NodeProcess process in _processes)
        {
            process.Dispose();
        }
    }
}
