using Akka.Actor;
using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

// Akka.NET baseline of Fib: the actors and messages of FibActor.
//
// Decisions:
// - Every actor is created in the timed run, as in the Boc run and Savina: the root by the main thread, the others as
//   children of the actor that asks them (Context.ActorOf), which answer their parent (Context.Parent), as Savina's
//   actors answer the parent they were given. The root has no parent to answer; it publishes the result instead.
// - Props are built once (the children's in a static field, the root's in Build), not per actor, so the timed run does
//   not evaluate a Props expression for each of the 2·fib(N)−1 actors.
// - Each actor stops itself after answering.

/// <summary>Akka.NET baseline: one fresh actor per call of the naive Fibonacci recursion; Request and Response.</summary>
[SavinaWorkload("Fib", SavinaVariant.Akka)]
public sealed class FibAkka(SavinaSize size) : SavinaRun(size)
{
    private readonly int _n = size switch { SavinaSize.Paper => 25, SavinaSize.Small => 25, _ => 15 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private ActorSystem _system = null!;
    private Props _rootProps = null!;
    private long _result = -1;

    protected override void Build()
    {
        _system = AkkaHost.System;
        Action<long> onResult = OnResult;
        _rootProps = Props.Create(() => new FibNodeActor(onResult));
    }

    protected override Task ExecuteAsync()
    {
        _system.ActorOf(_rootProps).Tell(new Request(_n));
        return _done.Task;
    }

    protected override void Validate()
    {
        long expected = FibReference.Sequential(_n);
        Check(_result == expected, $"Fib({_n}) = {_result}, expected {expected}");
    }

    private void OnResult(long result)
    {
        _result = result;
        _done.SetResult();
    }

    private sealed record Request(int N);

    private sealed record Response(long Value);

    private sealed class FibNodeActor : ReceiveActor
    {
        private static readonly Props ChildProps = Props.Create(() => new FibNodeActor(null));
        private readonly Action<long>? _onRootResult;
        private long _result;
        private int _received;

        /// <param name="onRootResult">Set on the root only: it publishes the result instead of answering a parent.</param>
        public FibNodeActor(Action<long>? onRootResult)
        {
            _onRootResult = onRootResult;

            // On Request(n): answer 1 for n <= 2, otherwise create two children and ask them.
            Receive<Request>(m =>
            {
                if (m.N <= 2)
                {
                    _result = 1;
                    Respond();
                    return;
                }

                Context.ActorOf(ChildProps).Tell(new Request(m.N - 1));
                Context.ActorOf(ChildProps).Tell(new Request(m.N - 2));
            });

            // On Response(value): add; after both, answer the parent.
            Receive<Response>(m =>
            {
                _received++;
                _result += m.Value;
                if (_received == 2)
                {
                    Respond();
                }
            });
        }

        private void Respond()
        {
            if (_onRootResult is not null)
            {
                _onRootResult(_result);
            }
            else
            {
                Context.Parent.Tell(new Response(_result));
            }

            Context.Stop(Self);
        }
    }
}

/// <summary>BenchmarkDotNet entry for the Akka.NET baseline of Fib.</summary>
public partial class Fib
{
    private SavinaRun _akkaRun = null!;

    [IterationSetup(Target = nameof(Akka))]
    public void SetupAkka() => _akkaRun = Prepare(new FibAkka(Size));

    [Benchmark]
    public Task Akka() => _akkaRun.RunAsync();
}
