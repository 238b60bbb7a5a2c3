using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Micro;

// Savina 4.2 Count (SOURCES.md §4.2): a Producer sends N Increments to a Counter, then Retrieve; the Counter
// answers with its count.
//
// Decisions:
// - As in Savina, the main thread only sends Start to the Producer, and the Producer's behaviour sends the N
//   Increments. [V] sends them from main (N+2 behaviours in the actor run); here there are N+3 (Start, N Increments,
//   Retrieve, Result) and N+2 in the full run (Start, N Increments, the two-cown check).
// - The actor version relies on per-sender FIFO: Boc runs behaviours on one cown in spawn order, so Retrieve runs after
//   every Increment the same Producer behaviour spawned before it.
// - Small equals Paper: a Paper run takes well under a second on the 2-core machine (about 0.01-0.3 s).

/// <summary>Actor style: Producer and Counter cowns; every message is a one-cown behaviour on its receiver.</summary>
[SavinaWorkload("Count", SavinaVariant.Actor)]
public sealed class CountActor(SavinaSize size) : SavinaRun(size)
{
    private readonly int _n = size switch { SavinaSize.Paper => 1_000_000, SavinaSize.Small => 1_000_000, _ => 20_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<ProducerState> _producer = null!;
    private Cown<CounterState> _counter = null!;
    private int _result = -1;

    protected override void Build()
    {
        _producer = new Cown<ProducerState>(new ProducerState());
        _counter = new Cown<CounterState>(new CounterState());
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(_producer, static (_, run) => run.Produce(), this);
        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_result == _n, $"Counter returned {_result}, expected {_n}");
    }

    // Producer, on Start: N Increments, then Retrieve.
    private void Produce()
    {
        for (int i = 0; i < _n; i++)
        {
            Runtime.When(_counter, static counter => counter.Count++);
        }

        Runtime.When(_counter, static (counter, run) => run.Retrieve(counter), this);
    }

    // Counter, on Retrieve: reply with the count.
    private void Retrieve(CounterState counter)
    {
        Runtime.When(_producer, static (producer, message) => message.Run.OnResult(producer, message.Count), (Run: this, counter.Count));
    }

    // Producer, on Result: publish and complete.
    private void OnResult(ProducerState producer, int count)
    {
        producer.Result = count;
        _result = count;
        _done.SetResult();
    }

    private sealed class ProducerState
    {
        public int Result { get; set; }
    }

    private sealed class CounterState
    {
        public int Count { get; set; }
    }
}

/// <summary>Full BoC: N one-cown increments, then one behaviour over Counter and Producer reads the count.</summary>
[SavinaWorkload("Count", SavinaVariant.Full)]
public sealed class CountFull(SavinaSize size) : SavinaRun(size)
{
    private readonly int _n = size switch { SavinaSize.Paper => 1_000_000, SavinaSize.Small => 1_000_000, _ => 20_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<ProducerState> _producer = null!;
    private Cown<CounterState> _counter = null!;
    private int _result = -1;

    protected override void Build()
    {
        _producer = new Cown<ProducerState>(new ProducerState());
        _counter = new Cown<CounterState>(new CounterState());
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(_producer, static (_, run) => run.Produce(), this);
        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_result == _n, $"Counter held {_result}, expected {_n}");
    }

    // Producer, on Start: N increments; the check is ordered after all of them on the Counter, so it needs no reply.
    private void Produce()
    {
        for (int i = 0; i < _n; i++)
        {
            Runtime.When(_counter, static counter => counter.Count++);
        }

        Runtime.When(_counter, _producer, static (counter, producer, run) => run.Finish(counter, producer), this);
    }

    private void Finish(CounterState counter, ProducerState producer)
    {
        producer.Result = counter.Count;
        _result = counter.Count;
        _done.SetResult();
    }

    private sealed class ProducerState
    {
        public int Result { get; set; }
    }

    private sealed class CounterState
    {
        public int Count { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Count.</summary>
public partial class Count : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new CountActor(Size));

    [IterationSetup(Target = nameof(Full))]
    public void SetupFull() => _run = Prepare(new CountFull(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();

    [Benchmark]
    public Task Full() => _run.RunAsync();
}
