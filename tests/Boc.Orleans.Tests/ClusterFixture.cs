using Microsoft.Extensions.DependencyInjection;
using Orleans.Configuration;
using Orleans.Hosting;
using Orleans.Runtime.Hosting;
using Orleans.Serialization;
using Orleans.TestingHost;

namespace Boc.Orleans.Tests;

/// <summary>
/// One three-silo cluster in this process for every test class of the collection: starting a cluster costs seconds,
/// so the classes share it and the tests use disjoint cown keys (each test prefixes its own).
/// </summary>
public sealed class ClusterFixture : IAsyncLifetime
{
    public TestCluster Cluster { get; private set; } = null!;

    public IBocCluster Boc => Cluster.Client.ServiceProvider.GetRequiredService<IBocCluster>();

    /// <summary>A spawner of its own over the client's connection (each instance is one spawner).</summary>
    public BocCluster NewSpawner() => new(Cluster.Client, Microsoft.Extensions.Options.Options.Create(TestOptions.Create()));

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
            siloBuilder.AddBocCowns(TestOptions.Apply);
            siloBuilder.Services.AddGrainStorage(BocCluster.StorageName, (services, _) => new ProcessGrainStorage(services.GetRequiredService<Serializer>()));
            // Declare a killed silo dead within seconds, so the kill test's retries find the cowns' new activations.
            siloBuilder.Configure<ClusterMembershipOptions>(o =>
            {
                o.ProbeTimeout = TimeSpan.FromSeconds(1);
                o.NumMissedProbesLimit = 2;
                o.NumVotesForDeathDeclaration = 1;
            });
            siloBuilder.Configure<SiloMessagingOptions>(o => o.ResponseTimeout = TimeSpan.FromSeconds(15));
        }
    }

    private sealed class ClientConfigurator : IClientBuilderConfigurator
    {
        public void Configure(Microsoft.Extensions.Configuration.IConfiguration configuration, IClientBuilder clientBuilder)
        {
            clientBuilder.AddBocCowns(TestOptions.Apply);
            clientBuilder.Configure<ClientMessagingOptions>(o => o.ResponseTimeout = TimeSpan.FromSeconds(15));
        }
    }
}

internal static class TestOptions
{
    public static BocClusterOptions Create()
    {
        var options = new BocClusterOptions();
        Apply(options);
        return options;
    }

    public static void Apply(BocClusterOptions options)
    {
        options.LeaseDuration = TimeSpan.FromSeconds(10);
        options.PollInterval = TimeSpan.FromSeconds(2);
        options.MaxAttempts = 30;
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
