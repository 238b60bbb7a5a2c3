using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Parallel;

/// <summary>
/// Channels baseline of <see cref="SieveActor"/>: the same Producer and chain of PrimeFilters, each a
/// <see cref="ChannelActor{TMessage}"/>, filters created during the run as primes are found; Exit travels down the chain
/// and the last filter completes the run.
/// </summary>
[SavinaWorkload("Sieve of Eratosthenes", SavinaVariant.Channels)]
public sealed class SieveChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly long _limit = size switch { SavinaSize.Test => 5_000, _ => 100_000 };
    private readonly int _maxLocalPrimes = size switch { SavinaSize.Test => 50, _ => 1_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Producer _producer = null!;
    private PrimeFilter _firstFilter = null!;
    private long _totalPrimes = -1;
    private long _primeSum = -1;
    private int _filters;

    protected override void Build()
    {
        _producer = new Producer(this);
        _firstFilter = new PrimeFilter(this, 1, 2);
    }

    protected override async Task ExecuteAsync()
    {
        _producer.Send(default);
        await _done.Task.ConfigureAwait(false);

        // The chain is complete: Exit has passed every filter, after each had created its successor.
        _producer.Stop();
        for (PrimeFilter? filter = _firstFilter; filter is not null; filter = filter.Next)
        {
            filter.Stop();
        }

        await _producer.Completion.ConfigureAwait(false);
        for (PrimeFilter? filter = _firstFilter; filter is not null; filter = filter.Next)
        {
            await filter.Completion.ConfigureAwait(false);
        }
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

    private readonly record struct StartMessage;

    // Candidate(value), or Exit(sum of the primes held by the filters passed so far).
    private readonly record struct FilterMessage(bool IsExit, long Value);

    // Producer, on Start: all odd candidates, then Exit, to the first filter.
    private sealed class Producer(SieveChannels run) : ChannelActor<StartMessage>
    {
        protected override void Receive(StartMessage message)
        {
            PrimeFilter first = run._firstFilter;
            for (long candidate = 3; candidate < run._limit; candidate += 2)
            {
                first.Send(new FilterMessage(false, candidate));
            }

            first.Send(new FilterMessage(true, 0));
        }
    }

    private sealed class PrimeFilter : ChannelActor<FilterMessage>
    {
        private readonly SieveChannels _run;
        private readonly int _id;
        private readonly long[] _localPrimes;
        private int _available;

        public PrimeFilter(SieveChannels run, int id, long initialPrime)
        {
            _run = run;
            _id = id;
            _localPrimes = new long[run._maxLocalPrimes];
            _localPrimes[0] = initialPrime;
            _available = 1;
        }

        // Written only by this filter's loop; read by the run after the completion event.
        public PrimeFilter? Next { get; private set; }

        protected override void Receive(FilterMessage message)
        {
            if (message.IsExit)
            {
                OnExit(message.Value);
            }
            else
            {
                OnCandidate(message.Value);
            }
        }

        private void OnCandidate(long candidate)
        {
            for (int i = 0; i < _available; i++)
            {
                if (candidate % _localPrimes[i] == 0)
                {
                    return;
                }
            }

            if (Next is not null)
            {
                Next.Send(new FilterMessage(false, candidate));
            }
            else if (_available < _localPrimes.Length)
            {
                _localPrimes[_available++] = candidate;
            }
            else
            {
                Next = new PrimeFilter(_run, _id + 1, candidate);
            }
        }

        // Exit: pass it on, or (last filter) report the total.
        private void OnExit(long primeSum)
        {
            for (int i = 0; i < _available; i++)
            {
                primeSum += _localPrimes[i];
            }

            if (Next is not null)
            {
                Next.Send(new FilterMessage(true, primeSum));
                return;
            }

            _run._primeSum = primeSum;
            _run._totalPrimes = ((long)(_id - 1) * _localPrimes.Length) + _available;
            _run._filters = _id;
            _run._done.SetResult();
        }
    }
}

/// <summary>BenchmarkDotNet entry for Sieve of Eratosthenes: the Channels baseline.</summary>
public partial class Sieve
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new SieveChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
