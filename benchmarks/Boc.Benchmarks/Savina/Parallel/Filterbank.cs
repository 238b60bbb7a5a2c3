using System.Collections.Concurrent;
using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Parallel;

// Savina 4.17 Filterbank (SOURCES.md §4.17): Producer ↔ Source handshake emitting 0..999 cyclically; Branches fans
// each value out to 8 Banks, each a chain Delay(cols−1) → FIR(H[j]) → Sample(cols) → Delay(cols−1) → FIR(F[j]) →
// TaggedForward(j); the Integrator gathers one value per channel into a slot, Combine sums a full slot (channels
// 0..7), the Sink receives the sums. Exit follows the values down every path; the Sink's Exit completes the run.
// No full-BoC variant.
//
// Decisions:
// - Doubles and Savina's H/F formulas, not [V]/[P]'s uint64 and changed H (spec §7.7).
// - The Integrator puts channel j's k-th value into slot k directly. Savina scans for the first slot lacking j, which
//   is the same slot because each channel's values arrive in order (one sender per channel, FIFO per sender); slots
//   complete in order, so sending the first slot when it fills matches Savina's check.
// - The Sink records the values it receives (Savina only counts them), so Validate can compare them exactly with a
//   sequential model of the same pipeline (same double operations in the same order). The model skips work whose
//   result is provably unused or zero (FIR1 sums that the sampler replaces by 0, FIR2 sums over an all-zero window), so
//   it is cheap at every size; it runs once per process and size, outside the timed region.
// - The sink count must be max(0, sims − 2·(cols − 1)): 2050 at Paper, where every value is 0.0 (checked explicitly).
// - Small: cols = 4096 and Savina's own formula sims = 2048 + 2·max(2048, cols) = 10240, so the Sink still gets 2050
//   values (all 0.0). Test: cols = 16, sims = 200, so 170 sink values, many of them non-zero.

/// <summary>Parameters, coefficients and the sequential reference shared by the variants.</summary>
internal static class FilterbankModel
{
    public const int SourceMaxValue = 1000;

    private static readonly ConcurrentDictionary<SavinaSize, double[]> References = new();

    public static (int Columns, int Simulations, int Channels) Parameters(SavinaSize size) => size switch
    {
        SavinaSize.Paper => (16_384, 34_816, 8),
        SavinaSize.Small => (4_096, 2_048 + (2 * 4_096), 8),
        _ => (16, 200, 8),
    };

    /// <summary>The expected sink values, computed once per process and size (not timed).</summary>
    public static double[] Reference(SavinaSize size) => References.GetOrAdd(size, static s => SequentialSink(Parameters(s)));

    // Savina's FilterBankConfig: H[j][i] and F[j][i].
    public static (double H, double F) Coefficients(int cols, int chans, int j, int i) =>
        ((1.0 * i * cols) + (1.0 * j * chans) + j + i + j + 1, (1.0 * i * j) + (1.0 * j * j) + j + i);

    /// <summary>The values the Sink must receive, from a sequential model of the pipeline (see the notes at the top).</summary>
    private static double[] SequentialSink((int Columns, int Simulations, int Channels) p)
    {
        (int cols, int sims, int chans) = p;
        int delay = cols - 1;
        int sinkCount = Math.Max(0, sims - (2 * delay));
        var sink = new double[sinkCount];
        var sampled = new List<double>(sims);
        var coefficientsH = new double[cols];
        var coefficientsF = new double[cols];
        for (int j = 0; j < chans; j++)
        {
            for (int i = 0; i < cols; i++)
            {
                (coefficientsH[i], coefficientsF[i]) = Coefficients(cols, chans, j, i);
            }

            // Delay → FIR(H) → Sample: only every cols-th FIR output survives the sampler.
            sampled.Clear();
            var window = new double[cols];
            int index = 0;
            bool full = false;
            for (int t = 0; t < sims; t++)
            {
                window[index] = t >= delay ? (t - delay) % SourceMaxValue : 0.0;
                index++;
                if (index == cols)
                {
                    full = true;
                    index = 0;
                }

                if (full)
                {
                    sampled.Add(sampled.Count % cols == 0 ? WindowSum(window, coefficientsH) : 0.0);
                }
            }

            // Delay → FIR(F) → TaggedForward: the sum over an all-zero window is 0.0.
            Array.Clear(window);
            index = 0;
            full = false;
            int nonZero = 0;
            int outputs = 0;
            for (int m = 0; m < sampled.Count; m++)
            {
                double input = m >= delay ? sampled[m - delay] : 0.0;
                if (window[index] != 0.0)
                {
                    nonZero--;
                }

                window[index] = input;
                if (input != 0.0)
                {
                    nonZero++;
                }

                index++;
                if (index == cols)
                {
                    full = true;
                    index = 0;
                }

                if (full)
                {
                    double output = nonZero == 0 ? 0.0 : WindowSum(window, coefficientsF);
                    sink[outputs++] += output;
                }
            }
        }

        return sink;

        static double WindowSum(double[] data, double[] coefficients)
        {
            double sum = 0.0;
            for (int i = 0; i < data.Length; i++)
            {
                sum += data[i] * coefficients[data.Length - i - 1];
            }

            return sum;
        }
    }
}

