using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Parallel;

// Savina 4.20 Recursive Matrix Multiplication (SOURCES.md §4.20): the Master routes Work(srA, scA, srB, scB, srC,
// scC, numBlocks, dim) to worker (srC + scC) % W; a worker splits a block above the threshold into 8 sub-work items sent
// back to the Master, or else accumulates C[i][j] += Σ_k A[i][scA+k]·B[srB+k][j] over its block, and replies Done.
// When Done == Sent the Master stops the workers, each echoes Stop, and the W-th Stop completes the run.
// No full-BoC variant.
//
// Decisions:
// - A, B and C are plain double[][] shared by reference, as in Savina. A and B are only read after Build. C is written
//   only by the behaviours of one worker cown per cell: every product updating a C block has that block's origin, so
//   routing by (srC + scC) % W sends them all to the same worker, which runs them one at a time. C is read only after
//   completion. This is the "written from a single cown's behaviours, read at completion" case, without copying C.
// - C accumulates (+=); [V]/[P] assign, which is wrong (spec §7.5).
// - Each worker counts the leaf blocks it computed and reports the count in its Stop echo, so Validate checks the shape
//   (585 work items, 512 leaves at Paper) as well as C[i][j] == n·i·j exactly.
// - PRIORITIES is not used (Savina's Akka version ignores it too).
// - Small halves the matrix (n = 512, 73 work items, 64 leaves of 128×128); Test is n = 64 with threshold 256 (the same
//   tree: 73 items, 64 leaves of 16×16). W = 20 throughout.

