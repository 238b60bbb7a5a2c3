using Microsoft.Extensions.DependencyInjection;
using Orleans.Configuration;
using Orleans.Hosting;
using Orleans.Runtime.Hosting;
using Orleans.Serialization;
using Orleans.TestingHost;

namespace Boc.Orleans.Tests;

/// <summary>
/// A three-silo cluster in this process, shared by the test classes of a collection: starting a cluster costs seconds,
/// so the classes share it and the tests use disjoint cown keys (each test prefixes its own). The profile sets the
/// leases: the API tests use long ones, the failure tests short ones, so recoveries happen within seconds.
/// </summary>
public abstract class ClusterFixtureBase<TProfile> : IAsyncLifetime
    where TProfile : ILeaseProfile, new()
{
    public TestCluster Cluster { get; private set; } = null!;

    public IBocCluster Boc => Cluster.Client.ServiceProvider.GetRequiredService<IBocCluster>();

    public BocClusterOptions Options { get; } = Profile.Create();

    private static TProfile Profile { get; } = new();

    /// <summary>A spawner of its own over the client's connection (each instance is one spawner).</summary>
    public BocCluster NewSpawner() => new(Cluster.Client, Microsoft.Extensions.Options.Options.Create(Profile.Create()));

    public async Task InitializeAsync()
    {
        var builder = new TestClusterBuilder(3);
        builder.AddSiloBuilderConfigurator<SiloConfigurator>();
        builder.AddClientBuilderConfigurator<ClientConfigurator>();
        Cluster = builder.Build();
        await Cluster.DeployAsync();
    }

    public async Task DisposeAsync()
    {
        await Cluster.StopAllSilosAsync();
        await Cluster.DisposeAsync();
    }

    private sealed class SiloConfigurator : ISiloConfigurator
    {
        public void Configure(ISiloBuilder siloBuilder)
        {
            siloBuilder.AddBocCowns(o => Profile.Apply(o));

            // Random placement: Orleans' default (resource-optimized) puts a test's new cowns mostly on one silo, and
            // the failure tests need cowns on every silo.
            siloBuilder.Services.AddSingleton<PlacementStrategy, RandomPlacement>();
            siloBuilder.Services.AddGrainStorage(BocCluster.StorageName, (services, _) => new ProcessGrainStorage(services.GetRequiredService<Serializer>()));
            // Declare a killed silo dead within seconds, so the kill test's retries find the cowns' new activations.
            siloBuilder.Configure<ClusterMembershipOptions>(o =>
            {
                o.ProbeTimeout = TimeSpan.FromSeconds(1);
                o.NumMissedProbesLimit = 2;
                o.NumVotesForDeathDeclaration = 1;
            });
            siloBuilder.Configure<SiloMessagingOptions>(o => o.ResponseTimeout = Profile.ResponseTimeout);
        }
    }

    private sealed class ClientConfigurator : IClientBuilderConfigurator
    {
        public void Configure(Microsoft.Extensions.Configuration.IConfiguration configuration, IClientBuilder clientBuilder)
        {
            clientBuilder.AddBocCowns(o => Profile.Apply(o));
            clientBuilder.Configure<ClientMessagingOptions>(o => o.ResponseTimeout = Profile.ResponseTimeout);
        }
    }
}

/// <summary>The leases, polls and retries a fixture's silos and spawners use.</summary>
public interface ILeaseProfile
{
    TimeSpan ResponseTimeout { get; }

    void Apply(BocClusterOptions options);

    BocClusterOptions Create()
    {
        var options = new BocClusterOptions();
        Apply(options);
        return options;
    }
}

/// <summary>The API and oracle tests' cluster: leases long enough that a loaded CI machine never loses one.</summary>
public sealed class ClusterFixture : ClusterFixtureBase<ClusterFixture.LongLeases>
{
    public sealed class LongLeases : ILeaseProfile
    {
        public TimeSpan ResponseTimeout => TimeSpan.FromSeconds(15);

        public void Apply(BocClusterOptions options)
        {
            options.LeaseDuration = TimeSpan.FromSeconds(10);
            options.PollInterval = TimeSpan.FromSeconds(2);
            options.MaxAttempts = 30;
        }
    }
}

[CollectionDefinition(Name)]
public sealed class ClusterGroup : ICollectionFixture<ClusterFixture>
{
    public const string Name = "cluster";
}

[GenerateSerializer]
public sealed class Account
{
    [Id(0)]
    public long Balance { get; set; }

    [Id(1)]
    public long Ops { get; set; }
}

/// <summary>A cown state that records, in commit order, every behaviour that wrote it.</summary>
[GenerateSerializer]
public sealed class Probe
{
    [Id(0)]
    public List<int> Writers { get; set; } = [];
}
