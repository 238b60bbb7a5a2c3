#:project ../Boc.Benchmarks/Boc.Benchmarks.csproj
#:property RunAnalyzers=false
// How soon a canceled wait returns (issue 59): a WhenAsync queued behind a holder that keeps its cown for a second is
// canceled, and the time from Cancel() to the awaiter resuming is recorded, on both dispatchers. Each holder period
// takes many samples (a fresh spawn and token per sample, all queued behind the same holder), and the probe checks that
// the holder still held the cown when each sample completed. Prints p50, p99 and max per dispatcher, in microseconds.
//
//   dotnet run -c Release benchmarks/tools/CancelPromptnessProbe.cs -- [--holders N] [--samples N] [--hold-ms N]

using System.Diagnostics;
using System.Globalization;
using Boc;

var inv = CultureInfo.InvariantCulture;
int holders = 5;
int samples = 200;
int holdMs = 1000;
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--holders": holders = int.Parse(args[++i], inv); break;
        case "--samples": samples = int.Parse(args[++i], inv); break;
        case "--hold-ms": holdMs = int.Parse(args[++i], inv); break;
        default: throw new ArgumentException($"unknown argument {args[i]}");
    }
}

Console.WriteLine($"# cancel to completion, a WhenAsync queued behind a {holdMs} ms holder; {holders} holders x {samples} samples per dispatcher");
Console.WriteLine("dispatcher    | samples | p50 µs | p99 µs | max µs | completed while held | ran (not canceled in time)");
foreach (BocDispatcher dispatcher in new[] { BocDispatcher.BocScheduler, BocDispatcher.ThreadPool })
{
    await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
    var cown = new Cown<long[]>(new long[1], "held");
    var micros = new List<double>();
    int whileHeld = 0;
    int ranAnyway = 0;
    for (int h = 0; h < holders + 1; h++)
    {
        bool warmUp = h == 0;
        int released = 0;
        using var started = new SemaphoreSlim(0);
        runtime.When(cown, async c =>
        {
            started.Release();
            await Task.Delay(holdMs);
            Volatile.Write(ref released, 1);
            c[0]++;
        });
        await started.WaitAsync();
        for (int s = 0; s < (warmUp ? Math.Min(20, samples) : samples); s++)
        {
            using var cts = new CancellationTokenSource();
            ValueTask<long> queued = runtime.WhenAsync(cown, c => c[0], cts.Token);
            long start = Stopwatch.GetTimestamp();
            cts.Cancel();
            try
            {
                await queued;

                // Possible only once the holder has let the cown go (a runtime that waits for it, for instance): the body
                // started before the cancellation arrived. Not a sample of a canceled wait.
                ranAnyway++;
                continue;
            }
            catch (BehaviourWithdrawnException)
            {
            }

            double elapsed = Stopwatch.GetElapsedTime(start).TotalMicroseconds;
            if (!warmUp)
            {
                micros.Add(elapsed);
                whileHeld += Volatile.Read(ref released) == 0 ? 1 : 0;
            }
        }

        await runtime.WaitForQuiescenceAsync();
    }

    micros.Sort();
    double P(double q) => micros[Math.Min(micros.Count - 1, (int)Math.Ceiling(q * micros.Count) - 1)];
    Console.WriteLine(string.Create(inv, $"{dispatcher,-13} | {micros.Count,7} | {P(0.50),6:F1} | {P(0.99),6:F1} | {micros[^1],6:F0} | {whileHeld} of {micros.Count} | {ranAnyway}"));
}

return 0;
