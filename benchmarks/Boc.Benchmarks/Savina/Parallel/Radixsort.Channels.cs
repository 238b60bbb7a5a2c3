using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Parallel;

/// <summary>
/// Channels baseline of <see cref="RadixsortActor"/>: the same Source, 60 Sort actors and Validation actor, each a
/// <see cref="ChannelActor{TMessage}"/>; every Value is one message, and the validator's N-th value completes the run.
/// </summary>
[SavinaWorkload("Radixsort", SavinaVariant.Channels)]
public sealed class RadixsortChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly int _n = size switch { SavinaSize.Paper => 100_000, SavinaSize.Small => 25_000, _ => 500 };
    private readonly long _m = 1L << 60;
    private readonly long _seed = 2048;
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly List<SortActor> _sorters = [];
    private long[] _expected = null!;
    private Source _source = null!;
    private SortActor _first = null!;
    private Validation _validation = null!;
    private int _sortActors;
    private Validation? _final;

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

        _validation = new Validation(this);
        _source = new Source(this, new PseudoRandom(_seed));

        // Built from the top radix down, as Savina does; the last one created (radix 1) receives the source's values.
        ChannelActor<long> next = _validation;
        _sortActors = 0;
        for (long radix = _m / 2; radix > 0; radix /= 2)
        {
            var sorter = new SortActor(_n, radix, next);
            _sorters.Add(sorter);
            next = sorter;
            _sortActors++;
        }

        _first = (SortActor)next;
    }

    protected override async Task ExecuteAsync()
    {
        _source.Send(default);
        await _done.Task.ConfigureAwait(false);

        _source.Stop();
        foreach (SortActor sorter in _sorters)
        {
            sorter.Stop();
        }

        _validation.Stop();
        await _source.Completion.ConfigureAwait(false);
        foreach (SortActor sorter in _sorters)
        {
            await sorter.Completion.ConfigureAwait(false);
        }

        await _validation.Completion.ConfigureAwait(false);
    }

    protected override void Validate()
    {
        Check(_sortActors == 60, $"{_sortActors} sort actors, expected 60 for M = 2^60");
        Validation? v = _final;
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

    private readonly record struct StartMessage;

    // Source, on NextActor: send the N values to the radix-1 sort actor.
    private sealed class Source(RadixsortChannels run, PseudoRandom random) : ChannelActor<StartMessage>
    {
        protected override void Receive(StartMessage message)
        {
            SortActor first = run._first;
            for (int i = 0; i < run._n; i++)
            {
                first.Send(Math.Abs(random.NextLong()) % run._m);
            }
        }
    }

    // Sort actor, on Value: forward a value without the radix bit at once, buffer the others until the N-th value.
    private sealed class SortActor(int n, long radix, ChannelActor<long> next) : ChannelActor<long>
    {
        private readonly long[] _buffer = new long[n];
        private int _buffered;
        private int _valuesSoFar;

        protected override void Receive(long message)
        {
            _valuesSoFar++;
            if ((message & radix) == 0)
            {
                next.Send(message);
            }
            else
            {
                _buffer[_buffered++] = message;
            }

            if (_valuesSoFar == n)
            {
                for (int i = 0; i < _buffered; i++)
                {
                    next.Send(_buffer[i]);
                }
            }
        }
    }

    // Validation actor, on Value: Savina's order check and sum; the N-th value completes the run.
    private sealed class Validation(RadixsortChannels run) : ChannelActor<long>
    {
        private long _previous;

        public long[] Values { get; } = new long[run._n];

        public int Count { get; private set; }

        public double Sum { get; private set; }

        public int ErrorIndex { get; private set; } = -1;

        protected override void Receive(long message)
        {
            if (message < _previous && ErrorIndex < 0)
            {
                ErrorIndex = Count;
            }

            Values[Count++] = message;
            _previous = message;
            Sum += message;
            if (Count == run._n)
            {
                run._final = this;
                run._done.SetResult();
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for Radixsort: the Channels baseline.</summary>
public partial class Radixsort
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new RadixsortChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
