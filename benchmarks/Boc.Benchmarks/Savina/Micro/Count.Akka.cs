using Akka.Actor;
using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

// Akka.NET baseline of Count: the actors and messages of CountActor. Retrieve follows the N Increments because Akka
// delivers messages from one sender to one receiver in send order; the Counter replies to its sender.

/// <summary>Akka.NET baseline: a Producer sends N Increments and Retrieve to a Counter, which replies with its count.</summary>
[SavinaWorkload("Count", SavinaVariant.Akka)]
public sealed class CountAkka(SavinaSize size) : SavinaRun(size)
{
    private readonly int _n = size switch { SavinaSize.Paper => 1_000_000, SavinaSize.Small => 1_000_000, _ => 20_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private IActorRef _producer = ActorRefs.Nobody;
    private int _result = -1;

    protected override void Build()
    {
        ActorSystem system = AkkaHost.System;
        IActorRef counter = system.ActorOf(Props.Create(() => new CounterActor()));
        int n = _n;
        Action<int> onResult = OnResult;
        _producer = system.ActorOf(Props.Create(() => new ProducerActor(n, counter, onResult)));
    }

    protected override Task ExecuteAsync()
    {
        _producer.Tell(Start.Instance);
        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_result == _n, $"Counter returned {_result}, expected {_n}");
    }

    private void OnResult(int count)
    {
        _result = count;
        _done.SetResult();
    }

    private sealed class Start
    {
        public static readonly Start Instance = new();
    }

    private sealed class Increment
    {
        public static readonly Increment Instance = new();
    }

    private sealed class Retrieve
    {
        public static readonly Retrieve Instance = new();
    }

    private sealed record Result(int Count);

    private sealed class ProducerActor : ReceiveActor
    {
        public ProducerActor(int n, IActorRef counter, Action<int> onResult)
        {
            // On Start: N Increments, then Retrieve.
            Receive<Start>(_ =>
            {
                for (int i = 0; i < n; i++)
                {
                    counter.Tell(Increment.Instance);
                }

                counter.Tell(Retrieve.Instance);
            });

            // On Result: publish, complete, and stop both actors.
            Receive<Result>(m =>
            {
                onResult(m.Count);
                counter.Tell(PoisonPill.Instance);
                Context.Stop(Self);
            });
        }
    }

    private sealed class CounterActor : ReceiveActor
    {
        private int _count;

        public CounterActor()
        {
            Receive<Increment>(_ => _count++);
            Receive<Retrieve>(_ => Sender.Tell(new Result(_count)));
        }
    }
}

/// <summary>BenchmarkDotNet entry for the Akka.NET baseline of Count.</summary>
public partial class Count
{
    private SavinaRun _akkaRun = null!;

    [IterationSetup(Target = nameof(Akka))]
    public void SetupAkka() => _akkaRun = Prepare(new CountAkka(Size));

    [Benchmark]
    public Task Akka() => _akkaRun.RunAsync();
}