/// <summary>Actor style: 62 cowns (Producer, Source, Branches, 8 Banks, 8×6 chain actors, Integrator, Combine, Sink).</summary>
[SavinaWorkload("Filterbank", SavinaVariant.Actor)]
public sealed class FilterbankActor(SavinaSize size) : SavinaRun(size)
{
    private readonly (int Columns, int Simulations, int Channels) _p = FilterbankModel.Parameters(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private double[] _expected = null!;
    private Cown<ProducerState> _producer = null!;
    private Cown<SourceState> _source = null!;
    private List<double>? _sinkValues;
    private int _actors;

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

        var sink = new Cown<Stage>(new Sink(this, Math.Max(0, sims - (2 * (cols - 1)))));
        var combine = new Cown<Stage>(new Combine(this) { Next = sink });
        var integrator = new Cown<Stage>(new Integrator(this, chans) { Next = combine });
        var banks = new Cown<Stage>[chans];
        _actors = 3;
        for (int j = 0; j < chans; j++)
        {
            var tagged = new Cown<Stage>(new TaggedForward(this, j) { Next = integrator });
            var fir2 = new Cown<Stage>(new Fir(this, f[j]) { Next = tagged });
            var delay2 = new Cown<Stage>(new Delay(this, cols - 1) { Next = fir2 });
            var sample = new Cown<Stage>(new Sample(this, cols) { Next = delay2 });
            var fir1 = new Cown<Stage>(new Fir(this, h[j]) { Next = sample });
            var delay1 = new Cown<Stage>(new Delay(this, cols - 1) { Next = fir1 });
            banks[j] = new Cown<Stage>(new Bank(this) { Next = delay1 });
            _actors += 7;
        }

        var branches = new Cown<Stage>(new Branches(this, banks));
        _source = new Cown<SourceState>(new SourceState { Branches = branches });
        _producer = new Cown<ProducerState>(new ProducerState());
        _actors += 3;
    }

