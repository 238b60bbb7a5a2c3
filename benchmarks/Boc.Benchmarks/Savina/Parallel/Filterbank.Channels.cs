using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Parallel;

/// <summary>
/// Channels baseline of <see cref="FilterbankActor"/>: the same 62 actors (Producer, Source, Branches, 8 Banks, 8×6
/// chain actors, Integrator, Combine, Sink), each a <see cref="ChannelActor{TMessage}"/>; the Sink's Exit completes the run.
/// </summary>
[SavinaWorkload("Filterbank", SavinaVariant.Channels)]
public sealed class FilterbankChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly (int Columns, int Simulations, int Channels) _p = FilterbankModel.Parameters(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly List<Stage> _stages = [];
    private double[] _expected = null!;
    private Producer _producer = null!;
    private Source _source = null!;
    private List<double>? _sinkValues;
    private int _actors;

    private enum StageKind
    {
        Value,
        Sourced,
        Collection,
        Exit,
    }

    protected override void Build()
    {
        (int cols, int sims, int chans) = _p;
        _expected = FilterbankModel.Reference(Size);
        var h = new double[chans][];
        var f = new double[chans][];
        for (int j = 0; j < chans; j++)
        {
            h[j] = new double[cols];
            f[j] = new double[cols];
            for (int i = 0; i < cols; i++)
            {
                (h[j][i], f[j][i]) = FilterbankModel.Coefficients(cols, chans, j, i);
            }
        }

        var sink = Add(new Sink(this, Math.Max(0, sims - (2 * (cols - 1)))));
        var combine = Add(new Combine(this) { Next = sink });
        var integrator = Add(new Integrator(this, chans) { Next = combine });
        var banks = new Stage[chans];
        _actors = 3;
        for (int j = 0; j < chans; j++)
        {
            var tagged = Add(new TaggedForward(this, j) { Next = integrator });
            var fir2 = Add(new Fir(this, f[j]) { Next = tagged });
            var delay2 = Add(new Delay(this, cols - 1) { Next = fir2 });
            var sample = Add(new Sample(this, cols) { Next = delay2 });
            var fir1 = Add(new Fir(this, h[j]) { Next = sample });
            var delay1 = Add(new Delay(this, cols - 1) { Next = fir1 });
            banks[j] = Add(new Bank(this) { Next = delay1 });
            _actors += 7;
        }

        var branches = Add(new Branches(this, banks));
        _source = new Source(this, branches);
        _producer = new Producer(this);
        _actors += 3;
    }

    protected override async Task ExecuteAsync()
    {
        _producer.Send(default);
        await _done.Task.ConfigureAwait(false);

        _producer.Stop();
        _source.Stop();
        foreach (Stage stage in _stages)
        {
            stage.Stop();
        }

        await _producer.Completion.ConfigureAwait(false);
        await _source.Completion.ConfigureAwait(false);
        foreach (Stage stage in _stages)
        {
            await stage.Completion.ConfigureAwait(false);
        }
    }

    protected override void Validate()
    {
        (int cols, int sims, int chans) = _p;
        int expectedCount = Math.Max(0, sims - (2 * (cols - 1)));
        Check(_actors == 6 + (7 * chans), $"{_actors} actors, expected {6 + (7 * chans)}");
        Check(_expected.Length == expectedCount, $"sequential model gives {_expected.Length} sink values, the formula {expectedCount}");
        Check(_sinkValues is not null && _sinkValues.Count == expectedCount,
            $"sink received {_sinkValues?.Count} values, expected {expectedCount}");
        for (int k = 0; k < expectedCount; k++)
        {
            if (_sinkValues![k] != _expected[k])
            {
                Check(false, $"sink value {k} is {_sinkValues[k]:R}, expected {_expected[k]:R}");
            }
        }

        if (Size == SavinaSize.Paper)
        {
            Check(expectedCount == 2050 && _sinkValues!.TrueForAll(static v => v == 0.0), "at Paper the sink must get 2050 zeros");
        }
    }

    private T Add<T>(T stage)
        where T : Stage
    {
        _stages.Add(stage);
        return stage;
    }

    private readonly record struct NextMessage;

    // Boot, or Exit.
    private readonly record struct SourceMessage(bool IsExit);

    // Value(value), SourcedValue(channel, value), Collection(values), or Exit.
    private readonly record struct StageMessage(StageKind Kind, double Value, int Channel = 0, double[]? Values = null)
    {
        public static StageMessage Of(double value) => new(StageKind.Value, value);

        public static StageMessage Exit => new(StageKind.Exit, 0);
    }

    // Producer, on Next: Boot the Source, or Exit after NUM_SIMULATIONS values.
    private sealed class Producer(FilterbankChannels run) : ChannelActor<NextMessage>
    {
        private int _sent;

        protected override void Receive(NextMessage message)
        {
            if (_sent == run._p.Simulations)
            {
                run._source.Send(new SourceMessage(true));
                return;
            }

            run._source.Send(new SourceMessage(false));
            _sent++;
        }
    }

    // Source, on Boot: emit the current value and ask the Producer for the next one; on Exit: pass it to Branches.
    private sealed class Source(FilterbankChannels run, Stage branches) : ChannelActor<SourceMessage>
    {
        private int _current;

        protected override void Receive(SourceMessage message)
        {
            if (message.IsExit)
            {
                branches.Send(StageMessage.Exit);
                return;
            }

            branches.Send(StageMessage.Of(_current));
            _current = (_current + 1) % FilterbankModel.SourceMaxValue;
            run._producer.Send(default);
        }
    }

    /// <summary>Every pipeline actor; one message type so that any stage can address the next one.</summary>
    private abstract class Stage(FilterbankChannels run) : ChannelActor<StageMessage>
    {
        protected FilterbankChannels Run { get; } = run;

        public Stage? Next { get; init; }

        protected virtual void OnValue(double value) => throw new InvalidOperationException($"{GetType().Name} got a Value");

        protected virtual void OnSourced(int channel, double value) => throw new InvalidOperationException($"{GetType().Name} got a SourcedValue");

        protected virtual void OnCollection(double[] values) => throw new InvalidOperationException($"{GetType().Name} got a Collection");

        protected virtual void OnExit() => Next!.Send(StageMessage.Exit);

        protected sealed override void Receive(StageMessage message)
        {
            switch (message.Kind)
            {
                case StageKind.Value:
                    OnValue(message.Value);
                    break;
                case StageKind.Sourced:
                    OnSourced(message.Channel, message.Value);
                    break;
                case StageKind.Collection:
                    OnCollection(message.Values!);
                    break;
                default:
                    OnExit();
                    break;
            }
        }
    }

    private sealed class Branches(FilterbankChannels run, Stage[] banks) : Stage(run)
    {
        protected override void OnValue(double value)
        {
            foreach (Stage bank in banks)
            {
                bank.Send(StageMessage.Of(value));
            }
        }

        protected override void OnExit()
        {
            foreach (Stage bank in banks)
            {
                bank.Send(StageMessage.Exit);
            }
        }
    }

    private sealed class Bank(FilterbankChannels run) : Stage(run)
    {
        protected override void OnValue(double value) => Next!.Send(StageMessage.Of(value));
    }

    private sealed class Delay(FilterbankChannels run, int length) : Stage(run)
    {
        private readonly double[] _state = new double[length];
        private int _placeHolder;

        protected override void OnValue(double value)
        {
            Next!.Send(StageMessage.Of(_state[_placeHolder]));
            _state[_placeHolder] = value;
            _placeHolder = (_placeHolder + 1) % _state.Length;
        }
    }

    private sealed class Fir(FilterbankChannels run, double[] coefficients) : Stage(run)
    {
        private readonly double[] _data = new double[coefficients.Length];
        private int _dataIndex;
        private bool _dataFull;

        protected override void OnValue(double value)
        {
            _data[_dataIndex] = value;
            _dataIndex++;
            if (_dataIndex == _data.Length)
            {
                _dataFull = true;
                _dataIndex = 0;
            }

            if (_dataFull)
            {
                int peek = _data.Length;
                double sum = 0.0;
                for (int i = 0; i < peek; i++)
                {
                    sum += _data[i] * coefficients[peek - i - 1];
                }

                Next!.Send(StageMessage.Of(sum));
            }
        }
    }

    private sealed class Sample(FilterbankChannels run, int rate) : Stage(run)
    {
        private int _samplesReceived;

        protected override void OnValue(double value)
        {
            Next!.Send(StageMessage.Of(_samplesReceived == 0 ? value : 0.0));
            _samplesReceived = (_samplesReceived + 1) % rate;
        }
    }

    private sealed class TaggedForward(FilterbankChannels run, int channel) : Stage(run)
    {
        protected override void OnValue(double value) => Next!.Send(new StageMessage(StageKind.Sourced, value, channel));
    }

    private sealed class Integrator(FilterbankChannels run, int channels) : Stage(run)
    {
        private readonly List<double[]> _slots = [];
        private readonly int[] _received = new int[channels];
        private int _filledInFirst;

        // Absolute index of _slots[0]; slots before it have been sent.
        private int _firstSlot;
        private int _exits;

        protected override void OnSourced(int channel, double value)
        {
            int position = _received[channel]++ - _firstSlot;
            if (position == _slots.Count)
            {
                _slots.Add(new double[channels]);
            }

            _slots[position][channel] = value;
            if (position == 0 && ++_filledInFirst == channels)
            {
                Next!.Send(new StageMessage(StageKind.Collection, 0, Values: _slots[0]));
                _slots.RemoveAt(0);
                _firstSlot++;
                _filledInFirst = CountFilled(_firstSlot);
            }
        }

        protected override void OnExit()
        {
            if (++_exits == channels)
            {
                Next!.Send(StageMessage.Exit);
            }
        }

        // How many channels have already delivered into the (new) first slot.
        private int CountFilled(int slot)
        {
            int filled = 0;
            foreach (int received in _received)
            {
                if (received > slot)
                {
                    filled++;
                }
            }

            return filled;
        }
    }

    private sealed class Combine(FilterbankChannels run) : Stage(run)
    {
        protected override void OnCollection(double[] values)
        {
            double sum = 0;
            foreach (double v in values)
            {
                sum += v;
            }

            Next!.Send(StageMessage.Of(sum));
        }
    }

    private sealed class Sink(FilterbankChannels run, int expectedCount) : Stage(run)
    {
        private readonly List<double> _values = new(expectedCount);

        protected override void OnValue(double value) => _values.Add(value);

        protected override void OnExit()
        {
            Run._sinkValues = _values;
            Run._done.SetResult();
        }
    }
}

/// <summary>BenchmarkDotNet entry for Filterbank: the Channels baseline.</summary>
public partial class Filterbank
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new FilterbankChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
