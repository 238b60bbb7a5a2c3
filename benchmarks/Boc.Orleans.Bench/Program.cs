// Transfer workload on three silos on a durable store: distributed Boc against Orleans transactions, both on Orleans'
// Redis grain storage (a redis-server of the benchmark's own: append-only file, fsync at every write). A console timing
// of a fixed workload; the same accounts, random plan and number in flight for every system; the order of the systems
// rotates from run to run; one warm-up run, then the median of the runs per cell.
//
//   dotnet run -c Release --project benchmarks/Boc.Orleans.Bench [transfers-per-run] [runs] [systems] [workloads]
//
// systems and workloads: comma-separated parts of names to keep (e.g. "distributed,key order" and "hot"); all by default.
// Besides time, each cell gives the grain calls the silos received, the storage writes, and the CPU time of this process
// and redis-server, per transfer (Counting.cs; the CPU time also covers the client and is the least disturbed by load).
// The counts are process-wide: they hold each cown's first activation, and what the cell before left to do (a short run
// shows both; 2,000 transfers per run make them small).
//
// Systems: distributed Boc (one WhenAsync over both accounts); Orleans transactions started by the client
// (RunTransaction) with the two Adds in parallel, as the transactions documentation writes them; and the careful
// Orleans user's version, the two Adds one after the other in key order (two transfers over one pair then take the
// locks in the same order). Aborted transactions are retried until they commit; every retry is counted.
using System.Diagnostics;
using System.Runtime.InteropServices;
using Boc;
using Boc.Orleans;
using Boc.Orleans.Bench;
using Boc.Orleans.FaultTests.Node;
using Microsoft.Extensions.DependencyInjection;
using Orleans.Hosting;
using Orleans.Runtime.Hosting;
using Orleans.Storage;
using Orleans.TestingHost;
using Orleans.Transactions;
using StackExchange.Redis;

int transfers = args.Length > 0 ? int.Parse(args[0]) : 2000;
int runs = args.Length > 1 ? int.Parse(args[1]) : 3;
string[] keepSystems = args.Length > 2 ? args[2].Split(',') : [""];
string[] keepWorkloads = args.Length > 3 ? args[3].Split(',') : [""];
bool Kept(string name, string[] keep) => keep.Any(k => name.Contains(k, StringComparison.OrdinalIgnoreCase));
const int Accounts = 1000;
const int InFlight = 32;

await using RedisProcess redis = await RedisProcess.StartAsync();
Store.Endpoint = redis.Endpoint;
string cpu = File.Exists("/proc/cpuinfo") ? File.ReadLines("/proc/cpuinfo").FirstOrDefault(l => l.StartsWith("model name", StringComparison.Ordinal))?.Split(':')[1].Trim() ?? "?" : "?";
string redisVersion = (string?)(await redis.Connection.GetDatabase().ExecuteAsync("INFO", "server"))?.ToString().Split('\n').FirstOrDefault(l => l.StartsWith("redis_version", StringComparison.Ordinal))?.Trim() ?? "?";
Console.WriteLine($"machine: {cpu}, {Environment.ProcessorCount} cores, {RuntimeInformation.OSDescription}, {RuntimeInformation.FrameworkDescription}, {redisVersion}, appendfsync always");
Console.WriteLine($"{transfers} transfers per run over {Accounts} accounts, {InFlight} in flight, {runs} runs per cell after a warm-up run");
Console.WriteLine($"redis write (HSET, fsynced), p50 of 500 from one client: {await WriteLatencyAsync(redis.Connection.GetDatabase()):F3} ms");

var builder = new TestClusterBuilder(3);
builder.AddSiloBuilderConfigurator<SiloSetup>();
builder.AddClientBuilderConfigurator<ClientSetup>();
TestCluster cluster = builder.Build();
await cluster.DeployAsync();

