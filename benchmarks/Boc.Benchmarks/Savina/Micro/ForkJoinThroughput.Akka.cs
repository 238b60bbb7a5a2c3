using Akka.Actor;
using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

// Akka.NET baseline of Fork-Join Throughput: the actors and messages of ForkJoinThroughputActor. Each worker tells the
// Master it is done after its N-th message and stops itself (Savina's exit); the Master completes on the A-th Done and
// stops itself.

/// <summary>Akka.NET baseline: the main thread sends N rounds of one message to each of A workers.</summary>
[SavinaWorkload("Fork-Join Throughput", SavinaVariant.Akka)]
public sealed class ForkJoinThroughputAkka(SavinaSize size) : SavinaRun(size)
{
    private readonly int _messages = size switch { SavinaSize.Paper => 10_000, SavinaSize.Small => 10_000, _ => 200 };
    private readonly int _actors = size switch { SavinaSize.Paper => 60, SavinaSize.Small => 60, _ => 12 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private IActorRef[] _workers = null!;
    private int _doneCount;
    private long _total;

    protected override void Build()
    {
        ActorSystem system = AkkaHost.System;
        int actors = _actors;
        int messages = _messages;
        Action<int, long> onDone = OnDone;
        IActorRef master = system.ActorOf(Props.Create(() => new MasterActor(actors, onDone)));
        _workers = new IActorRef[_actors];
        for (int i = 0; i < _actors; i++)
        {
            _workers[i] = system.ActorOf(Props.Create(() => new WorkerActor(messages, master)));
        }
    }

    protected override Task ExecuteAsync()
    {
        for (int m = 0; m < _messages; m++)
        {
            foreach (IActorRef worker in _workers)
            {
                worker.Tell(Message.Instance);
            }
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_doneCount == _actors, $"{_doneCount} workers finished, expected {_actors}");
        Check(_total == (long)_actors * _messages, $"Workers processed {_total} messages, expected {(long)_actors * _messages}");
    }

    private void OnDone(int doneCount, long total)
    {
        _doneCount = doneCount;
        _total = total;
        _done.SetResult();
    }

    private sealed class Message
    {
        public static readonly Message Instance = new();
    }

    private sealed record Done(int Processed);

    private sealed class WorkerActor : ReceiveActor
    {
        private int _processed;

        public WorkerActor(int messages, IActorRef master)
        {
            // On a message: compute; after the N-th, tell the Master and stop.
            Receive<Message>(_ =>
            {
                _processed++;
                SavinaHelpers.PerformComputation(37.2);
                if (_processed == messages)
                {
                    master.Tell(new Done(_processed));
                    Context.Stop(Self);
                }
            });
        }
    }

    private sealed class MasterActor : ReceiveActor
    {
        private int _finished;
        private long _total;

        public MasterActor(int actors, Action<int, long> onDone)
        {
            // On Done: count; the last one completes the run.
            Receive<Done>(m =>
            {
                _finished++;
                _total += m.Processed;
                if (_finished == actors)
                {
                    onDone(_finished, _total);
                    Context.Stop(Self);
                }
            });
        }
    }
}

/// <summary>BenchmarkDotNet entry for the Akka.NET baseline of Fork-Join Throughput.</summary>
public partial class ForkJoinThroughput
{
    private SavinaRun _akkaRun = null!;

    [IterationSetup(Target = nameof(Akka))]
    public void SetupAkka() => _akkaRun = Prepare(new ForkJoinThroughputAkka(Size));

    [Benchmark]
    public Task Akka() => _akkaRun.RunAsync();
}
