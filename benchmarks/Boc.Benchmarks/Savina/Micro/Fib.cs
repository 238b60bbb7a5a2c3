using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Micro;

// Savina 4.8 Fib (SOURCES.md §4.8): the naive Fibonacci recursion as a tree of actors (actor run) or of cowns
// joined pairwise (full run).
//
// Decisions:
// - Every cown is created inside the timed run, as Savina creates its actors: creating them is what this benchmark
//   measures (2·fib(N)−1 actor cowns, 150,049 at N=25; fib(N) value cowns in the full run, 75,025 at N=25).
// - Actor run: a Request carries the receiver's own cown, so that the actor can name itself as its children's parent
//   without holding a reference to its own cown in its state.
// - Full run, as the spec gives it: compute(n) returns a cown; for n>2 it joins compute(n−1) and compute(n−2) with one
//   two-cown behaviour that adds the second into the first. compute runs on the main thread (as in [V]); the joins run
//   on the workers as soon as their inputs are ready. One extra one-cown behaviour on the root publishes the result
//   (the completion signal).
// - Validation: the result equals fib(N) computed sequentially (75025 at N=25, as the spec gives).
// - Small equals Paper: a Paper run takes well under a second on the 2-core machine (about 0.01-0.3 s).

/// <summary>Actor style: one fresh cown per actor; Request and Response are one-cown behaviours.</summary>
[SavinaWorkload("Fib", SavinaVariant.Actor)]
public sealed class FibActor(SavinaSize size) : SavinaRun(size)
{
    private readonly int _n = size switch { SavinaSize.Paper => 25, SavinaSize.Small => 25, _ => 15 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private long _result = -1;

    protected override void Build()
    {
    }

    protected override Task ExecuteAsync()
    {
        SendRequest(new Cown<FibNode>(new FibNode(null)), _n);
        return _done.Task;
    }

    protected override void Validate()
    {
        long expected = FibReference.Sequential(_n);
        Check(_result == expected, $"Fib({_n}) = {_result}, expected {expected}");
    }

    private void SendRequest(Cown<FibNode> to, int n) =>
        Runtime.When(to, static (node, m) => m.Run.OnRequest(node, m.Self, m.N), (Run: this, Self: to, N: n));

    // On Request(n): answer 1 for n <= 2, otherwise create two children and ask them.
    private void OnRequest(FibNode node, Cown<FibNode> self, int n)
    {
        if (n <= 2)
        {
            node.Result = 1;
            Respond(node);
            return;
        }

        SendRequest(new Cown<FibNode>(new FibNode(self)), n - 1);
        SendRequest(new Cown<FibNode>(new FibNode(self)), n - 2);
    }

    // On Response(value): add; after both, answer the parent.
    private void OnResponse(FibNode node, long value)
    {
        node.Received++;
        node.Result += value;
        if (node.Received == 2)
        {
            Respond(node);
        }
    }

    private void Respond(FibNode node)
    {
        if (node.Parent is null)
        {
            _result = node.Result;
            _done.SetResult();
            return;
        }

        Runtime.When(node.Parent, static (parent, m) => m.Run.OnResponse(parent, m.Value), (Run: this, Value: node.Result));
    }

    private sealed class FibNode(Cown<FibNode>? parent)
    {
        public Cown<FibNode>? Parent { get; } = parent;

        public long Result { get; set; }

        public int Received { get; set; }
    }
}

/// <summary>Full BoC: compute(n) returns a cown and joins compute(n−1) and compute(n−2) with a two-cown behaviour.</summary>
[SavinaWorkload("Fib", SavinaVariant.Full)]
public sealed class FibFull(SavinaSize size) : SavinaRun(size)
{
    private readonly int _n = size switch { SavinaSize.Paper => 25, SavinaSize.Small => 25, _ => 15 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private long _result = -1;

    protected override void Build()
    {
    }

    protected override Task ExecuteAsync()
    {
        Cown<FibValue> root = Compute(_n);
        Runtime.When(root, static (value, run) => run.Finish(value), this);
        return _done.Task;
    }

    protected override void Validate()
    {
        long expected = FibReference.Sequential(_n);
        Check(_result == expected, $"Fib({_n}) = {_result}, expected {expected}");
    }

    private Cown<FibValue> Compute(int n)
    {
        if (n <= 2)
        {
            return new Cown<FibValue>(new FibValue { Value = 1 });
        }

        Cown<FibValue> f1 = Compute(n - 1);
        Cown<FibValue> f2 = Compute(n - 2);
        Runtime.When(f1, f2, static (a, b) => a.Value += b.Value);
        return f1;
    }

    private void Finish(FibValue value)
    {
        _result = value.Value;
        _done.SetResult();
    }

    private sealed class FibValue
    {
        public long Value { get; set; }
    }
}

internal static class FibReference
{
    /// <summary>Savina's fib: 1 for n &lt;= 2, computed iteratively.</summary>
    public static long Sequential(int n)
    {
        long a = 1;
        long b = 1;
        for (int i = 3; i <= n; i++)
        {
            (a, b) = (b, a + b);
        }

        return b;
    }
}

/// <summary>BenchmarkDotNet entry for Fib.</summary>
public partial class Fib : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new FibActor(Size));

    [IterationSetup(Target = nameof(Full))]
    public void SetupFull() => _run = Prepare(new FibFull(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();

    [Benchmark]
    public Task Full() => _run.RunAsync();
}