/// <summary>Actor style: a Master cown and W Worker cowns; Work, Done and Stop are one-cown behaviours on the receiver.</summary>
[SavinaWorkload("Recursive Matrix Multiplication", SavinaVariant.Actor)]
public sealed class RecursiveMatrixMultiplicationActor(SavinaSize size) : SavinaRun(size)
{
    private readonly int _workerCount = 20;
    private readonly int _n = size switch { SavinaSize.Paper => 1024, SavinaSize.Small => 512, _ => 64 };
    private readonly int _threshold = size switch { SavinaSize.Test => 256, _ => 16_384 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private double[][] _a = null!;
    private double[][] _b = null!;
    private double[][] _c = null!;
    private Cown<MasterState> _master = null!;
    private Cown<WorkerState>[] _workers = null!;
    private int _workSent;
    private int _workCompleted;
    private int _leaves;

    protected override void Build()
    {
        _a = new double[_n][];
        _b = new double[_n][];
        _c = new double[_n][];
        for (int i = 0; i < _n; i++)
        {
            _a[i] = new double[_n];
            _b[i] = new double[_n];
            _c[i] = new double[_n];
            for (int j = 0; j < _n; j++)
            {
                _a[i][j] = i;
                _b[i][j] = j;
            }
        }

        _master = new Cown<MasterState>(new MasterState());
        _workers = new Cown<WorkerState>[_workerCount];
        for (int i = 0; i < _workers.Length; i++)
        {
            _workers[i] = new Cown<WorkerState>(new WorkerState());
        }
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(_master, static (master, run) =>
            run.SendWork(master, new Work(0, 0, 0, 0, 0, 0, run._n * run._n, run._n)), this);
        return _done.Task;
    }

    protected override void Validate()
    {
        string? error = RecursiveMatrixMultiplicationCheck.Find(_n, _threshold, _workSent, _workCompleted, _leaves, _c);
        Check(error is null, error!);
    }

    // Master: route a work item by its C-block origin.
    private void SendWork(MasterState master, Work work)
    {
        Cown<WorkerState> worker = _workers[(work.SrC + work.ScC) % _workers.Length];
        Runtime.When(worker, static (w, m) => m.Run.OnWork(w, m.Work), new WorkMessage(this, work));
        master.WorkSent++;
    }

    // Worker, on Work: split into 8 items for the Master, or multiply the block; then Done.
    private void OnWork(WorkerState worker, Work w)
    {
        if (w.NumBlocks > _threshold)
        {
            int d = w.Dim / 2;
            int blocks = w.NumBlocks / 4;
            ToMaster(new Work(w.SrA, w.ScA, w.SrB, w.ScB, w.SrC, w.ScC, blocks, d));
            ToMaster(new Work(w.SrA, w.ScA + d, w.SrB + d, w.ScB, w.SrC, w.ScC, blocks, d));
            ToMaster(new Work(w.SrA, w.ScA, w.SrB, w.ScB + d, w.SrC, w.ScC + d, blocks, d));
            ToMaster(new Work(w.SrA, w.ScA + d, w.SrB + d, w.ScB + d, w.SrC, w.ScC + d, blocks, d));
            ToMaster(new Work(w.SrA + d, w.ScA, w.SrB, w.ScB, w.SrC + d, w.ScC, blocks, d));
            ToMaster(new Work(w.SrA + d, w.ScA + d, w.SrB + d, w.ScB, w.SrC + d, w.ScC, blocks, d));
            ToMaster(new Work(w.SrA + d, w.ScA, w.SrB, w.ScB + d, w.SrC + d, w.ScC + d, blocks, d));
            ToMaster(new Work(w.SrA + d, w.ScA + d, w.SrB + d, w.ScB + d, w.SrC + d, w.ScC + d, blocks, d));
        }
        else
        {
            Multiply(w);
            worker.Leaves++;
        }

        Runtime.When(_master, static (master, run) => run.OnDone(master), this);
    }

    private void ToMaster(Work work) =>
        Runtime.When(_master, static (master, m) => m.Run.SendWork(master, m.Work), new WorkMessage(this, work));

    private void Multiply(Work w) =>
        RecursiveMatrixMultiplicationKernel.AccumulateBlock(_a, _b, _c, w.SrA, w.ScA, w.SrB, w.SrC, w.ScC, w.Dim);

    // Master, on Done: when every item sent is done, stop the workers.
    private void OnDone(MasterState master)
    {
        master.WorkCompleted++;
        if (master.WorkCompleted == master.WorkSent)
        {
            foreach (Cown<WorkerState> worker in _workers)
            {
                Runtime.When(worker, static (w, run) => run.OnStop(w), this);
            }
        }
    }

    // Worker, on Stop: echo it to the Master, with this worker's leaf count.
    private void OnStop(WorkerState worker) =>
        Runtime.When(_master, static (master, m) => m.Run.OnStopped(master, m.Leaves), (Run: this, Leaves: worker.Leaves));

    // Master, on a Stop echo: the W-th completes the run.
    private void OnStopped(MasterState master, int leaves)
    {
        master.WorkersTerminated++;
        master.Leaves += leaves;
        if (master.WorkersTerminated == _workers.Length)
        {
            _workSent = master.WorkSent;
            _workCompleted = master.WorkCompleted;
            _leaves = master.Leaves;
            _done.SetResult();
        }
    }

    private readonly record struct Work(int SrA, int ScA, int SrB, int ScB, int SrC, int ScC, int NumBlocks, int Dim);

    private readonly record struct WorkMessage(RecursiveMatrixMultiplicationActor Run, Work Work);

    private sealed class MasterState
    {
        public int WorkSent { get; set; }

        public int WorkCompleted { get; set; }

        public int WorkersTerminated { get; set; }

        public int Leaves { get; set; }
    }

    private sealed class WorkerState
    {
        public int Leaves { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Recursive Matrix Multiplication.</summary>
public partial class RecursiveMatrixMultiplication : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new RecursiveMatrixMultiplicationActor(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();
}

/// <summary>The leaf computation shared by every variant, so that they differ only in how work items travel.</summary>
internal static class RecursiveMatrixMultiplicationKernel
{
    /// <summary>C[i][j] += Σ_k A[i][scA+k]·B[srB+k][j] over the dim×dim block of C at (srC, scC).</summary>
    public static void AccumulateBlock(double[][] a, double[][] b, double[][] c, int srA, int scA, int srB, int srC, int scC, int dim)
    {
        // The matrices arrive as parameters, so every variant runs this same loop. Before, the actor variant read them
        // from its fields inside the loops and the Channels variant from locals, which the JIT need not compile alike
        // (docs/performance/decisions.md#same-work-on-every-substrate).
        int endR = srC + dim;
        int endC = scC + dim;
        for (int i = srC; i < endR; i++)
        {
            double[] aRow = a[i];
            double[] cRow = c[i];
            for (int j = scC; j < endC; j++)
            {
                for (int k = 0; k < dim; k++)
                {
                    cRow[j] += aRow[scA + k] * b[srB + k][j];
                }
            }
        }
    }
}

/// <summary>The validation shared by every variant: the work-tree shape and C[i][j] == n·i·j exactly.</summary>
internal static class RecursiveMatrixMultiplicationCheck
{
    /// <summary>Returns a description of the first discrepancy, or null if the run is correct.</summary>
    public static string? Find(int n, int threshold, long workSent, long workCompleted, long leaves, double[][] c)
    {
        int splits = 0;
        for (long blocks = (long)n * n; blocks > threshold; blocks /= 4)
        {
            splits++;
        }

        int expectedLeaves = 1;
        int expectedItems = 1;
        for (int k = 0; k < splits; k++)
        {
            expectedLeaves *= 8;
            expectedItems += expectedLeaves;
        }

        if (workSent != expectedItems || workCompleted != expectedItems)
        {
            return $"{workSent} work items sent, {workCompleted} done, expected {expectedItems}";
        }

        if (leaves != expectedLeaves)
        {
            return $"{leaves} leaf blocks computed, expected {expectedLeaves}";
        }

        for (int i = 0; i < n; i++)
        {
            double[] row = c[i];
            for (int j = 0; j < n; j++)
            {
                double expected = 1.0 * n * i * j;
                if (row[j] != expected)
                {
                    return $"C[{i}][{j}] = {row[j]:R}, expected {expected:R}";
                }
            }
        }

        return null;
    }
}
