using System.Collections.Concurrent;
using System.Runtime.InteropServices;
using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Parallel;

// Savina 4.18 Quicksort (SOURCES.md §4.18): a sorter receiving Sort(data) sorts sequentially below the threshold T,
// otherwise keeps the elements equal to the pivot data[len/2], hands <pivot to a Left child and >pivot to a Right child,
// and concatenates the fragments as they come back; after 3 fragments it replies to its parent.
//
// Decisions:
// - Input: N values |PseudoRandom(S).nextLong() % M| with Savina's sequence (not [V]'s shifted one), generated in Build
//   (setup is not timed, unlike [V]). At Paper: sum 32,768,134,304, 1939 sorters, 970 leaves (checked while porting
//   with a sequential C# model, and again in Validate through the model's Expected shape).
// - The *ReferenceInput rows run the same actor/full code on [V]'s input (QuicksortInput.Reference): the same generator
//   read one step behind, so the values are the seed 1024 followed by Savina's first N-1 values. The multiset differs
//   from Savina's in one value (1024 in place of Savina's last), but the order, and so every pivot data[len/2], differs:
//   at Paper the tree has 1935 sorters and 968 leaves, as [V] reports, 24 levels deep instead of 21, and its partitions
//   pass over 13.9M elements instead of 12.7M (the leaves' sequential sorts: 7.07M instead of 7.03M), by a sequential
//   model of this code. Both inputs hold every 16-bit value about 15 times. Still generated in Build (untimed), so
//   these rows isolate the input; [V]'s timing of its own input generation is not reproduced.
// - Partitioning is one pass into three fragments (as [V]'s pivotize) instead of Savina's three filter passes; the same
//   helpers serve both variants, so the actor/full comparison is unaffected.
// - Fragments are LongBuffers over ArrayPool<long>.Shared, each released as soon as its values are copied on, where
//   [V] frees a std::vector (LongBuffer says why). The appends, growth and copies are [V]'s; the sequential model
//   that checks the tree's shape keeps its own List-based partition, so the oracle shares no code with the kernel.
// - Full: [V]'s design (the partition recursion spawns one leaf behaviour per small fragment and one two-cown join per
//   inner node, in post-order, so each join follows its children's joins on the left cown). [V] runs the recursion on
//   the main thread before its scheduler starts; here it runs in one zero-cown behaviour so that, as in the actor
//   variant, all work is on the runtime's workers and leaf sorts overlap the remaining partitioning.
// - Small keeps Paper's T with N = 400,000; Test uses N = 20,000 and T = 512 (a tree of several levels).

/// <summary>Which input sequence a Quicksort run sorts.</summary>
internal enum QuicksortInput
{
    /// <summary>Savina's: N draws of <see cref="PseudoRandom.NextLong"/>, which returns the generator's new value (the default).</summary>
    Savina,

    /// <summary>
    /// The reference C++ runtime's ([V]): the same generator, but its nextLong returns the value before the step, so the
    /// sequence starts with the raw seed and then follows Savina's, one place later.
    /// </summary>
    Reference,
}

/// <summary>Parameters, input, sequential reference and the sort helpers shared by both variants.</summary>
internal static class QuicksortModel
{
    private static readonly ConcurrentDictionary<(SavinaSize Size, QuicksortInput Input), Expected> References = new();

    public static (int N, long M, int T, long Seed) Parameters(SavinaSize size) => size switch
    {
        SavinaSize.Paper => (1_000_000, 1L << 60, 2048, 1024),
        SavinaSize.Small => (400_000, 1L << 60, 2048, 1024),
        _ => (20_000, 1L << 60, 512, 1024),
    };

