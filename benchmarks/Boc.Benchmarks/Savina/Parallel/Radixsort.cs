using System.Collections.Concurrent;
using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Parallel;

// Savina 4.19 Radixsort (SOURCES.md §4.19): a Source sends N values to a chain of sort actors for radix 1, 2, 4, …,
// M/2 ending in a Validation actor. A sort actor forwards values with (v & radix) == 0 at once and buffers the others;
// after its N-th value it flushes the buffer in arrival order. No full-BoC variant.
//
// Decisions:
// - Values are |PseudoRandom(S).nextLong()| % M with Savina's sequence (sum 3,275,789,328 at Paper, checked while
//   porting with a sequential C# model and again in Validate).
// - Sort actors' buffers are allocated in Build (actor creation is set-up here; Savina allocates them in the timed run).
// - The Validation actor also stores the values it receives (one array store per message), so Validate can compare
//   them with the sorted input: order, count and multiset, not only Savina's order-and-sum check.
// - Small and Test keep M = 2^60 (60 sort actors) with fewer values.

/// <summary>The sorted input, computed once per process and size (not timed), shared by the variants.</summary>
internal static class RadixsortModel
{
    private static readonly ConcurrentDictionary<SavinaSize, long[]> SortedInputs = new();

    public static long[] SortedInput(SavinaSize size, int n, long m, long seed) => SortedInputs.GetOrAdd(size, _ =>
    {
        var random = new PseudoRandom(seed);
        var values = new long[n];
        for (int i = 0; i < values.Length; i++)
        {
            values[i] = Math.Abs(random.NextLong()) % m;
        }

        Array.Sort(values);
        return values;
    });
}

/// <summary>Actor style: Source, 60 Sort actors and the Validation actor, one cown each; every Value is a one-cown behaviour.</summary>
[SavinaWorkload("Radixsort", SavinaVariant.Actor)]
public sealed class RadixsortActor(SavinaSize size) : SavinaRun(size)
{
    private readonly int _n = size switch { SavinaSize.Paper => 100_000, SavinaSize.Small => 25_000, _ => 500 };
    private readonly long _m = 1L << 60;
    private readonly long _seed = 2048;
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private long[] _expected = null!;
    private Cown<SourceState> _source = null!;
    private Cown<SortState> _first = null!;
    private Cown<ValidationState> _validation = null!;
    private int _sortActors;
    private ValidationState? _final;

    protected override void Build()
    {
        _expected = RadixsortModel.SortedInput(Size, _n, _m, _seed);
        if (Size == SavinaSize.Paper)
        {
            long sum = 0;
            foreach (long v in _expected)
            {
                sum += v;
            }

            Check(sum == 3_275_789_328, $"reference input sum {sum}, the spec says 3,275,789,328");
        }

        _validation = new Cown<ValidationState>(new ValidationState { Values = new long[_n] });
        _source = new Cown<SourceState>(new SourceState { Random = new PseudoRandom(_seed) });

        // Built from the top radix down, as Savina does; the last one created (radix 1) receives the source's values.
        Cown<SortState>? next = null;
        _sortActors = 0;
        for (long radix = _m / 2; radix > 0; radix /= 2)
        {
            next = new Cown<SortState>(new SortState { Radix = radix, Next = next, Buffer = new long[_n] });
            _sortActors++;
        }

        _first = next!;
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(_source, static (source, run) => run.Produce(source), this);
        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_sortActors == 60, $"{_sortActors} sort actors, expected 60 for M = 2^60");
        ValidationState? v = _final;
        Check(v is not null && v.Count == _n, $"validator received {v?.Count} values, expected {_n}");
        Check(v!.ErrorIndex < 0, $"value out of place at index {v.ErrorIndex}");
        Check(v.Values.AsSpan().SequenceEqual(_expected), "validator's values are not the sorted input");
        double expectedSum = 0;
        foreach (long x in _expected)
        {
            expectedSum += x;
        }

        Check(v.Sum == expectedSum, $"elements sum {v.Sum:R}, expected {expectedSum:R}");
    }

    // Source, on NextActor: send the N values to the radix-1 sort actor.
    private void Produce(SourceState source)
    {
        for (int i = 0; i < _n; i++)
        {
            long candidate = Math.Abs(source.Random.NextLong()) % _m;
            Runtime.When(_first, static (sorter, m) => m.Run.OnValue(sorter, m.Value), new ValueMessage(this, candidate));
        }
    }

    // Sort actor, on Value.
    private void OnValue(SortState sorter, long value)
    {
        sorter.ValuesSoFar++;
        if ((value & sorter.Radix) == 0)
        {
            Forward(sorter.Next, value);
        }
        else
        {
            sorter.Buffer[sorter.Buffered++] = value;
        }

        if (sorter.ValuesSoFar == _n)
        {
            for (int i = 0; i < sorter.Buffered; i++)
            {
                Forward(sorter.Next, sorter.Buffer[i]);
            }
        }
    }

    private void Forward(Cown<SortState>? next, long value)
    {
        if (next is null)
        {
            Runtime.When(_validation, static (v, m) => m.Run.OnValidate(v, m.Value), new ValueMessage(this, value));
        }
        else
        {
            Runtime.When(next, static (sorter, m) => m.Run.OnValue(sorter, m.Value), new ValueMessage(this, value));
        }
    }

    // Validation actor, on Value: Savina's order check and sum; the N-th value completes the run.
    private void OnValidate(ValidationState v, long value)
    {
        if (value < v.Previous && v.ErrorIndex < 0)
        {
            v.ErrorIndex = v.Count;
        }

        v.Values[v.Count++] = value;
        v.Previous = value;
        v.Sum += value;
        if (v.Count == _n)
        {
            _final = v;
            _done.SetResult();
        }
    }

    private readonly record struct ValueMessage(RadixsortActor Run, long Value);

    private sealed class SourceState
    {
        public required PseudoRandom Random { get; init; }
    }

    private sealed class SortState
    {
        public long Radix { get; init; }

        // Null for the last sort actor (radix M/2), whose next actor is the validator.
        public Cown<SortState>? Next { get; init; }

        public required long[] Buffer { get; init; }

        public int Buffered { get; set; }

        public int ValuesSoFar { get; set; }
    }

    private sealed class ValidationState
    {
        public required long[] Values { get; init; }

        public int Count { get; set; }

        public long Previous { get; set; }

        public double Sum { get; set; }

        public int ErrorIndex { get; set; } = -1;
    }
}

/// <summary>BenchmarkDotNet entry for Radixsort.</summary>
public partial class Radixsort : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new RadixsortActor(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();
}
