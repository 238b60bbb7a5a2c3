#:project ../Boc.Benchmarks/Boc.Benchmarks.csproj
#:property RunAnalyzers=false
// Where an asynchronous body's release runs, and what it costs (src/Boc/Protocol/Behaviour.Run.cs,
// ReleaseOnCapturedContext): a message chain between two cowns whose every body awaits once (Task.Yield, which resumes
// on the workers) and then spawns the next message, like Ping Pong with an await in each body. Prints, per block of
// runs, the median time per message, and the thread-pool items and allocation per message (a release sent to the
// thread pool shows as about one pool item per message).
//
//   dotnet run -c Release benchmarks/tools/AsyncChainProbe.cs -- [--messages N] [--runs N] [--blocks N] [--workers N]

using System.Diagnostics;
using System.Globalization;
using Boc;

if (Boc.Benchmarks.SteadyStateProcess.RunAgainWithoutCallCountingDelay(args) is int exitCode)
{
    return exitCode;
}

var inv = CultureInfo.InvariantCulture;
int messages = 20_000;
int runs = 20;
int blocks = 6;
int? workers = null;
for (int i = 0; i < args.Length; i++)
{
    switch (args[i])
    {
        case "--messages": messages = int.Parse(args[++i], inv); break;
        case "--runs": runs = int.Parse(args[++i], inv); break;
        case "--blocks": blocks = int.Parse(args[++i], inv); break;
        case "--workers": workers = int.Parse(args[++i], inv); break;
        default: throw new ArgumentException($"unknown argument {args[i]}");
    }
}

await using var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = workers });
for (int block = 0; block < blocks; block++)
{
    var times = new List<double>();
    long poolBefore = ThreadPool.CompletedWorkItemCount;
    long allocatedBefore = GC.GetTotalAllocatedBytes();
    for (int run = 0; run < runs; run++)
    {
        var chain = new Chain(runtime, messages);
        long start = Stopwatch.GetTimestamp();
        await chain.RunAsync();
        times.Add(Stopwatch.GetElapsedTime(start).TotalMilliseconds * 1e6 / messages);
    }

    times.Sort();
    double pool = (ThreadPool.CompletedWorkItemCount - poolBefore) / (double)(runs * messages);
    double bytes = (GC.GetTotalAllocatedBytes() - allocatedBefore) / (double)(runs * messages);
    Console.WriteLine(string.Create(inv,
        $"block {block}: median {times[times.Count / 2]:F0} ns a message ({times[0]:F0}-{times[^1]:F0}), {pool:F2} pool items and {bytes:F0} bytes a message"));
}

return 0;

/// <summary>Two cowns passing a message back and forth; each body awaits once, then sends the next.</summary>
internal sealed class Chain(BocRuntime runtime, int count)
{
    private readonly Cown<Side> _left = new(new Side());
    private readonly Cown<Side> _right = new(new Side());
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly int _messages = count;
    private int _remaining = count;

    public async Task RunAsync()
    {
        Send(_left);
        await _done.Task.ConfigureAwait(false);
        await runtime.WaitForQuiescenceAsync().ConfigureAwait(false);
        int received = await runtime.WhenAsync(_left, _right, (l, r) => l.Received + r.Received).ConfigureAwait(false);
        if (received != _messages)
        {
            throw new InvalidOperationException($"{received} messages received, expected {_messages}");
        }
    }

    private void Send(Cown<Side> to) => runtime.When(to, static async (side, state) =>
    {
        await Task.Yield();
        side.Received++;
        (Chain chain, Cown<Side> self) = state;
        if (--chain._remaining == 0)
        {
            chain._done.SetResult();
            return;
        }

        chain.Send(ReferenceEquals(self, chain._left) ? chain._right : chain._left);
    }, (this, to));

    private sealed class Side
    {
        public int Received;
    }
}