    /// <summary>The N values |nextLong() % M| of <paramref name="input"/>'s sequence, seeded with S.</summary>
    public static List<long> Input(SavinaSize size, QuicksortInput input = QuicksortInput.Savina)
    {
        var p = Parameters(size);
        var random = new PseudoRandom(p.Seed);

        // The generator's state before each step: what the reference's nextLong returns (the seed, first).
        long before = p.Seed;
        var data = new List<long>(p.N);
        for (int i = 0; i < p.N; i++)
        {
            long after = random.NextLong();
            long value = input == QuicksortInput.Reference ? before : after;
            before = after;
            data.Add(Math.Abs(value % p.M));
        }

        return data;
    }

    /// <summary>
    /// The sorted input and the sorter tree's shape for <paramref name="input"/>, computed once per process, size and
    /// input (not timed).
    /// </summary>
    public static Expected Reference(SavinaSize size, QuicksortInput input = QuicksortInput.Savina) =>
        References.GetOrAdd((size, input), static key => Model(key.Size, key.Input));

    private static Expected Model(SavinaSize size, QuicksortInput kind)
    {
        List<long> input = Input(size, kind);
        long[] sorted = [.. input];
        Array.Sort(sorted);
        int threshold = Parameters(size).T;
        int sorters = 0;
        int leaves = 0;
        Count(input);
        return new Expected(sorted, sorters, leaves);

        void Count(List<long> data)
        {
            sorters++;
            if (data.Count < threshold)
            {
                leaves++;
                return;
            }

            (List<long> less, _, List<long> greater) = Partition(data, data[data.Count / 2]);
            Count(less);
            Count(greater);
        }
    }

    // The model's partition, independent of the kernel's (Pivotize): the oracle for the tree's shape.
    private static (List<long> Less, List<long> Equal, List<long> Greater) Partition(List<long> data, long pivot)
    {
        var less = new List<long>();
        var equal = new List<long>();
        var greater = new List<long>();
        foreach (long item in data)
        {
            if (item < pivot)
            {
                less.Add(item);
            }
            else if (item > pivot)
            {
                greater.Add(item);
            }
            else
            {
                equal.Add(item);
            }
        }

        return (less, equal, greater);
    }

    /// <summary>A run's input as the fragment the kernel consumes (built outside the timed part).</summary>
    public static LongBuffer InputBuffer(SavinaSize size, QuicksortInput input) =>
        LongBuffer.From(CollectionsMarshal.AsSpan(Input(size, input)));

    /// <summary>
    /// [V]'s pivotize: one pass appending each value to the fragment below, equal to or above <paramref name="pivot"/>.
    /// Consumes <paramref name="data"/> (its storage goes back to the pool, as [V]'s moved-in vector is freed).
    /// </summary>
    public static (LongBuffer Less, LongBuffer Equal, LongBuffer Greater) Pivotize(LongBuffer data, long pivot)
    {
        var less = new LongBuffer();
        var equal = new LongBuffer();
        var greater = new LongBuffer();
        foreach (long item in data.Span)
        {
            if (item < pivot)
            {
                less.Add(item);
            }
            else if (item > pivot)
            {
                greater.Add(item);
            }
            else
            {
                equal.Add(item);
            }
        }

        data.Release();
        return (less, equal, greater);
    }

    /// <summary>
    /// Savina's quicksortSeq as [V] writes it: recursive three-way partition around data[len/2], concatenated into a new
    /// fragment. Consumes <paramref name="data"/> and returns the sorted fragment the caller owns.
    /// </summary>
    public static LongBuffer SortSequentially(LongBuffer data)
    {
        if (data.Count < 2)
        {
            return data;
        }

        (LongBuffer less, LongBuffer equal, LongBuffer greater) = Pivotize(data, data[data.Count / 2]);
        LongBuffer left = SortSequentially(less);
        LongBuffer right = SortSequentially(greater);
        var sorted = new LongBuffer();
        sorted.AddRange(left.Span);
        sorted.AddRange(equal.Span);
        sorted.AddRange(right.Span);
        left.Release();
        equal.Release();
        right.Release();
        return sorted;
    }

