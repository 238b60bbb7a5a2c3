using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Micro;

// Savina 4.4 Fork-Join Create (SOURCES.md §4.4): the main thread creates N fresh actors and sends each one message;
// each runs performComputation(37.2) and terminates.
//
// Decisions:
// - The N worker cowns are created inside the timed run, as Savina does: creating actors is what this benchmark
//   measures. Only the Master (the completion signal) is made in Build.
// - Savina ends on Akka's awaitTermination; here, as in [V], each worker's completion reaches a Master that counts
//   down from N: a Done message in the actor run (N one-cown behaviours on the Master), a two-cown behaviour over
//   (Master, worker) in the full run. Both are N behaviours beyond Savina's, as [V] has (spec §7.8).
// - Small equals Paper: a Paper run takes well under a second on the 2-core machine (about 0.01-0.3 s).

/// <summary>Actor style: N fresh worker cowns, one message each; each worker tells the Master it is done.</summary>
[SavinaWorkload("Fork-Join Create", SavinaVariant.Actor)]
public sealed class ForkJoinCreateActor(SavinaSize size) : SavinaRun(size)
{
    private readonly int _workers = size switch { SavinaSize.Paper => 40_000, SavinaSize.Small => 40_000, _ => 2_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<Master> _master = null!;
    private int _finished;

    protected override void Build()
    {
        _master = new Cown<Master>(new Master());
    }

    protected override Task ExecuteAsync()
    {
        for (int i = 0; i < _workers; i++)
        {
            var worker = new Cown<Worker>(new Worker());
            Runtime.When(worker, static (w, run) => run.OnMessage(w), this);
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_finished == _workers, $"{_finished} workers finished, expected {_workers}");
    }

    // Worker, on its one message: compute and report.
    private void OnMessage(Worker worker)
    {
        worker.Processed++;
        SavinaHelpers.PerformComputation(37.2);
        Runtime.When(_master, static (master, run) => run.OnDone(master), this);
    }

    // Master, on Done: the N-th completes the run.
    private void OnDone(Master master)
    {
        master.Finished++;
        if (master.Finished == _workers)
        {
            _finished = master.Finished;
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
    }
}

/// <summary>Full BoC: N fresh workers, each with one compute behaviour, then a (Master, worker) behaviour that counts it.</summary>
[SavinaWorkload("Fork-Join Create", SavinaVariant.Full)]
public sealed class ForkJoinCreateFull(SavinaSize size) : SavinaRun(size)
{
    private readonly int _workers = size switch { SavinaSize.Paper => 40_000, SavinaSize.Small => 40_000, _ => 2_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<Master> _master = null!;
    private int _finished;
    private int _wrongWorkers;

    protected override void Build()
    {
        _master = new Cown<Master>(new Master());
    }

    protected override Task ExecuteAsync()
    {
        for (int i = 0; i < _workers; i++)
        {
            var worker = new Cown<Worker>(new Worker());
            Runtime.When(worker, static w =>
            {
                w.Processed++;
                SavinaHelpers.PerformComputation(37.2);
            });

            // Ordered after the compute on the same worker: no Done message needed.
            Runtime.When(_master, worker, static (master, w, run) => run.Join(master, w), this);
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_wrongWorkers == 0, $"{_wrongWorkers} workers had not processed exactly one message when joined");
        Check(_finished == _workers, $"{_finished} workers joined, expected {_workers}");
    }

    private void Join(Master master, Worker worker)
    {
        master.Finished++;
        if (worker.Processed != 1)
        {
            master.Wrong++;
        }

        if (master.Finished == _workers)
        {
            _finished = master.Finished;
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

        public int Wrong { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Fork-Join Create.</summary>
public partial class ForkJoinCreate : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new ForkJoinCreateActor(Size));

    [IterationSetup(Target = nameof(Full))]
    public void SetupFull() => _run = Prepare(new ForkJoinCreateFull(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();

    [Benchmark]
    public Task Full() => _run.RunAsync();
}
