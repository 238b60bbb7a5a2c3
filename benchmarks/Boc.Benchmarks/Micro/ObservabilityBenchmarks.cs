using System.Diagnostics;
using System.Diagnostics.Metrics;
using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Micro;

/// <summary>
/// Scenario 5: the cost of observability on scenario 1's spawn+run (N independent one-cown behaviours, static body,
/// BocScheduler), with nobody listening, with a <see cref="MeterListener"/> on every instrument of the <c>Boc</c> meter,
/// and with that plus behaviour spans (<c>TraceBehaviours</c>, an <see cref="ActivityListener"/> sampling everything).
/// The "no listener" row against scenario 1 of an older commit (benchmarks/tools/bench-before-after.sh) is the zero-cost check.
/// </summary>
/// <remarks>
/// In a before/after run the "before" build predates the meter: its rows all measure the unobserved runtime (and it
/// has no <c>TraceBehaviours</c> option, hence <c>BOC_BASELINE</c>).
/// </remarks>
[Config(typeof(MicroConfig))]
public class ObservabilityBenchmarks
{
    public const int N = 1024;

    private readonly Countdown _countdown = new();
    private Cown<Cell>[] _cowns = null!;
    private BocRuntime _runtime = null!;
    private MeterListener? _meterListener;
    private ActivityListener? _activityListener;

    public enum Listening
    {
        None,
        Meter,
        MeterAndSpans,
    }

    [Params(Listening.None, Listening.Meter, Listening.MeterAndSpans)]
    public Listening Mode { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        _cowns = Enumerable.Range(0, N).Select(_ => new Cown<Cell>(new Cell())).ToArray();
        if (Mode != Listening.None)
        {
            _meterListener = new MeterListener
            {
                InstrumentPublished = (instrument, listener) =>
                {
                    if (instrument.Meter.Name == "Boc")
                    {
                        listener.EnableMeasurementEvents(instrument);
                    }
                },
            };

            // Aggregation an exporter would do, kept minimal: sum and count.
            long sum = 0;
            _meterListener.SetMeasurementEventCallback<long>((_, value, _, _) => Interlocked.Add(ref sum, value));
            _meterListener.SetMeasurementEventCallback<double>((_, _, _, _) => Interlocked.Increment(ref sum));
            _meterListener.Start();
        }

        if (Mode == Listening.MeterAndSpans)
        {
            _activityListener = new ActivityListener
            {
                ShouldListenTo = source => source.Name == "Boc",
                Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            };
            ActivitySource.AddActivityListener(_activityListener);
        }

        var options = new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler };
#if !BOC_BASELINE
        options.TraceBehaviours = Mode == Listening.MeterAndSpans;
#endif
        _runtime = new BocRuntime(options);
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _runtime.Dispose();
        _meterListener?.Dispose();
        _activityListener?.Dispose();
    }

    [Benchmark(OperationsPerInvoke = N, Description = "Boc static+state, BocScheduler")]
    [BenchmarkCategory("5 observability")]
    public void SpawnRun()
    {
        _countdown.Reset(N);
        for (int i = 0; i < N; i++)
        {
            _runtime.When(_cowns[i], static (_, countdown) => countdown.Signal(), _countdown);
        }

        _countdown.Wait();
    }
}