    /// <summary>
    /// Appends <paramref name="first"/> then <paramref name="second"/> into a new fragment of exactly their size, and
    /// releases both: a sorter's concatenation of a returned fragment with its own.
    /// </summary>
    public static LongBuffer Join(LongBuffer first, LongBuffer second)
    {
        var joined = new LongBuffer(first.Count + second.Count);
        joined.AddRange(first.Span);
        joined.AddRange(second.Span);
        first.Release();
        second.Release();
        return joined;
    }

    /// <summary>
    /// The tree's shape at Paper size for <paramref name="input"/>: Savina's 1939 sorters / 970 leaves, and 1935 / 968 for
    /// the reference's input, the statistics [V] itself reports.
    /// </summary>
    public static (int Sorters, int Leaves) PaperShape(QuicksortInput input) =>
        input == QuicksortInput.Reference ? (1935, 968) : (1939, 970);

    public static void CheckPaperConstants(SavinaSize size, QuicksortInput input, Expected expected)
    {
        (int sorters, int leaves) = PaperShape(input);
        if (size == SavinaSize.Paper && (expected.Sorters != sorters || expected.Leaves != leaves))
        {
            throw new SavinaValidationException(
                $"model tree ({input} input) has {expected.Sorters} sorters / {expected.Leaves} leaves, the spec says {sorters} / {leaves}");
        }
    }

    /// <summary>
    /// Checks <paramref name="result"/> against the model's sorted input, then releases it (the run owns the root's
    /// fragment); an empty string when they match.
    /// </summary>
    public static string CompareAndRelease(LongBuffer? result, Expected expected)
    {
        if (result is null)
        {
            return "no result";
        }

        string error = result.Count != expected.Sorted.Length
            ? $"result has {result.Count} values, expected {expected.Sorted.Length}"
            : result.Span.SequenceEqual(expected.Sorted)
                ? ""
                : "result is not the sorted input (unsorted, or a different multiset)";
        result.Release();
        return error;
    }

    internal sealed record Expected(long[] Sorted, int Sorters, int Leaves);
}

/// <summary>
/// Actor style: one cown per sorter actor, created as the tree unfolds; Sort and Result are one-cown behaviours on the
/// receiver. Each Result carries its subtree's sorter and leaf counts, so the root learns the tree's shape.
/// </summary>
[SavinaWorkload("Quicksort", SavinaVariant.Actor)]
public sealed class QuicksortActor : SavinaRun
{
    private readonly QuicksortInput _inputKind;
    private readonly int _threshold;
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private QuicksortModel.Expected _expected = null!;
    private LongBuffer _input = null!;
    private Cown<SorterState> _root = null!;
    private LongBuffer? _result;
    private int _sorters;
    private int _leaves;

    /// <summary>A run on Savina's input.</summary>
    public QuicksortActor(SavinaSize size)
        : this(size, QuicksortInput.Savina)
    {
    }

    /// <summary>A run on <paramref name="input"/>'s sequence.</summary>
    internal QuicksortActor(SavinaSize size, QuicksortInput input)
        : base(size)
    {
        _inputKind = input;
        _threshold = QuicksortModel.Parameters(size).T;
    }

    private enum Position
    {
        Initial,
        Left,
        Right,
    }

    protected override void Build()
    {
        _expected = QuicksortModel.Reference(Size, _inputKind);
        QuicksortModel.CheckPaperConstants(Size, _inputKind, _expected);
        _input = QuicksortModel.InputBuffer(Size, _inputKind);
        _root = NewSorter(null, Position.Initial);
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(_root, static (sorter, m) => m.Run.OnSort(sorter, m.Data), new SortMessage(this, _input));
        return _done.Task;
    }

    protected override void Validate()
    {
        string error = QuicksortModel.CompareAndRelease(_result, _expected);
        Check(error.Length == 0, error);
        Check(_sorters == _expected.Sorters && _leaves == _expected.Leaves,
            $"tree had {_sorters} sorters / {_leaves} leaves, expected {_expected.Sorters} / {_expected.Leaves}");
    }

