using System.Threading.Channels;
using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Micro;

/// <summary>
/// Scenario 1: N independent one-cown behaviours with an (almost) empty body, against N bare thread-pool work items and
/// N messages to Channel-based actors. Every variant does the same work per item: one countdown signal.
/// Times are per item (OperationsPerInvoke).
/// </summary>
[Config(typeof(MicroConfig))]
public class SpawnRunBenchmarks : TwoDispatchers
{
    public const int N = 1024;

    private readonly Countdown _countdown = new();
    private Cown<Cell>[] _cowns = null!;
    private SignalItem _item = null!;
    private ChannelActor[] _actors = null!;

    [GlobalSetup]
    public void Setup()
    {
        CreateRuntimes();
        _cowns = Enumerable.Range(0, N).Select(_ => new Cown<Cell>(new Cell())).ToArray();
        _item = new SignalItem(_countdown);
        _actors = Enumerable.Range(0, N).Select(_ => new ChannelActor()).ToArray();
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        DisposeRuntimes();
        foreach (ChannelActor actor in _actors)
        {
            actor.Complete();
        }
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = N, Description = "bare IThreadPoolWorkItem")]
    [BenchmarkCategory("1 spawn+run")]
    public void ThreadPoolWorkItem()
    {
        _countdown.Reset(N);
        for (int i = 0; i < N; i++)
        {
            ThreadPool.UnsafeQueueUserWorkItem(_item, preferLocal: false);
        }

        _countdown.Wait();
    }

    [Benchmark(OperationsPerInvoke = N, Description = "Boc static+state, thread pool")]
    [BenchmarkCategory("1 spawn+run")]
    public void BocStaticOnThreadPool() => SpawnStatic(PoolRuntime);

    [Benchmark(OperationsPerInvoke = N, Description = "Boc static+state, BocScheduler")]
    [BenchmarkCategory("1 spawn+run")]
    public void BocStaticOnBocScheduler() => SpawnStatic(SchedulerRuntime);

    [Benchmark(OperationsPerInvoke = N, Description = "Boc capturing lambda, thread pool")]
    [BenchmarkCategory("1 spawn+run")]
    public void BocCapturingOnThreadPool()
    {
        Countdown countdown = _countdown;
        countdown.Reset(N);
        for (int i = 0; i < N; i++)
        {
            // Captures the loop variable, as typical code does: a closure and a delegate per spawn.
            int index = i;
            PoolRuntime.When(_cowns[i], cell =>
            {
                cell.Value += index;
                countdown.Signal();
            });
        }

        countdown.Wait();
    }

    [Benchmark(OperationsPerInvoke = N, Description = "Channel<T> actors")]
    [BenchmarkCategory("1 spawn+run")]
    public void ChannelActors()
    {
        _countdown.Reset(N);
        for (int i = 0; i < N; i++)
        {
            _actors[i].Send(_countdown);
        }

        _countdown.Wait();
    }

    private void SpawnStatic(BocRuntime runtime)
    {
        _countdown.Reset(N);
        for (int i = 0; i < N; i++)
        {
            runtime.When(_cowns[i], static (_, countdown) => countdown.Signal(), _countdown);
        }

        _countdown.Wait();
    }

    private sealed class SignalItem(Countdown countdown) : IThreadPoolWorkItem
    {
        public void Execute() => countdown.Signal();
    }

    /// <summary>What a .NET developer writes without a library: one unbounded channel and one reader loop per actor.</summary>
    private sealed class ChannelActor
    {
        private readonly Channel<Countdown> _mailbox = Channel.CreateUnbounded<Countdown>(
            new UnboundedChannelOptions { SingleReader = true, SingleWriter = false });

        public ChannelActor() => _ = Task.Run(RunAsync);

        public void Send(Countdown message) => _mailbox.Writer.TryWrite(message);

        public void Complete() => _mailbox.Writer.TryComplete();

        private async Task RunAsync()
        {
            ChannelReader<Countdown> reader = _mailbox.Reader;
            while (await reader.WaitToReadAsync().ConfigureAwait(false))
            {
                while (reader.TryRead(out Countdown? message))
                {
                    message.Signal();
                }
            }
        }
    }
}