IBocCluster boc = cluster.Client.ServiceProvider.GetRequiredService<IBocCluster>();
ITransactionClient transactions = cluster.Client.ServiceProvider.GetRequiredService<ITransactionClient>();
var rows = new List<string>();
var steps = new List<string>();
string[] workloads = ["uniform", "hot"];
string[] transactionVariants = ["transactions, parallel Adds", "transactions, Adds in key order"];
foreach (string workload in workloads.Where(w => Kept(w, keepWorkloads)))
{
    (int, int, long)[] Plan(int seed)
    {
        var random = new Random(seed);
        int Pick() => workload == "hot" && random.Next(10) < 8 ? random.Next(8) : random.Next(Accounts);
        return [.. Enumerable.Range(0, transfers).Select(_ =>
        {
            int from = Pick(), to = Pick();
            while (to == from)
            {
                to = Pick();
            }

            return (from, to, (long)random.Next(1, 100));
        })];
    }

    ClusterCown<BocAccount>[] cowns = [.. Enumerable.Range(0, Accounts).Select(i => boc.Cown<BocAccount>($"{workload}-{i}"))];
    int txBase = workload == "hot" ? Accounts : 0;
    using var runtime = new BocRuntime();
    Cown<BocAccount>[] local = [.. Enumerable.Range(0, Accounts).Select(_ => new Cown<BocAccount>(new BocAccount()))];

    // Each system: a name and one transfer, returning the number of retries it took.
    (string Name, Func<int, int, long, Task<long>> Transfer)[] systems =
    [
        ("distributed Boc", async (f, t, a) =>
        {
            await boc.WhenAsync(cowns[f], cowns[t], (x, y) => { x.Balance -= a; y.Balance += a; });
            return 0;
        }),
        ("transactions, parallel Adds", (f, t, a) => Retrying(() => transactions.RunTransaction(TransactionOption.Create, () => Task.WhenAll(
            cluster.Client.GetGrain<ITxAccount>(txBase + f).Add(-a),
            cluster.Client.GetGrain<ITxAccount>(txBase + t).Add(a))))),
        ("transactions, Adds in key order", (f, t, a) => Retrying(() => transactions.RunTransaction(TransactionOption.Create, async () =>
        {
            (int first, long firstAmount, int second, long secondAmount) = f < t ? (f, -a, t, a) : (t, a, f, -a);
            await cluster.Client.GetGrain<ITxAccount>(txBase + first).Add(firstAmount);
            await cluster.Client.GetGrain<ITxAccount>(txBase + second).Add(secondAmount);
        }))),
        ("in-process Boc", async (f, t, a) =>
        {
            await runtime.WhenAsync(local[f], local[t], (x, y) => { x.Balance -= a; y.Balance += a; });
            return 0;
        }),
    ];

    systems = [.. systems.Where(s => Kept(s.Name, keepSystems))];
    var results = systems.ToDictionary(s => s.Name, _ => new List<Result>());
    for (int run = 0; run <= runs; run++)
    {
        (int, int, long)[] plan = Plan(run);
        for (int k = 0; k < systems.Length; k++)
        {
            // Rotate the order, so no system always runs first (or after the same one).
            (string name, Func<int, int, long, Task<long>> transfer) = systems[(k + run) % systems.Length];
            long abandonedBefore = BocCluster.Abandoned;
            if (name == "distributed Boc")
            {
                StepTimes.Reset();
            }

            (long calls, long writes, double cpuBefore) = (Counting.Calls, Counting.Writes, await CpuMillisecondsAsync(redis));
            Result r = await Measure(plan, transfer);
            r = r with
            {
                Calls = (double)(Counting.Calls - calls) / plan.Length,
                Writes = (double)(Counting.Writes - writes) / plan.Length,
                Cpu = (await CpuMillisecondsAsync(redis) - cpuBefore) / plan.Length,
            };
            if (name == "distributed Boc")
            {
                r = r with { Retries = BocCluster.Abandoned - abandonedBefore };
                if (run > 0)
                {
                    steps.Add($"| {workload} | run {run} | " + string.Join(" | ", StepTimes.Snapshot().Select(s => $"{s.MeanMs:F2}")) + " |");
                }
            }

            if (run > 0)
            {
                results[name].Add(r);
                Console.WriteLine($"  {workload,-8} run {run}: {name,-32} {r.PerSecond,9:F0}/s  p50 {r.P50,8:F2} ms  p99 {r.P99,8:F2} ms  retries {r.Retries}  calls {r.Calls:F2}  writes {r.Writes:F2}  cpu {r.Cpu:F3} ms");
            }
        }
    }

    Result Median(string name) => results[name].OrderBy(r => r.PerSecond).ElementAt(runs / 2);
    foreach ((string name, _) in systems)
    {
        Result m = Median(name);
        rows.Add($"| {workload} | {name} | {m.PerSecond:N0} | {m.P50:F2} | {m.P99:F2} | {results[name].Sum(x => x.Retries):N0} | {m.Calls:F2} | {m.Writes:F2} | {m.Cpu:F2} |");
    }

    Result[] transactionRuns = [.. transactionVariants.Where(results.ContainsKey).Select(Median)];
    if (results.ContainsKey("distributed Boc") && transactionRuns.Length > 0)
    {
        Result bm = Median("distributed Boc");
        Result better = transactionRuns.MaxBy(r => r.PerSecond)!;
        rows.Add($"| {workload} | Boc ÷ the better transactions variant | {bm.PerSecond / better.PerSecond:F2}× | {bm.P50 / better.P50:F2}× | {bm.P99 / better.P99:F2}× | | | | |");
    }
}