    private static Cown<SorterState> NewSorter(Cown<SorterState>? parent, Position position)
    {
        var state = new SorterState { Parent = parent, Position = position };
        var cown = new Cown<SorterState>(state);
        state.Self = cown;
        return cown;
    }

    // Sorter, on Sort(data).
    private void OnSort(SorterState sorter, LongBuffer data)
    {
        if (data.Count < _threshold)
        {
            sorter.Result = QuicksortModel.SortSequentially(data);
            sorter.Leaves = 1;
            NotifyParent(sorter);
            return;
        }

        (LongBuffer less, LongBuffer equal, LongBuffer greater) = QuicksortModel.Pivotize(data, data[data.Count / 2]);
        Cown<SorterState> left = NewSorter(sorter.Self, Position.Left);
        Runtime.When(left, static (s, m) => m.Run.OnSort(s, m.Data), new SortMessage(this, less));
        Cown<SorterState> right = NewSorter(sorter.Self, Position.Right);
        Runtime.When(right, static (s, m) => m.Run.OnSort(s, m.Data), new SortMessage(this, greater));
        sorter.Result = equal;
        sorter.Fragments++;
    }

    // Sorter, on Result(data, position): concatenate on the matching side; the third fragment completes this sorter.
    private void OnResult(SorterState sorter, ResultMessage message)
    {
        LongBuffer mine = sorter.Result!;
        if (message.Data.Count == 0)
        {
            message.Data.Release();
        }
        else
        {
            sorter.Result = message.Position == Position.Left
                ? QuicksortModel.Join(message.Data, mine)
                : QuicksortModel.Join(mine, message.Data);
        }

        sorter.Sorters += message.Sorters;
        sorter.Leaves += message.Leaves;
        sorter.Fragments++;
        if (sorter.Fragments == 3)
        {
            NotifyParent(sorter);
        }
    }

    private void NotifyParent(SorterState sorter)
    {
        if (sorter.Parent is null)
        {
            _result = sorter.Result;
            _sorters = sorter.Sorters;
            _leaves = sorter.Leaves;
            _done.SetResult();
            return;
        }

        Runtime.When(sorter.Parent, static (s, m) => m.Run.OnResult(s, m),
            new ResultMessage(this, sorter.Result!, sorter.Position, sorter.Sorters, sorter.Leaves));
    }

    private readonly record struct SortMessage(QuicksortActor Run, LongBuffer Data);

    private readonly record struct ResultMessage(QuicksortActor Run, LongBuffer Data, Position Position, int Sorters, int Leaves);

    private sealed class SorterState
    {
        public Cown<SorterState> Self { get; set; } = null!;

        public Cown<SorterState>? Parent { get; init; }

        public Position Position { get; init; }

        public LongBuffer? Result { get; set; }

        public int Fragments { get; set; }

        // This sorter plus every sorter below it that has reported.
        public int Sorters { get; set; } = 1;

        public int Leaves { get; set; }
    }
}

/// <summary>
/// Full BoC ([V] boc/parallel/quicksort.h): sort(v) returns a cown; a small v gets a fresh cown filled by one
/// behaviour, a large v is partitioned and returns its left child's cown after spawning when(left, right) that
/// appends the pivot run and the right fragment. No parent links and no Result messages.
/// </summary>
[SavinaWorkload("Quicksort", SavinaVariant.Full)]
public sealed class QuicksortFull : SavinaRun
{
    private readonly QuicksortInput _inputKind;
    private readonly int _threshold;
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private QuicksortModel.Expected _expected = null!;
    private LongBuffer _input = null!;
    private string? _resultError;

    // Written only by the single behaviour that runs the partition recursion, read after completion.
    private int _leaves;
    private int _joins;

    /// <summary>A run on Savina's input.</summary>
    public QuicksortFull(SavinaSize size)
        : this(size, QuicksortInput.Savina)
    {
    }

