using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Parallel;

// Savina 4.21 Sieve of Eratosthenes (SOURCES.md §4.21): a Producer sends the odd candidates 3, 5, …, < N, then Exit,
// to a chain of PrimeFilters, the first seeded with 2. A filter drops a candidate one of its (at most M) local primes
// divides, passes it on if it has a successor, or else keeps it as a new prime, creating the next filter once it holds
// M. Exit travels down the chain; the last filter computes total = (id − 1)·M + local count. No full-BoC variant.
//
// Decisions:
// - Expected total: a sequential sieve of Eratosthenes computed in Validate (cheap next to the run); at Paper it must
//   also be the spec's 9592. The filter count is checked too: ceil(total / M), i.e. 10 at Paper.
// - Exit carries the sum of the primes held by the filters it has passed (one long added to Savina's Exit), and
//   Validate compares it with the sequential sieve: the count alone misses errors such as losing 3, after which 9
//   becomes a "prime" and the count is unchanged.
// - Small equals Paper's N with the same M (one run is already in the 0.1–1 s range on 2 cores); Test is N = 5000 with
//   M = 50, so the chain still grows to 14 filters.

/// <summary>The sequential reference shared by the variants.</summary>
internal static class SieveModel
{
    public static (long Count, long Sum) PrimesBelow(long limit)
    {
        var composite = new bool[limit];
        long count = 0;
        long sum = 0;
        for (long i = 2; i < limit; i++)
        {
            if (!composite[i])
            {
                count++;
                sum += i;
                for (long j = i * i; j < limit; j += i)
                {
                    composite[j] = true;
                }
            }
        }

        return (count, sum);
    }
}

/// <summary>Actor style: a Producer cown and one cown per PrimeFilter, created as primes are found.</summary>
[SavinaWorkload("Sieve of Eratosthenes", SavinaVariant.Actor)]
public sealed class SieveActor(SavinaSize size) : SavinaRun(size)
{
    private readonly long _limit = size switch { SavinaSize.Test => 5_000, _ => 100_000 };
    private readonly int _maxLocalPrimes = size switch { SavinaSize.Test => 50, _ => 1_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<ProducerState> _producer = null!;
    private Cown<FilterState> _firstFilter = null!;
    private long _totalPrimes = -1;
    private long _primeSum = -1;
    private int _filters;

    protected override void Build()
    {
        _producer = new Cown<ProducerState>(new ProducerState());
        _firstFilter = NewFilter(1, 2);
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(_producer, static (_, run) => run.Produce(), this);
        return _done.Task;
    }

    protected override void Validate()
    {
        (long expected, long expectedSum) = SieveModel.PrimesBelow(_limit);
        Check(Size != SavinaSize.Paper || expected == 9592, $"sequential sieve counts {expected} primes, the spec says 9592");
        Check(_totalPrimes == expected, $"last filter counted {_totalPrimes} primes, expected {expected}");
        Check(_primeSum == expectedSum, $"the filters' primes sum to {_primeSum}, expected {expectedSum}");
        long expectedFilters = (expected + _maxLocalPrimes - 1) / _maxLocalPrimes;
        Check(_filters == expectedFilters, $"{_filters} filters, expected {expectedFilters}");
    }

    private Cown<FilterState> NewFilter(int id, long initialPrime)
    {
        var state = new FilterState { Id = id, LocalPrimes = new long[_maxLocalPrimes] };
        state.LocalPrimes[0] = initialPrime;
        state.Available = 1;
        return new Cown<FilterState>(state);
    }

    // Producer, on the first filter's address: all odd candidates, then Exit.
    private void Produce()
    {
        for (long candidate = 3; candidate < _limit; candidate += 2)
        {
            Runtime.When(_firstFilter, static (f, m) => m.Run.OnCandidate(f, m.Candidate), new CandidateMessage(this, candidate));
        }

        Runtime.When(_firstFilter, static (f, m) => m.Run.OnExit(f, m.PrimeSum), (Run: this, PrimeSum: 0L));
    }

    // Filter, on a candidate.
    private void OnCandidate(FilterState filter, long candidate)
    {
        for (int i = 0; i < filter.Available; i++)
        {
            if (candidate % filter.LocalPrimes[i] == 0)
            {
                return;
            }
        }

        if (filter.Next is not null)
        {
            Runtime.When(filter.Next, static (f, m) => m.Run.OnCandidate(f, m.Candidate), new CandidateMessage(this, candidate));
        }
        else if (filter.Available < _maxLocalPrimes)
        {
            filter.LocalPrimes[filter.Available++] = candidate;
        }
        else
        {
            filter.Next = NewFilter(filter.Id + 1, candidate);
        }
    }

    // Filter, on Exit: pass it on, or (last filter) report the total.
    private void OnExit(FilterState filter, long primeSum)
    {
        for (int i = 0; i < filter.Available; i++)
        {
            primeSum += filter.LocalPrimes[i];
        }

        if (filter.Next is not null)
        {
            Runtime.When(filter.Next, static (f, m) => m.Run.OnExit(f, m.PrimeSum), (Run: this, PrimeSum: primeSum));
            return;
        }

        _primeSum = primeSum;
        _totalPrimes = ((long)(filter.Id - 1) * _maxLocalPrimes) + filter.Available;
        _filters = filter.Id;
        _done.SetResult();
    }

    private readonly record struct CandidateMessage(SieveActor Run, long Candidate);

    private sealed class ProducerState;

    private sealed class FilterState
    {
        public int Id { get; init; }

        public required long[] LocalPrimes { get; init; }

        public int Available { get; set; }

        public Cown<FilterState>? Next { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Sieve of Eratosthenes.</summary>
public partial class Sieve : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new SieveActor(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();
}
