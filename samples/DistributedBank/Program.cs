// Distributed bank: two silos and a client in one process, on localhost clustering. Accounts are distributed cowns
// (grains spread over the silos); four tellers make transfers between random accounts, each one WhenAsync over two
// accounts, wherever their grains live. At the end one behaviour reads every account and the sample checks that the
// total was conserved and every transfer counted. Exit code 0 only then.
//
//   dotnet run --project samples/DistributedBank
using System.Diagnostics;
using System.Net;
using Boc.Orleans;
using DistributedBank;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

const int Accounts = 100;
const long Opening = 1_000;
const int Tellers = 4;
const int TransfersPerTeller = 500;
const int SiloPort = 21_111;
const int GatewayPort = 31_111;

using IHost silo1 = StartSilo(0);
using IHost silo2 = StartSilo(1);
await silo1.StartAsync();
await silo2.StartAsync();

HostApplicationBuilder clientBuilder = Host.CreateApplicationBuilder();
clientBuilder.Logging.SetMinimumLevel(LogLevel.Warning);
clientBuilder.UseOrleansClient(client => client
    .UseLocalhostClustering([GatewayPort, GatewayPort + 1])
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
Console.WriteLine($"{made} transfers over {Accounts} accounts on 2 silos in {clock.Elapsed.TotalSeconds:F1} s ({made / clock.Elapsed.TotalSeconds:F0}/s); {moved} moved");
Console.WriteLine($"total {total} (expected {Accounts * Opening}); transfers counted {transfers / 2} (expected {made})");

await clientHost.StopAsync();
await silo2.StopAsync();
await silo1.StopAsync();
return total == Accounts * Opening && transfers == 2L * made ? 0 : 1;

static IHost StartSilo(int index)
{
    HostApplicationBuilder builder = Host.CreateApplicationBuilder();
    builder.Logging.SetMinimumLevel(LogLevel.Error);   // Orleans warns about workstation GC on a dev machine
    builder.UseOrleans(silo => silo
        .UseLocalhostClustering(SiloPort + index, GatewayPort + index, new IPEndPoint(IPAddress.Loopback, SiloPort))
        .AddMemoryGrainStorage(BocCluster.StorageName)
        .AddBocCowns());
    return builder.Build();
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
