using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Micro;

// Savina 4.3 Fork-Join Throughput (SOURCES.md §4.3): the main thread sends N rounds of one message to each of A
// actors; each actor runs performComputation(37.2) per message and is done after N messages.
//
// Decisions:
// - Savina has no replies and ends when every actor has exited (Akka's awaitTermination). Its completion signal here is
//   a Master cown: in the actor run each worker sends one Done(processed) to it after its N-th message (A extra
//   behaviours, not [V]'s per-message done, which the spec lists as a deviation); in the full run the main thread spawns
//   A two-cown behaviours over (Master, worker) after the N rounds, ordered after each worker's messages, as [V] does.
// - The A worker cowns are made in Build: they are long-lived, and making 60 cowns is not what this benchmark measures.
// - C=1 and usePriorities=true are unused by Savina's Akka version, and so here.
// - Small equals Paper: a Paper run takes well under a second on the 2-core machine (about 0.01-0.3 s).

/// <summary>Actor style: A worker cowns and a Master; every message is a one-cown behaviour on its receiver.</summary>
[SavinaWorkload("Fork-Join Throughput", SavinaVariant.Actor)]
public sealed class ForkJoinThroughputActor(SavinaSize size) : SavinaRun(size)
{
    private readonly int _messages = size switch { SavinaSize.Paper => 10_000, SavinaSize.Small => 10_000, _ => 200 };
    private readonly int _actors = size switch { SavinaSize.Paper => 60, SavinaSize.Small => 60, _ => 12 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<Worker>[] _workers = null!;
    private Cown<Master> _master = null!;
    private int _doneCount;
    private long _total;

    protected override void Build()
    {
        _workers = new Cown<Worker>[_actors];
        for (int i = 0; i < _actors; i++)
        {
            _workers[i] = new Cown<Worker>(new Worker());
        }

        _master = new Cown<Master>(new Master());
    }

    protected override Task ExecuteAsync()
    {
        for (int m = 0; m < _messages; m++)
        {
            foreach (Cown<Worker> worker in _workers)
            {
                Runtime.When(worker, static (w, run) => run.OnMessage(w), this);
            }
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_doneCount == _actors, $"{_doneCount} workers finished, expected {_actors}");
        Check(_total == (long)_actors * _messages, $"Workers processed {_total} messages, expected {(long)_actors * _messages}");
    }

    // Worker, on a message: compute; after the N-th, tell the Master.
    private void OnMessage(Worker worker)
    {
        worker.Processed++;
        SavinaHelpers.PerformComputation(37.2);
        if (worker.Processed == _messages)
        {
            Runtime.When(_master, static (master, message) => message.Run.OnDone(master, message.Processed), (Run: this, worker.Processed));
        }
    }

    // Master, on Done: count; the last one completes the run.
    private void OnDone(Master master, int processed)
    {
        master.Finished++;
        master.Total += processed;
        if (master.Finished == _actors)
        {
            _doneCount = master.Finished;
            _total = master.Total;
            _done.SetResult();
        }
    }

    private sealed class Worker
    {
        public int Processed { get; set; }
    }

    private sealed class Master
    {
        public int Finished { get; set; }

        public long Total { get; set; }
    }
}

/// <summary>Full BoC: the N·A one-cown messages, then A behaviours over (Master, worker) that collect the counts.</summary>
[SavinaWorkload("Fork-Join Throughput", SavinaVariant.Full)]
public sealed class ForkJoinThroughputFull(SavinaSize size) : SavinaRun(size)
{
    private readonly int _messages = size switch { SavinaSize.Paper => 10_000, SavinaSize.Small => 10_000, _ => 200 };
    private readonly int _actors = size switch { SavinaSize.Paper => 60, SavinaSize.Small => 60, _ => 12 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<Worker>[] _workers = null!;
    private Cown<Master> _master = null!;
    private int _doneCount;
    private long _total;
    private int _wrongWorkers;

    protected override void Build()
    {
        _workers = new Cown<Worker>[_actors];
        for (int i = 0; i < _actors; i++)
        {
            _workers[i] = new Cown<Worker>(new Worker());
        }

        _master = new Cown<Master>(new Master());
    }

    protected override Task ExecuteAsync()
    {
        for (int m = 0; m < _messages; m++)
        {
            foreach (Cown<Worker> worker in _workers)
            {
                Runtime.When(worker, static w =>
                {
                    w.Processed++;
                    SavinaHelpers.PerformComputation(37.2);
                });
            }
        }

        // Spawned after every message on the same worker, so each join sees that worker's final count.
        foreach (Cown<Worker> worker in _workers)
        {
            Runtime.When(_master, worker, static (master, w, run) => run.Join(master, w), this);
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_wrongWorkers == 0, $"{_wrongWorkers} workers did not process exactly {_messages} messages");
        Check(_doneCount == _actors, $"{_doneCount} workers joined, expected {_actors}");
        Check(_total == (long)_actors * _messages, $"Workers processed {_total} messages, expected {(long)_actors * _messages}");
    }

    private void Join(Master master, Worker worker)
    {
        master.Finished++;
        master.Total += worker.Processed;
        if (worker.Processed != _messages)
        {
            master.Wrong++;
        }

        if (master.Finished == _actors)
        {
            _doneCount = master.Finished;
            _total = master.Total;
            _wrongWorkers = master.Wrong;
            _done.SetResult();
        }
    }

    private sealed class Worker
    {
        public int Processed { get; set; }
    }

    private sealed class Master
    {
        public int Finished { get; set; }

        public long Total { get; set; }

        public int Wrong { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Fork-Join Throughput.</summary>
public partial class ForkJoinThroughput : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new ForkJoinThroughputActor(Size));

    [IterationSetup(Target = nameof(Full))]
    public void SetupFull() => _run = Prepare(new ForkJoinThroughputFull(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();

    [Benchmark]
    public Task Full() => _run.RunAsync();
}