    protected override Task ExecuteAsync()
    {
        Runtime.When(_producer, static (producer, run) => run.OnNext(producer), this);
        return _done.Task;
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

    private void SendValue(Cown<Stage> to, double value) =>
        Runtime.When(to, static (stage, v) => stage.OnValue(v), value);

    private void SendExit(Cown<Stage> to) => Runtime.When(to, static stage => stage.OnExit());

    // Producer, on Next: Boot the Source, or Exit after NUM_SIMULATIONS values.
    private void OnNext(ProducerState producer)
    {
        if (producer.Sent == _p.Simulations)
        {
            Runtime.When(_source, static (source, run) => run.SendExit(source.Branches), this);
            return;
        }

        Runtime.When(_source, static (source, run) => run.OnBoot(source), this);
        producer.Sent++;
    }

    // Source, on Boot: emit the current value and ask the Producer for the next one.
    private void OnBoot(SourceState source)
    {
        SendValue(source.Branches, source.Current);
        source.Current = (source.Current + 1) % FilterbankModel.SourceMaxValue;
        Runtime.When(_producer, static (producer, run) => run.OnNext(producer), this);
    }

    private sealed class ProducerState
    {
        public int Sent { get; set; }
    }

    private sealed class SourceState
    {
        public required Cown<Stage> Branches { get; init; }

        public int Current { get; set; }
    }

    /// <summary>Every pipeline actor; one cown type so that any stage can address the next one.</summary>
    private abstract class Stage(FilterbankActor run)
    {
        protected FilterbankActor Run { get; } = run;

        public Cown<Stage>? Next { get; init; }

        public virtual void OnValue(double value) => throw new InvalidOperationException($"{GetType().Name} got a Value");

        public virtual void OnSourced(int channel, double value) => throw new InvalidOperationException($"{GetType().Name} got a SourcedValue");

        public virtual void OnCollection(double[] values) => throw new InvalidOperationException($"{GetType().Name} got a Collection");

        public virtual void OnExit() => Run.SendExit(Next!);
    }

    private sealed class Branches(FilterbankActor run, Cown<Stage>[] banks) : Stage(run)
    {
        public override void OnValue(double value)
        {
            foreach (Cown<Stage> bank in banks)
            {
                Run.SendValue(bank, value);
            }
        }

        public override void OnExit()
        {
            foreach (Cown<Stage> bank in banks)
            {
                Run.SendExit(bank);
            }
        }
    }

    private sealed class Bank(FilterbankActor run) : Stage(run)
    {
        public override void OnValue(double value) => Run.SendValue(Next!, value);
    }

    private sealed class Delay(FilterbankActor run, int length) : Stage(run)
    {
        private readonly double[] _state = new double[length];
        private int _placeHolder;

        public override void OnValue(double value)
        {
            Run.SendValue(Next!, _state[_placeHolder]);
            _state[_placeHolder] = value;
            _placeHolder = (_placeHolder + 1) % _state.Length;
        }
    }

    private sealed class Fir(FilterbankActor run, double[] coefficients) : Stage(run)
    {
        private readonly double[] _data = new double[coefficients.Length];
        private int _dataIndex;
        private bool _dataFull;

        public override void OnValue(double value)
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

                Run.SendValue(Next!, sum);
            }
        }
    }

    private sealed class Sample(FilterbankActor run, int rate) : Stage(run)
    {
        private int _samplesReceived;

        public override void OnValue(double value)
        {
            Run.SendValue(Next!, _samplesReceived == 0 ? value : 0.0);
            _samplesReceived = (_samplesReceived + 1) % rate;
        }
    }

    private sealed class TaggedForward(FilterbankActor run, int channel) : Stage(run)
    {
        public override void OnValue(double value) =>
            Run.Runtime.When(Next!, static (stage, m) => stage.OnSourced(m.Channel, m.Value), (Channel: channel, Value: value));
    }

    private sealed class Integrator(FilterbankActor run, int channels) : Stage(run)
    {
        private readonly List<double[]> _slots = [];
        private readonly int[] _received = new int[channels];
        private int _filledInFirst;

        // Absolute index of _slots[0]; slots before it have been sent.
        private int _firstSlot;
        private int _exits;

        public override void OnSourced(int channel, double value)
        {
            int position = _received[channel]++ - _firstSlot;
            if (position == _slots.Count)
            {
                _slots.Add(new double[channels]);
            }

            _slots[position][channel] = value;
            if (position == 0 && ++_filledInFirst == channels)
            {
                Run.Runtime.When(Next!, static (stage, values) => stage.OnCollection(values), _slots[0]);
                _slots.RemoveAt(0);
                _firstSlot++;
                _filledInFirst = CountFilled(_firstSlot);
            }
        }

        public override void OnExit()
        {
            if (++_exits == channels)
            {
                Run.SendExit(Next!);
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

    private sealed class Combine(FilterbankActor run) : Stage(run)
    {
        public override void OnCollection(double[] values)
        {
            double sum = 0;
            foreach (double v in values)
            {
                sum += v;
            }

            Run.SendValue(Next!, sum);
        }
    }

    private sealed class Sink(FilterbankActor run, int expectedCount) : Stage(run)
    {
        private readonly List<double> _values = new(expectedCount);

        public override void OnValue(double value) => _values.Add(value);

        public override void OnExit()
        {
            Run._sinkValues = _values;
            Run._done.SetResult();
        }
    }
}

/// <summary>BenchmarkDotNet entry for Filterbank.</summary>
public partial class Filterbank : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new FilterbankActor(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();
}