    /// <summary>A run on <paramref name="input"/>'s sequence.</summary>
    internal QuicksortFull(SavinaSize size, QuicksortInput input)
        : base(size)
    {
        _inputKind = input;
        _threshold = QuicksortModel.Parameters(size).T;
    }

    protected override void Build()
    {
        _expected = QuicksortModel.Reference(Size, _inputKind);
        QuicksortModel.CheckPaperConstants(Size, _inputKind, _expected);
        _input = QuicksortModel.InputBuffer(Size, _inputKind);
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(static run =>
        {
            Cown<Fragment> root = run.Sort(run._input);
            run.Runtime.When(root, static (f, r) =>
            {
                // Checked here, where the fragment is owned, rather than copied out for Validate (the fragment may
                // not leave its cown, BOC102); both are inside the timed run.
                r._resultError = QuicksortModel.CompareAndRelease(f.Values, r._expected);
                r._done.SetResult();
            }, run);
        }, this);
        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_resultError is not null, "no result");
        Check(_resultError!.Length == 0, _resultError);
        Check(_leaves == _expected.Leaves && _joins == _expected.Leaves - 1,
            $"{_leaves} leaves / {_joins} joins, expected {_expected.Leaves} / {_expected.Leaves - 1}");
    }

    private Cown<Fragment> Sort(LongBuffer data)
    {
        if (data.Count < _threshold)
        {
            var leaf = new Cown<Fragment>(new Fragment());
            Runtime.When(leaf, static (f, v) => f.Values = QuicksortModel.SortSequentially(v), data);
            _leaves++;
            return leaf;
        }

        (LongBuffer less, LongBuffer equal, LongBuffer greater) = QuicksortModel.Pivotize(data, data[data.Count / 2]);
        Cown<Fragment> left = Sort(less);
        Cown<Fragment> right = Sort(greater);
        // Both cowns written, as [V]'s when(left, right): the right fragment is spent once appended, so it is released.
        Runtime.When(left, right, static (l, r, mid) =>
        {
            l.Values.AddRange(mid.Span);
            mid.Release();
            l.Values.AddRange(r.Values.Span);
            r.Values.Release();
        }, equal);
        _joins++;
        return left;
    }

    private sealed class Fragment
    {
        public LongBuffer Values { get; set; } = new();
    }
}

/// <summary>
/// BenchmarkDotNet entry for Quicksort. Actor and Full sort Savina's input (the suite's rows); ActorReferenceInput and
/// FullReferenceInput run the same code on the reference C++ runtime's input (<see cref="QuicksortInput.Reference"/>),
/// for a like-for-like comparison with it.
/// </summary>
/// <remarks>
/// A process's warm-up (<see cref="SavinaBenchmarkBase.WarmUp"/>) builds runs by type and size, so it runs Savina's
/// input for every method: the same code, on a multiset that differs in one value.
/// </remarks>
public partial class Quicksort : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new QuicksortActor(Size));

    [IterationSetup(Target = nameof(Full))]
    public void SetupFull() => _run = Prepare(new QuicksortFull(Size));

    /// <summary>Builds an actor-style run on the reference runtime's input (not timed).</summary>
    [IterationSetup(Target = nameof(ActorReferenceInput))]
    public void SetupActorReferenceInput() => _run = Prepare(new QuicksortActor(Size, QuicksortInput.Reference));

    /// <summary>Builds a full-BoC run on the reference runtime's input (not timed).</summary>
    [IterationSetup(Target = nameof(FullReferenceInput))]
    public void SetupFullReferenceInput() => _run = Prepare(new QuicksortFull(Size, QuicksortInput.Reference));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();

    [Benchmark]
    public Task Full() => _run.RunAsync();

    /// <summary>Actor style on the reference runtime's input.</summary>
    [Benchmark]
    public Task ActorReferenceInput() => _run.RunAsync();

    /// <summary>Full BoC on the reference runtime's input.</summary>
    [Benchmark]
    public Task FullReferenceInput() => _run.RunAsync();
}
