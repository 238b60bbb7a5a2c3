using Boc.Orleans.Grains;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Serialization;
using Orleans.TestingHost;

namespace Boc.Orleans.Tests;

/// <summary>
/// The failure tests' cluster: short leases (2 s) and polls, so each recovery path runs within seconds, and a long
/// retention, so no record expires mid-test. Its own cluster: the tests kill its silos and stall its storage.
/// </summary>
public sealed class FaultClusterFixture : ClusterFixtureBase<FaultClusterFixture.ShortLeases>
{
    public TimeSpan Lease => Options.LeaseDuration;

    /// <summary>The ground truth of a ledger account: what storage holds, whatever any activation believes.</summary>
    internal CownRecord<LedgerAccount>? Stored(string key) =>
        ProcessGrainStorage.Read<CownRecord<LedgerAccount>>(
            Cluster.Client.ServiceProvider.GetRequiredService<Serializer>(), "cown", Cluster.Client.GetGrain<ICownGrain<LedgerAccount>>(key).GetGrainId());

    public GrainId GrainOf(string key) => Cluster.Client.GetGrain<ICownGrain<LedgerAccount>>(key).GetGrainId();

    /// <summary>The silo whose activation answers for <paramref name="key"/> now.</summary>
    public async Task<SiloHandle> SiloOfAsync(string key)
    {
        CownInspection inspection = await Boc.InspectAsync(Boc.Cown<LedgerAccount>(key));
        string identity = inspection.Silo[(inspection.Silo.LastIndexOf('@') + 1)..];
        return Cluster.Silos.FirstOrDefault(s => s.SiloAddress.ToString() == identity)
            ?? throw new InvalidOperationException($"{key} answered from {identity}, which is not a silo of the cluster");
    }

    public sealed class ShortLeases : ILeaseProfile
    {
        public TimeSpan ResponseTimeout => TimeSpan.FromSeconds(6);

        public void Apply(BocClusterOptions options)
        {
            options.LeaseDuration = TimeSpan.FromSeconds(2);
            options.PollInterval = TimeSpan.FromMilliseconds(500);
            options.MaxAttempts = 40;
            options.CommitRecordRetention = TimeSpan.FromMinutes(30);
        }
    }
}

[CollectionDefinition(Name)]
public sealed class FaultGroup : ICollectionFixture<FaultClusterFixture>
{
    public const string Name = "faults";
}

/// <summary>An account that records which transfers it took part in, so storage alone shows what committed.</summary>
[GenerateSerializer]
public sealed class LedgerAccount
{
    [Id(0)]
    public long Balance { get; set; }

    [Id(1)]
    public List<int> Transfers { get; set; } = [];
}
