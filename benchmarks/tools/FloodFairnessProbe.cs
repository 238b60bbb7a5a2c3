#:project ../Boc.Benchmarks/Boc.Benchmarks.csproj
#:property RunAnalyzers=false
// How long work spawned from outside waits behind floods (issue 39, item 2): while the workers run floods of one-cown
// behaviours (150,000 per hot cown, one hot cown per worker, 5 µs bodies, all spawned from this thread up front, so
// appended 32 bodies to a behaviour), this thread spawns 20 behaviours on fresh cowns and records when each ran.
//
//   dotnet run -c Release benchmarks/tools/FloodFairnessProbe.cs -- [--rounds N]
//
// Prints, per configuration (1 and 2 workers on BocScheduler, the default, the thread pool): the wait of the first,
// median and last outside behaviour (from its spawn to the start of its body; the median over rounds of each), and
// how many hot bodies ran per outside behaviour until the last one ran.

using System.Diagnostics;
using System.Globalization;
using Boc;

var inv = CultureInfo.InvariantCulture;
int rounds = args.Length > 1 && args[0] == "--rounds" ? int.Parse(args[1], inv) : 5;
const int PerHotCown = 150_000;
const int Outside = 20;
double ticksPerMs = Stopwatch.Frequency / 1000.0;
long bodyTicks = Stopwatch.Frequency / 200_000; // 5 µs

Console.WriteLine($"{"configuration",-24} {"first ms",9} {"median ms",10} {"last ms",9} {"hot bodies per outside",24}");
foreach ((string name, BocRuntimeOptions options) in new (string, BocRuntimeOptions)[]
{
    ("BocScheduler, 1 worker", new() { WorkerCount = 1 }),
    ("BocScheduler, 2 workers", new() { WorkerCount = 2 }),
    ("default", new()),
    ("thread pool", new() { Dispatcher = BocDispatcher.ThreadPool }),
})
{
    var first = new List<double>();
    var median = new List<double>();
    var last = new List<double>();
    var perOutside = new List<double>();
    for (int round = 0; round < rounds; round++)
    {
        await using var runtime = new BocRuntime(options);
        int workers = options.WorkerCount ?? Environment.ProcessorCount;
        long hotRun = 0;
        var hot = Enumerable.Range(0, workers).Select(_ => new Cown<long[]>(new long[1])).ToArray();
        for (int i = 0; i < PerHotCown; i++)
        {
            foreach (Cown<long[]> cown in hot)
            {
                runtime.When(cown, c =>
                {
                    long until = Stopwatch.GetTimestamp() + bodyTicks;
                    while (Stopwatch.GetTimestamp() < until)
                    {
                    }

                    c[0]++;
                    Interlocked.Increment(ref hotRun);
                });
            }
        }

        // Let the floods get going, then spawn the outside behaviours.
        while (Volatile.Read(ref hotRun) < 1_000)
        {
            Thread.Yield();
        }

        var spawnedAt = new long[Outside];
        var ranAt = new long[Outside];
        long hotAtStart = Volatile.Read(ref hotRun);
        long hotAtLast = 0;
        using var done = new CountdownEvent(Outside);
        for (int k = 0; k < Outside; k++)
        {
            int index = k;
            spawnedAt[k] = Stopwatch.GetTimestamp();
            runtime.When(new Cown<long[]>(new long[1]), _ =>
            {
                ranAt[index] = Stopwatch.GetTimestamp();
                if (index == Outside - 1)
                {
                    hotAtLast = Volatile.Read(ref hotRun);
                }

                done.Signal();
            });
        }

        done.Wait();
        var waits = Enumerable.Range(0, Outside).Select(k => (ranAt[k] - spawnedAt[k]) / ticksPerMs).ToArray();
        first.Add(waits[0]);
        median.Add(waits.Order().ElementAt(Outside / 2));
        last.Add(waits[^1]);
        perOutside.Add((hotAtLast - hotAtStart) / (double)Outside);
        await runtime.WaitForQuiescenceAsync();
    }

    static double Median(List<double> values) => values.Order().ElementAt(values.Count / 2);
    Console.WriteLine(string.Create(inv, $"{name,-24} {Median(first),9:F2} {Median(median),10:F2} {Median(last),9:F2} {Median(perOutside),24:F1}"));
}

return 0;
