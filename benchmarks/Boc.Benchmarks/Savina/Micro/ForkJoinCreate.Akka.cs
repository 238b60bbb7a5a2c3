using Akka.Actor;
using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

// Akka.NET baseline of Fork-Join Create: the actors and messages of ForkJoinCreateActor. The N workers are created in
// the timed run (top-level actors, created by the main thread as in Savina); each computes on its one message, tells
// the Master and stops itself. Only the Master is made in Build; it completes on the N-th Done and stops itself.

/// <summary>Akka.NET baseline: N fresh worker actors, one message each; each tells the Master it is done.</summary>
[SavinaWorkload("Fork-Join Create", SavinaVariant.Akka)]
public sealed class ForkJoinCreateAkka(SavinaSize size) : SavinaRun(size)
{
    private readonly int _workers = size switch { SavinaSize.Paper => 40_000, SavinaSize.Small => 40_000, _ => 2_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private ActorSystem _system = null!;
    private Props _workerProps = null!;
    private int _finished;

    protected override void Build()
    {
        _system = AkkaHost.System;
        int workers = _workers;
        Action<int> onDone = OnDone;
        IActorRef master = _system.ActorOf(Props.Create(() => new MasterActor(workers, onDone)));
        _workerProps = Props.Create(() => new WorkerActor(master));
    }

    protected override Task ExecuteAsync()
    {
        for (int i = 0; i < _workers; i++)
        {
            IActorRef worker = _system.ActorOf(_workerProps);
            worker.Tell(Message.Instance);
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_finished == _workers, $"{_finished} workers finished, expected {_workers}");
    }

    private void OnDone(int finished)
    {
        _finished = finished;
        _done.SetResult();
    }

    private sealed class Message
    {
        public static readonly Message Instance = new();
    }

    private sealed class Done
    {
        public static readonly Done Instance = new();
    }

    private sealed class WorkerActor : ReceiveActor
    {
        private int _processed;

        public WorkerActor(IActorRef master)
        {
            // On its one message: compute, report and stop.
            Receive<Message>(_ =>
            {
                _processed++;
                SavinaHelpers.PerformComputation(37.2);
                master.Tell(Done.Instance);
                Context.Stop(Self);
            });
        }
    }

    private sealed class MasterActor : ReceiveActor
    {
        private int _finished;

        public MasterActor(int workers, Action<int> onDone)
        {
            // On Done: the N-th completes the run.
            Receive<Done>(_ =>
            {
                _finished++;
                if (_finished == workers)
                {
                    onDone(_finished);
                    Context.Stop(Self);
                }
            });
        }
    }
}

/// <summary>BenchmarkDotNet entry for the Akka.NET baseline of Fork-Join Create.</summary>
public partial class ForkJoinCreate
{
    private SavinaRun _akkaRun = null!;

    [IterationSetup(Target = nameof(Akka))]
    public void SetupAkka() => _akkaRun = Prepare(new ForkJoinCreateAkka(Size));

    [Benchmark]
    public Task Akka() => _akkaRun.RunAsync();
}
