// Transfer workload on three silos in one process: Orleans transactions against distributed Boc, and in-process Boc for
// the cost of crossing silos. A console timing of a fixed workload, three runs per cell (median reported) after one
// warm-up run; the same accounts, the same random plan and the same number in flight for every system.
//
//   dotnet run -c Release --project benchmarks/Boc.Orleans.Bench [transfers-per-run]
using System.Diagnostics;
using System.Runtime.InteropServices;
using Boc;
using Boc.Orleans;
using Boc.Orleans.Bench;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Hosting;
using Orleans.TestingHost;
using Orleans.Transactions;

int transfers = args.Length > 0 ? int.Parse(args[0]) : 2000;
const int Accounts = 1000;
const int InFlight = 32;
const int Runs = 3;

Console.WriteLine($"machine: {Environment.ProcessorCount} cores, {RuntimeInformation.OSDescription}, {RuntimeInformation.FrameworkDescription}");
Console.WriteLine($"{transfers} transfers per run over {Accounts} accounts, {InFlight} in flight, {Runs} runs per cell after a warm-up run");

var builder = new TestClusterBuilder(3);
builder.AddSiloBuilderConfigurator<SiloSetup>();
builder.AddClientBuilderConfigurator<ClientSetup>();
TestCluster cluster = builder.Build();
await cluster.DeployAsync();

var rows = new List<string>();
foreach (string workload in new[] { "uniform", "hot" })
{
    (int, int, long)[] Plan(int seed)
    {
        var random = new Random(seed);
        int Pick() => workload == "hot" && random.Next(10) < 8 ? random.Next(8) : random.Next(Accounts);
        return [.. Enumerable.Range(0, transfers).Select(_ =>
        {
            int from = Pick(), to = Pick();
            while (to == from) { to = Pick(); }
            return (from, to, (long)random.Next(1, 100));
        })];
    }

    var results = new Dictionary<string, List<Result>>();
    for (int run = 0; run <= Runs; run++)
    {
        (int, int, long)[] plan = Plan(run);

        // Orleans transactions: conflicts abort; the caller retries until the transfer commits.
        ITxTeller teller = cluster.Client.GetGrain<ITxTeller>(0);
        Result tx = await Measure(plan, async (f, t, a) =>
        {
            long aborts = 0;
            while (true)
            {
                try
                {
                    await teller.Transfer(f, t, a);
                    return aborts;
                }
                catch (OrleansTransactionException)
                {
                    aborts++;
                }
            }
        });

        // Distributed Boc: one spawner (the client's IBocCluster); abandoned attempts would be its retries.
        IBocCluster boc = cluster.Client.ServiceProvider.GetRequiredService<IBocCluster>();
        ClusterCown<BocAccount>[] cowns = [.. Enumerable.Range(0, Accounts).Select(i => boc.Cown<BocAccount>($"{workload}-{i}"))];
        long abandonedBefore = BocCluster.Abandoned;
        Result dist = await Measure(plan, async (f, t, a) =>
        {
            await boc.WhenAsync(cowns[f], cowns[t], (x, y) => { x.Balance -= a; y.Balance += a; });
            return 0;
        });
        dist = dist with { Aborts = BocCluster.Abandoned - abandonedBefore };

        // In-process Boc on this machine's cores, the same plan.
        using var runtime = new BocRuntime();
        Cown<BocAccount>[] local = [.. Enumerable.Range(0, Accounts).Select(_ => new Cown<BocAccount>(new BocAccount()))];
        Result inProcess = await Measure(plan, async (f, t, a) =>
        {
            await runtime.WhenAsync(local[f], local[t], (x, y) => { x.Balance -= a; y.Balance += a; });
            return 0;
        });

        if (run == 0)
        {
            continue;   // warm-up
        }

        foreach ((string name, Result r) in new[] { ("Orleans transactions", tx), ("distributed Boc", dist), ("in-process Boc", inProcess) })
        {
            (results.TryGetValue(name, out List<Result>? list) ? list : results[name] = []).Add(r);
            Console.WriteLine($"  {workload,-8} run {run}: {name,-21} {r.PerSecond,9:F0}/s  p50 {r.P50,8:F2} ms  p99 {r.P99,8:F2} ms  aborts {r.Aborts}");
        }
    }

    Result Median(string name) => results[name].OrderBy(r => r.PerSecond).ElementAt(Runs / 2);
    Result txm = Median("Orleans transactions"), bm = Median("distributed Boc"), lm = Median("in-process Boc");
    foreach ((string name, Result r) in new[] { ("Orleans transactions", txm), ("distributed Boc", bm), ("in-process Boc", lm) })
    {
        long aborts = results[name].Sum(x => x.Aborts);
        rows.Add($"| {workload} | {name} | {r.PerSecond:N0} | {r.P50:F3} | {r.P99:F3} | {aborts:N0} |");
    }

    rows.Add($"| {workload} | Boc ÷ transactions | {bm.PerSecond / txm.PerSecond:F2}× | {bm.P50 / txm.P50:F2}× | {bm.P99 / txm.P99:F2}× | |");
    rows.Add($"| {workload} | in-process ÷ distributed Boc | {lm.PerSecond / bm.PerSecond:F0}× | | | |");
}

Console.WriteLine();
Console.WriteLine("| workload | system | transfers/s | p50 ms | p99 ms | aborts + retries (all runs) |");
Console.WriteLine("|---|---|---:|---:|---:|---:|");
rows.ForEach(Console.WriteLine);

await cluster.StopAllSilosAsync();
await cluster.DisposeAsync();

static async Task<Result> Measure((int From, int To, long Amount)[] plan, Func<int, int, long, Task<long>> transfer)
{
    var latencies = new double[plan.Length];
    long aborts = 0;
    int next = -1;
    var clock = Stopwatch.StartNew();
    await Task.WhenAll(Enumerable.Range(0, InFlight).Select(_ => Task.Run(async () =>
    {
        int n;
        while ((n = Interlocked.Increment(ref next)) < plan.Length)
        {
            long start = Stopwatch.GetTimestamp();
            Interlocked.Add(ref aborts, await transfer(plan[n].From, plan[n].To, plan[n].Amount));
            latencies[n] = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        }
    })));
    clock.Stop();
    Array.Sort(latencies);
    return new Result(plan.Length / clock.Elapsed.TotalSeconds, latencies[latencies.Length / 2], latencies[(int)(latencies.Length * 0.99)], aborts);
}

internal sealed record Result(double PerSecond, double P50, double P99, long Aborts);

internal sealed class SiloSetup : ISiloConfigurator
{
    public void Configure(ISiloBuilder silo) => silo
        .AddBocCowns()
        .AddMemoryGrainStorage(BocCluster.StorageName)
        .AddMemoryGrainStorage("TransactionStore")
        .UseTransactions();
}

internal sealed class ClientSetup : IClientBuilderConfigurator
{
    public void Configure(Microsoft.Extensions.Configuration.IConfiguration configuration, IClientBuilder client) => client
        .AddBocCowns()
        .UseTransactions();
}
