// Boc.Testing measurements (not a test: it asserts nothing, it prints numbers).
//
//   dotnet run -c Release --project benchmarks/Boc.Testing.Bench -- bdn --filter '*'   # schedules per second (BenchmarkDotNet)
//   dotnet run -c Release --project benchmarks/Boc.Testing.Bench -- speed      # the same, as a quick measured loop
//   dotnet run -c Release --project benchmarks/Boc.Testing.Bench -- contrast   # the bug zoo in plain runs
//
// The exploration speed in benchmarks/README.md#boctesting-exploration-speed-and-the-zoos-contrast comes from the
// BenchmarkDotNet run (ExplorationBenchmarks: time per schedule); "speed" is a rough loop for a quick look.

using System.Diagnostics;
using System.Globalization;
using Boc;
using Boc.Testing;
using Boc.Testing.Bench;
using Boc.Testing.Tests.Zoo;

string mode = args.Length > 0 ? args[0] : "speed";
if (mode == "bdn")
{
    BenchmarkDotNet.Running.BenchmarkSwitcher.FromAssembly(typeof(ExplorationBenchmarks).Assembly).Run(args[1..]);
}
else if (mode == "speed")
{
    await Speed();
}
else if (mode == "contrast")
{
    int runs = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 1000;
    await Contrast(runs);
}
else
{
    Console.Error.WriteLine("usage: bdn [BenchmarkDotNet arguments] | speed | contrast [runs]");
    return 2;
}

return 0;

static async Task Speed()
{
    // Warm-up (JIT, tiering), then three measured explorations per strategy; the median is reported.
    await BocTest.ExploreAsync(BankTransferScenario.Run, new BocTestOptions { Iterations = 2000 });
    foreach ((string name, BocTestStrategy strategy) in new[] { ("random", BocTestStrategy.Random), ("pct(3)", BocTestStrategy.Pct()) })
    {
        var rates = new List<(double Schedules, double Steps, long Longest)>();
        for (int round = 0; round < 3; round++)
        {
            var options = new BocTestOptions { Iterations = 5000, Strategies = [strategy], Seed = round * 5000 };
            var clock = Stopwatch.StartNew();
            BocTestReport report = await BocTest.ExploreAsync(BankTransferScenario.Run, options);
            clock.Stop();
            rates.Add((report.Iterations / clock.Elapsed.TotalSeconds, report.TotalSteps / clock.Elapsed.TotalSeconds, report.LongestRun));
        }

        var median = rates.OrderBy(r => r.Schedules).ElementAt(1);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"bank transfer, {name}: {median.Schedules:N0} schedules/s ({median.Steps:N0} steps/s, longest run {median.Longest} steps); rounds: {string.Join(", ", rates.Select(r => r.Schedules.ToString("N0", CultureInfo.InvariantCulture)))}"));
    }
}

static async Task Contrast(int runs)
{
    // Each zoo program on a fresh real runtime (thread-pool dispatcher: a deadlocked runtime can be abandoned without
    // stranding worker threads). A run hits the bug if it throws the bug's exception or does not finish within 1 s.
    var hang = TimeSpan.FromSeconds(1);
    foreach (ZooCase zoo in ZooCase.All)
    {
        int hits = 0;
        int n = zoo.Symptom == BocTestFailureKind.Deadlock ? Math.Min(runs, 200) : runs;
        for (int i = 0; i < n; i++)
        {
            var rt = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.ThreadPool });
            try
            {
                await zoo.Buggy(rt).WaitAsync(hang);
            }
            catch (ZooBugException)
            {
                hits++;
            }
            catch (TimeoutException)
            {
                hits++;
            }
        }

        BocTestFailureException found = await FirstFailure(zoo);
        Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
            $"{zoo.Name}: plain runs hit it {hits} of {n}; Boc.Testing found it in iteration {found.Iteration} ({found.Strategy}, seed {found.Seed})"));
    }
}

static async Task<BocTestFailureException> FirstFailure(ZooCase zoo)
{
    try
    {
        await BocTest.ExploreAsync(1000, zoo.Buggy);
    }
    catch (BocTestFailureException failure)
    {
        return failure;
    }

    throw new InvalidOperationException($"{zoo.Name}: not found in 1000 schedules");
}
