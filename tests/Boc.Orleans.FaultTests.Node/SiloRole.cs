using System.Net;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orleans.Configuration;
using Orleans.Hosting;
using Orleans.Runtime;
using Orleans.Runtime.Hosting;
using Orleans.Serialization;
using Orleans.Storage;
using StackExchange.Redis;

namespace Boc.Orleans.FaultTests.Node;

/// <summary>A silo on Redis clustering and Redis storage (through the fault injector), with Boc's cowns.</summary>
internal static class SiloRole
{
    public static async Task<int> RunAsync(Settings settings)
    {
        string redis = settings.Get("redis");
        string cluster = settings.Get("cluster");
        ConnectionMultiplexer control = await ConnectionMultiplexer.ConnectAsync(redis);
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        builder.Logging.AddFilter("Boc", settings.Get("log", "") == "trace" ? LogLevel.Trace : LogLevel.Information);
        builder.UseOrleans(silo =>
        {
            silo.Configure<ClusterOptions>(o =>
            {
                o.ClusterId = cluster;
                o.ServiceId = cluster;
            });
            silo.UseRedisClustering(o => o.ConfigurationOptions = ConfigurationOptions.Parse(redis));
            silo.ConfigureEndpoints(IPAddress.Loopback, settings.Number("silo-port", 0), settings.Number("gateway-port", 0));
            silo.AddDistributedGrainDirectory();

            // Declare a stopped silo dead within a few seconds, as the tests pause silos past failure detection.
            silo.Configure<ClusterMembershipOptions>(o =>
            {
                o.ProbeTimeout = settings.Millis("probe-ms", 1000);
                o.NumMissedProbesLimit = settings.Number("missed", 2);
                o.NumVotesForDeathDeclaration = 1;
                o.TableRefreshTimeout = TimeSpan.FromSeconds(1);

                // A paused silo must be voted dead by direct probes alone: indirect probes through a loaded machine
                // time out inconclusively, and a prober that thinks itself degraded stretches its timeouts.
                o.EnableIndirectProbes = false;
                o.ExtendProbeTimeoutDuringDegradation = false;
                o.IAmAliveTablePublishTimeout = TimeSpan.FromSeconds(2);
            });
            silo.Configure<SiloMessagingOptions>(o => o.ResponseTimeout = settings.Millis("response-ms", 6000));

            // The cowns' storage: Redis, binary-serialized (the tests read it back), behind the fault injector.
            silo.AddRedisGrainStorage("BocCownsRedis", o => o.Configure<Serializer>((options, serializer) =>
            {
                options.ConfigurationOptions = ConfigurationOptions.Parse(redis);
                options.GrainStorageSerializer = new OrleansGrainStorageSerializer(serializer);
                options.GetStorageKey = (_, grainId) => $"{cluster}:state:{grainId}";
            }));
            silo.Services.AddGrainStorage(BocCluster.StorageName, (services, _) =>
                new FaultInjectingStorage(services.GetRequiredKeyedService<IGrainStorage>("BocCownsRedis"), control.GetDatabase(), cluster));
            if (settings.Number("skew-ms", 0) is int skew and not 0)
            {
                // Registered before AddBocCowns, which keeps a clock already registered.
                silo.Services.AddSingleton(new Grains.CownClock(new SkewedTime(TimeSpan.FromMilliseconds(skew))));
            }

            silo.AddBocCowns(settings.ApplyBoc);

            // Random placement, as in the in-process fixture: Orleans' default (resource-optimized, preferring the
            // caller's silo) can put all of a scenario's new cowns on one silo, and the scenarios need them on several.
            silo.Services.AddSingleton<PlacementStrategy, RandomPlacement>();
        });

        using IHost host = builder.Build();
        await host.StartAsync();
        Console.WriteLine("ready");
        await host.WaitForShutdownAsync();
        return 0;
    }
}