Console.WriteLine();
Console.WriteLine("| workload | system | transfers/s | p50 ms | p99 ms | aborts retried (all runs) | grain calls per transfer | storage writes per transfer | CPU ms per transfer |");
Console.WriteLine("|---|---|---:|---:|---:|---:|---:|---:|---:|");
rows.ForEach(Console.WriteLine);
Console.WriteLine();
Console.WriteLine("Distributed Boc, mean ms per attempt in each step (" + string.Join(", ", StepTimes.Names) + "):");
Console.WriteLine("| workload | run | " + string.Join(" | ", StepTimes.Names) + " |");
Console.WriteLine("|---|---|" + string.Concat(StepTimes.Names.Select(_ => "---:|")));
steps.ForEach(Console.WriteLine);

await cluster.StopAllSilosAsync();
await cluster.DisposeAsync();

static async Task<long> Retrying(Func<Task> transaction)
{
    long retries = 0;
    while (true)
    {
        try
        {
            await transaction();
            return retries;
        }
        catch (OrleansTransactionException)
        {
            retries++;
        }
    }
}

// The CPU time of this process (the silos and the client) and of redis-server, in milliseconds: a run's cost per transfer
// that other load on the machine does not change much, unlike its time.
static async Task<double> CpuMillisecondsAsync(RedisProcess redis)
{
    string info = (string?)await redis.Connection.GetDatabase().ExecuteAsync("INFO", "cpu") ?? "";
    double Field(string name) => info.Split('\n').Where(l => l.StartsWith(name + ":", StringComparison.Ordinal)).Select(l => double.Parse(l[(name.Length + 1)..].Trim(), System.Globalization.CultureInfo.InvariantCulture)).FirstOrDefault();
    return Process.GetCurrentProcess().TotalProcessorTime.TotalMilliseconds + (1000 * (Field("used_cpu_sys") + Field("used_cpu_user")));
}

static async Task<double> WriteLatencyAsync(IDatabase db)
{
    var samples = new double[500];
    for (int i = 0; i < samples.Length; i++)
    {
        long start = Stopwatch.GetTimestamp();
        await db.HashSetAsync("bench:latency", "data", i);
        samples[i] = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
    }

    Array.Sort(samples);
    return samples[samples.Length / 2];
}

static async Task<Result> Measure((int From, int To, long Amount)[] plan, Func<int, int, long, Task<long>> transfer)
{
    var latencies = new double[plan.Length];
    long retries = 0;
    int next = -1;
    var clock = Stopwatch.StartNew();
    await Task.WhenAll(Enumerable.Range(0, InFlight).Select(_ => Task.Run(async () =>
    {
        int n;
        while ((n = Interlocked.Increment(ref next)) < plan.Length)
        {
            long start = Stopwatch.GetTimestamp();
            Interlocked.Add(ref retries, await transfer(plan[n].From, plan[n].To, plan[n].Amount));
            latencies[n] = Stopwatch.GetElapsedTime(start).TotalMilliseconds;
        }
    })));
    clock.Stop();
    Array.Sort(latencies);
    return new Result(plan.Length / clock.Elapsed.TotalSeconds, latencies[latencies.Length / 2], latencies[(int)(latencies.Length * 0.99)], retries);
}

internal sealed record Result(double PerSecond, double P50, double P99, long Retries, double Calls = 0, double Writes = 0, double Cpu = 0);

/// <summary>The benchmark's Redis server, for the silo configurators (which the test cluster creates by type).</summary>
internal static class Store
{
    public static string Endpoint { get; set; } = "";
}

internal sealed class SiloSetup : ISiloConfigurator
{
    public void Configure(ISiloBuilder silo)
    {
        silo.AddBocCowns()
            .AddRedisGrainStorage("BocRedis", o => o.ConfigurationOptions = ConfigurationOptions.Parse(Store.Endpoint))
            .AddRedisGrainStorage("TransactionRedis", o => o.ConfigurationOptions = ConfigurationOptions.Parse(Store.Endpoint))
            .UseTransactions()
            .AddIncomingGrainCallFilter<CallCounter>();

        // Both systems' stores behind a counter of writes (Counting.cs).
        silo.Services.AddGrainStorage(BocCluster.StorageName, (services, _) => new WriteCounter(services.GetRequiredKeyedService<IGrainStorage>("BocRedis")));
        silo.Services.AddGrainStorage("TransactionStore", (services, _) => new WriteCounter(services.GetRequiredKeyedService<IGrainStorage>("TransactionRedis")));
    }
}

internal sealed class ClientSetup : IClientBuilderConfigurator
{
    public void Configure(Microsoft.Extensions.Configuration.IConfiguration configuration, IClientBuilder client) => client
        .AddBocCowns()
        .UseTransactions();
}
