using Boc.Orleans.FaultTests.Node;
using Boc.Orleans.Grains;
using Boc.TestStore;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Serialization;
using StackExchange.Redis;

namespace Boc.Orleans.FaultTests;

/// <summary>
/// One run of a scenario: its own cluster id on the collection's store (Garnet or Redis), its processes, their
/// journals, and the ground truth read straight from the store. Disposing it kills every process it started. On
/// failure its folder (logs and journals) is kept and named in the message.
/// </summary>
public sealed class FaultRun : IDisposable
{
    private static readonly Serializer s_serializer = new ServiceCollection()
        .AddSerializer(b => b.AddAssembly(typeof(LedgerAccount).Assembly).AddAssembly(typeof(BocCluster).Assembly))
        .BuildServiceProvider()
        .GetRequiredService<Serializer>();

    private readonly List<NodeProcess> _processes = [];

    public FaultRun(TestStore store, string scenario, int seed, int leaseMs = 2000)
    {
        Store = store;
        Seed = seed;
        LeaseMs = leaseMs;
        Cluster = $"{scenario}-{seed}-{Guid.NewGuid().ToString("N")[..6]}";
        Directory = Path.Combine(Path.GetTempPath(), "boc-faults", Cluster);
        System.IO.Directory.CreateDirectory(Directory);
    }

    public string Cluster { get; }

    /// <summary>The store the run's silos keep their state and membership in; a scenario may pause, kill and restart it.</summary>
    public TestStore Store { get; }

    public string Directory { get; }

    public int Seed { get; }

    public int LeaseMs { get; }

    public TimeSpan Lease => TimeSpan.FromMilliseconds(LeaseMs);

    public IDatabase Db => Store.Db;

    /// <summary>The prefix of every message: what to look at when it fails.</summary>
    public string Tag => $"{Store.Kind}, seed {Seed}, run {Cluster} (logs and journals in {Directory})";

    public IReadOnlyList<NodeProcess> Silos => [.. _processes.Where(p => p.Name.StartsWith("silo", StringComparison.Ordinal))];

    private string[] Common => [$"redis={Store.Endpoint}", $"cluster={Cluster}", $"lease-ms={LeaseMs}", $"poll-ms={Math.Max(100, LeaseMs / 4)}"];

    public async Task<NodeProcess> StartSiloAsync(string name, params string[] args)
    {
        int gateway = StoreProcess.FreePort();
        NodeProcess silo = Start(name, "silo", [$"silo-port={StoreProcess.FreePort()}", $"gateway-port={gateway}", .. args], gateway);
        await silo.WaitReadyAsync(TimeSpan.FromSeconds(30));
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

    /// <summary>
    /// Waits until <paramref name="name"/>'s journal has a line starting with <paramref name="prefix"/>, within a
    /// load-scaled <paramref name="budget"/> (<see cref="Patience"/>).
    /// </summary>
    public Task WaitForJournalAsync(string name, string prefix, TimeSpan budget) =>
        Patience.UntilAsync(
            () => Task.FromResult(Journal(name).Any(l => l.StartsWith(prefix, StringComparison.Ordinal)) ? name : null),
            budget,
            () => $"{Tag}: {name} never journaled '{prefix}'");

    /// <summary>Waits until the store has <paramref name="key"/> (see Faults), within a load-scaled budget; returns its value.</summary>
    public Task<string> WaitForKeyAsync(string key, TimeSpan budget, string what) =>
        Patience.UntilAsync(async () => (string?)await Db.StringGetAsync(key), budget, () => $"{Tag}: {what}");

    /// <summary>The ground truth: every cown record of the run in the store, by cown key.</summary>
    internal Dictionary<string, CownRecord<LedgerAccount>> Stored()
    {
        var stored = new Dictionary<string, CownRecord<LedgerAccount>>(StringComparer.Ordinal);
        IServer server = Store.Connection.GetServer(Store.Endpoint);
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
