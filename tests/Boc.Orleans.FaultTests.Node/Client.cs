using System.Net;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orleans.Configuration;
using Orleans.Hosting;
using StackExchange.Redis;

namespace Boc.Orleans.FaultTests.Node;

/// <summary>An Orleans client on the run's Redis membership, with a spawner of distributed behaviours.</summary>
internal sealed class Client : IAsyncDisposable
{
    private readonly IHost _host;

    private Client(IHost host, IDatabase control)
    {
        _host = host;
        Control = control;
        Boc = host.Services.GetRequiredService<IBocCluster>();
        Grains = host.Services.GetRequiredService<IClusterClient>();
    }

    public IBocCluster Boc { get; }

    public IClusterClient Grains { get; }

    public IDatabase Control { get; }

    public static async Task<Client> StartAsync(Settings settings)
    {
        string redis = settings.Get("redis");
        string cluster = settings.Get("cluster");
        HostApplicationBuilder builder = Host.CreateApplicationBuilder();
        builder.Logging.SetMinimumLevel(LogLevel.Warning);
        builder.Logging.AddFilter("Boc", settings.Get("log", "") == "trace" ? LogLevel.Trace : LogLevel.Information);
        builder.UseOrleansClient(client =>
        {
            client.Configure<ClusterOptions>(o =>
            {
                o.ClusterId = cluster;
                o.ServiceId = cluster;
            });
            int gateway = settings.Number("gateway", 0);
            if (gateway == 0)
            {
                client.UseRedisClustering(o => o.ConfigurationOptions = ConfigurationOptions.Parse(redis));
            }
            else
            {
                // One chosen gateway: a test that pauses another silo keeps this client's own messages flowing.
                client.UseStaticClustering(new IPEndPoint(IPAddress.Loopback, gateway));
            }

            client.Configure<ClientMessagingOptions>(o => o.ResponseTimeout = settings.Millis("response-ms", 6000));
            client.Configure<GatewayOptions>(o => o.GatewayListRefreshPeriod = TimeSpan.FromSeconds(1));
            client.AddBocCowns(settings.ApplyBoc);
        });
        IHost host = builder.Build();
        await host.StartAsync();
        ConnectionMultiplexer control = await ConnectionMultiplexer.ConnectAsync(redis);
        return new Client(host, control.GetDatabase());
    }

    public async ValueTask DisposeAsync()
    {
        await _host.StopAsync();
        _host.Dispose();
    }
}
