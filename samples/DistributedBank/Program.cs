// Distributed bank: two silos as separate processes and a client, on Redis (Orleans' Redis clustering and grain
// storage; every committed transfer is on disk when Redis is run with appendfsync always). Accounts are distributed
// cowns (grains spread over the silos); four tellers make transfers between random accounts, each one WhenAsync over
// two accounts, wherever their grains live. At the end one behaviour reads every account and the sample checks that
// the total was conserved and every transfer counted. Exit code 0 only then.
//
//   dotnet run --project samples/DistributedBank [-- --redis HOST:PORT | --redis local]
//
// The store: --redis HOST:PORT (or BOC_REDIS), else a Redis answering on localhost:6379, else (or with --redis local)
// a local store of the sample's own for this run: Microsoft Garnet (a Redis-protocol server from NuGet,
// tests/Boc.TestStore) on a free port of 127.0.0.1, durable like Redis with appendfsync always, removed at the end.
//
// The same program is the silo: it starts itself twice with "silo N", and stops both at the end (a silo also stops
// when the sample's end of its standard input closes, so none outlives a sample that was killed).
using System.Diagnostics;
using System.Net;
using Boc.Orleans;
using Boc.TestStore;
using DistributedBank;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;
using Orleans.Configuration;
using StackExchange.Redis;

const int Accounts = 100;
const long Opening = 1_000;
const int Tellers = 4;
const int TransfersPerTeller = 250;

string? given = args.SkipWhile(a => a != "--redis").Skip(1).FirstOrDefault() ?? Environment.GetEnvironmentVariable("BOC_REDIS");
if (args.Length >= 2 && args[0] == "silo")
{
    return await RunSiloAsync(int.Parse(args[1], System.Globalization.CultureInfo.InvariantCulture), given ?? throw new ArgumentException("a silo needs --redis HOST:PORT"));
}

StoreProcess? localStore = null;
string redis;
if (given is not null && given != "local")
{
    redis = given;
}
else if (given is null && await StoreProcess.PingAsync("localhost", 6379))
{
    redis = "localhost:6379";
    Console.WriteLine("Using the Redis at localhost:6379 (--redis HOST:PORT for another).");
}
else
{
    localStore = await StoreProcess.StartAsync(StoreKind.Garnet, TimeSpan.FromMinutes(2));
    redis = localStore.Endpoint;
    Console.WriteLine($"{(given is null ? "No Redis at localhost:6379: started" : "Started")} a local store for this run (Microsoft Garnet, from NuGet) at {redis}, removed at the end. For a real Redis: --redis HOST:PORT.");
}

// A fresh cluster and key space per run, so runs on one Redis server never meet.
string cluster = $"bank-{Guid.NewGuid():N}";
Process[] silos = [StartSilo(0), StartSilo(1)];
try
{
    HostApplicationBuilder clientBuilder = Host.CreateApplicationBuilder();
    clientBuilder.Logging.SetMinimumLevel(LogLevel.Warning);
    clientBuilder.UseOrleansClient(client => client
        .Configure<ClusterOptions>(o => (o.ClusterId, o.ServiceId) = (cluster, cluster))
        .UseRedisClustering(o => o.ConfigurationOptions = ConfigurationOptions.Parse(redis))
        .AddBocCowns());
    using IHost clientHost = clientBuilder.Build();
    await clientHost.StartAsync();

    IBocCluster bank = clientHost.Services.GetRequiredService<IBocCluster>();
    ClusterCown<Account>[] accounts = [.. Enumerable.Range(0, Accounts).Select(i => bank.Cown<Account>($"account-{i}"))];
    await Task.WhenAll(accounts.Select(a => bank.WhenAsync(a, x => { x.Balance = Opening; })));

    var clock = Stopwatch.StartNew();
    long moved = 0;
    await Task.WhenAll(Enumerable.Range(0, Tellers).Select(teller => Task.Run(async () =>
    {
        var random = new Random(teller);
        for (int i = 0; i < TransfersPerTeller; i++)
        {
            int from = random.Next(Accounts);
            int to = (from + 1 + random.Next(Accounts - 1)) % Accounts;
            long amount = random.Next(1, 100);
            bool done = await bank.WhenAsync(accounts[from], accounts[to], (src, dst) =>
            {
                src.Transfers++;
                dst.Transfers++;
                if (src.Balance < amount)
                {
                    return false;
                }

                src.Balance -= amount;
                dst.Balance += amount;
                return true;
            });
            if (done)
            {
                Interlocked.Add(ref moved, amount);
            }
        }
    })));
    clock.Stop();

    (long total, long transfers) = await bank.WhenAsync(
        [.. accounts.Select(a => (ClusterAcquirable<Account>)BocCluster.Read(a))],
        states => (states.Sum(s => s.Balance), states.Sum(s => s.Transfers)));

    int made = Tellers * TransfersPerTeller;
    Console.WriteLine($"{made} transfers over {Accounts} accounts on 2 silo processes in {clock.Elapsed.TotalSeconds:F1} s ({made / clock.Elapsed.TotalSeconds:F0}/s); {moved} moved");
    Console.WriteLine($"total {total} (expected {Accounts * Opening}); transfers counted {transfers / 2} (expected {made})");
    await clientHost.StopAsync();
    return total == Accounts * Opening && transfers == 2L * made ? 0 : 1;
}
finally
{
    foreach (Process silo in silos)
    {
        silo.Kill();
        await silo.WaitForExitAsync();
        ChildReaper.Forget(silo.Id);
        silo.Dispose();
    }

    if (localStore is not null)
    {
        await localStore.DisposeAsync();
    }
}

// Starts this program again as silo N, and waits until it has joined the cluster.
Process StartSilo(int index)
{
    // Under `dotnet run` the process is the app host; under `dotnet DistributedBank.dll` it is dotnet itself.
    string self = Environment.ProcessPath!;
    var start = new ProcessStartInfo(self) { RedirectStandardOutput = true, RedirectStandardInput = true, UseShellExecute = false };
    if (Path.GetFileNameWithoutExtension(self) == "dotnet")
    {
        start.ArgumentList.Add(typeof(Account).Assembly.Location);
    }

    foreach (string arg in (string[])["silo", $"{index}", "--redis", redis, "--cluster", cluster])
    {
        start.ArgumentList.Add(arg);
    }

    Process process = Process.Start(start)!;
    ChildReaper.Track(process.Id);
    string? line;
    while ((line = process.StandardOutput.ReadLine()) is not null && line != "ready")
    {
    }

    if (line is null)
    {
        throw new InvalidOperationException($"silo {index} exited before it was ready: is Redis running at {redis}?");
    }

    // Keep draining what the silo prints, so it never blocks on a full pipe.
    _ = process.StandardOutput.ReadToEndAsync();
    return process;
}

static async Task<int> RunSiloAsync(int index, string redis)
{
    string cluster = Environment.GetCommandLineArgs().SkipWhile(a => a != "--cluster").Skip(1).First();
    HostApplicationBuilder builder = Host.CreateApplicationBuilder();
    builder.Logging.SetMinimumLevel(LogLevel.Error);   // Orleans warns about workstation GC on a dev machine
#pragma warning disable ORLEANSEXP003 // Experimental in Orleans 10: the strongly consistent directory docs/distributed.md recommends.
    builder.UseOrleans(silo => silo
        .Configure<ClusterOptions>(o => (o.ClusterId, o.ServiceId) = (cluster, cluster))
        .UseRedisClustering(o => o.ConfigurationOptions = ConfigurationOptions.Parse(redis))
        .ConfigureEndpoints(IPAddress.Loopback, FreePort(), FreePort())
        .AddDistributedGrainDirectory()
        .AddRedisGrainStorage(BocCluster.StorageName, o => o.ConfigurationOptions = ConfigurationOptions.Parse(redis))
        .AddBocCowns());
#pragma warning restore ORLEANSEXP003
    using IHost host = builder.Build();
    await host.StartAsync();
    Console.WriteLine("ready");
    Console.Out.Flush();

    // Stop when the sample's end of the pipe closes: it exited, however it ended.
    _ = Console.In.ReadToEndAsync().ContinueWith(_ => host.Services.GetRequiredService<IHostApplicationLifetime>().StopApplication(), TaskScheduler.Default);
    await host.WaitForShutdownAsync();
    return index >= 0 ? 0 : 1;
}

static int FreePort()
{
    using var listener = new System.Net.Sockets.TcpListener(IPAddress.Loopback, 0);
    listener.Start();
    return ((IPEndPoint)listener.LocalEndpoint).Port;
}

namespace DistributedBank
{
    [GenerateSerializer]
    public sealed class Account
    {
        [Id(0)]
        public long Balance { get; set; }

        [Id(1)]
        public long Transfers { get; set; }
    }
}
