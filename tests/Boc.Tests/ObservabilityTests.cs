using System.Collections.Concurrent;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Reflection;
using Boc.Diagnostics;
using Xunit.Abstractions;

namespace Boc.Tests;

/// <summary>
/// Listeners are process-wide, and whether an instrument is enabled is global state: these tests run alone, so that no
/// other test's listener (or lack of one) changes what they see. Measurements are still filtered by a runtime name
/// unique to each test.
/// </summary>
[CollectionDefinition(nameof(ObservabilityRunsAlone), DisableParallelization = true)]
public sealed class ObservabilityRunsAlone
{
}

/// <summary>
/// The <c>Boc</c> meter and activity source, the debugger displays and the queue dump: exact counts with a
/// <see cref="MeterListener"/>, nothing recorded (and nothing stamped) without one, span parentage and error status with
/// an <see cref="ActivityListener"/>.
/// </summary>
[Collection(nameof(ObservabilityRunsAlone))]
public sealed class ObservabilityTests(ITestOutputHelper output)
{
    [Theory]
    [InlineData(1, BocDispatcher.BocScheduler)]
    [InlineData(2, BocDispatcher.ThreadPool)]
    public async Task MeterListener_SeesExactCountsOfSpawnedCompletedFaulted_AndOneStartDelayPerBehaviour(int seed, BocDispatcher dispatcher)
    {
        const int N = 300;
        string name = $"metrics-{seed}-{Guid.NewGuid():N}";
        using var recorder = new MetricsRecorder(name);
        var random = new Random(seed);
        var cowns = Enumerable.Range(0, 4).Select(_ => new Cown<int[]>(new int[1])).ToArray();
        int expectedFaults = 0;
        var results = new List<Task>();
        var errors = new ConcurrentBag<Exception>();
        await using (var runtime = new BocRuntime(new BocRuntimeOptions
        {
            Dispatcher = dispatcher,
            WorkerCount = 2,
            Name = name,
            UnhandledExceptionHandler = errors.Add,
        }))
        {
            for (int i = 0; i < N; i++)
            {
                bool fault = random.Next(4) == 0;
                expectedFaults += fault ? 1 : 0;
                Cown<int[]> a = cowns[random.Next(cowns.Length)];
                Cown<int[]> b = cowns[random.Next(cowns.Length)];
                switch (random.Next(3))
                {
                    case 0:
                        runtime.When(a, s => { s[0]++; if (fault) { throw new InvalidOperationException("planned"); } });
                        break;
                    case 1:
                        results.Add(runtime.WhenAsync(a, b, (s, t) => { s[0]++; if (fault) { throw new InvalidOperationException("planned"); } }).AsTask());
                        break;
                    default:
                        runtime.When(a, async s =>
                        {
                            await Task.Yield();
                            s[0]++;
                            if (fault)
                            {
                                throw new InvalidOperationException("planned");
                            }
                        });
                        break;
                }
            }

            foreach (Task result in results)
            {
                try
                {
                    await result.Guard();
                }
                catch (InvalidOperationException)
                {
                    // A planned fault.
                }
            }

            await runtime.WaitForQuiescenceAsync().Guard();
            recorder.Listener.RecordObservableInstruments();
            Assert.Equal(0, recorder.Last("boc.behaviours.pending"));
        }

        string context = $"seed={seed} dispatcher={dispatcher} faults={expectedFaults}";
        output.WriteLine(context);
        // (spawned, completed, faulted, canceled, start delays): the seed is in the output above.
        Assert.Equal(
            ((long)N, (long)(N - expectedFaults), (long)expectedFaults, 0L, N),
            (recorder.Sum("boc.behaviours.spawned"), recorder.Sum("boc.behaviours.completed"), recorder.Sum("boc.behaviours.faulted"),
                recorder.Sum("boc.behaviours.canceled"), recorder.Values("boc.behaviours.start_delay").Length));
        Assert.All(recorder.Values("boc.behaviours.start_delay"), d => Assert.True(d >= 0, context));
    }

    [Fact]
    public async Task PendingIsReadFromEachLiveRuntime_AndADisposedRuntimeLeavesTheMeter()
    {
        const int Queued = 5;
        string name = $"pending-{Guid.NewGuid():N}";
        using var recorder = new MetricsRecorder(name);
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var cown = new Cown<int[]>(new int[1]);
        var runtime = new BocRuntime(new BocRuntimeOptions { Name = name, WorkerCount = 2 });
        try
        {
            // The first holds the cown until the gate opens (awaiting, so no worker is blocked); the rest queue behind.
            runtime.When(cown, async _ => await gate.Task);
            for (int i = 1; i < Queued; i++)
            {
                runtime.When(cown, s => s[0]++);
            }

            recorder.Listener.RecordObservableInstruments();
            Assert.Equal(Queued, recorder.Last("boc.behaviours.pending"));
            Assert.Equal(2, recorder.Last("boc.scheduler.workers"));
            long idle = recorder.Last("boc.scheduler.workers.idle");
            Assert.InRange(idle, 0, 2);
        }
        finally
        {
            gate.SetResult();
            await runtime.DisposeAsync().AsTask().Guard();
        }

        recorder.Clear();
        recorder.Listener.RecordObservableInstruments();
        Assert.Empty(recorder.Values("boc.behaviours.pending"));
        Assert.Empty(recorder.Values("boc.scheduler.items_run"));
        Assert.DoesNotContain(BocMetrics.Runtimes.Snapshot(), r => ReferenceEquals(r, runtime));
    }

    [Theory]
    [InlineData(BocDispatcher.BocScheduler)]
    [InlineData(BocDispatcher.ThreadPool)]
    public async Task AWithdrawnBehaviour_IsCountedCanceled_NotCompletedOrFaulted(BocDispatcher dispatcher)
    {
        string name = $"canceled-{Guid.NewGuid():N}";
        using var recorder = new MetricsRecorder(name);
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var cown = new Cown<int[]>(new int[1]);
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Name = name, Dispatcher = dispatcher });
        using var cancel = new CancellationTokenSource();

        // Queued behind a body that holds the cown, then canceled: withdrawn, its body never runs.
        runtime.When(cown, async _ => await gate.Task);
        Task withdrawn = runtime.WhenAsync(cown, s => { s[0]++; }, cancel.Token).AsTask();
        runtime.When(cown, s => s[0] += 10);
        cancel.Cancel();
        gate.SetResult();
        await Assert.ThrowsAsync<BehaviourWithdrawnException>(() => withdrawn.Guard());
        await runtime.WaitForQuiescenceAsync().Guard();

        // Before the spawn: nothing enqueued, nothing counted.
        Task neverSpawned = runtime.WhenAsync(cown, s => { s[0]++; }, cancel.Token).AsTask();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => neverSpawned.Guard());

        Assert.Equal(10, await runtime.WhenAsync(cown, s => s[0]).Guard());
        string counts = $"spawned {recorder.Sum("boc.behaviours.spawned")}, completed {recorder.Sum("boc.behaviours.completed")}, "
            + $"faulted {recorder.Sum("boc.behaviours.faulted")}, canceled {recorder.Sum("boc.behaviours.canceled")}";
        Assert.True(recorder.Sum("boc.behaviours.canceled") == 1, counts);
        Assert.True(recorder.Sum("boc.behaviours.spawned") == 4, counts);
        Assert.True(recorder.Sum("boc.behaviours.completed") == 3 && recorder.Sum("boc.behaviours.faulted") == 0, counts);
    }

    [Theory]
    [InlineData(BocDispatcher.BocScheduler)]
    [InlineData(BocDispatcher.ThreadPool)]
    public async Task AppendedBodies_AreCountedAsSpawnedAndCompletedOrFaultedEach(BocDispatcher dispatcher)
    {
        // Only the three counters are listened to: the start-delay histogram (per behaviour) would turn appending off.
        // A flood behind a held cown is appended (AppendTests checks that it is); every body still counts once.
        const int N = 400;
        string name = $"appended-{Guid.NewGuid():N}";
        using var recorder = new MetricsRecorder(name, only: ["boc.behaviours.spawned", "boc.behaviours.completed", "boc.behaviours.faulted"]);
        Assert.False(BocMetrics.StartDelay.Enabled);
        var errors = new ConcurrentBag<Exception>();
        await using (var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher, Name = name, UnhandledExceptionHandler = errors.Add }))
        {
            var cown = new Cown<int[]>(new int[1]);
            using var spawned = new ManualResetEventSlim();
            string dump = "";
            runtime.When(cown, _ =>
            {
                spawned.Wait();
                dump = cown.DescribeQueue();
            });

            for (int i = 0; i < N; i++)
            {
                int index = i;
                runtime.When(cown, s =>
                {
                    s[0]++;
                    if (index % 10 == 0)
                    {
                        throw new InvalidOperationException("planned");
                    }
                });
            }

            spawned.Set();
            await runtime.WaitForQuiescenceAsync().Guard();
            Assert.Contains("appended bodies", dump, StringComparison.Ordinal);
        }

        // The holder plus N spawns; every tenth fails.
        Assert.Equal(
            (N + 1L, N + 1L - (N / 10), N / 10L, N / 10),
            (recorder.Sum("boc.behaviours.spawned"), recorder.Sum("boc.behaviours.completed"), recorder.Sum("boc.behaviours.faulted"), errors.Count));
    }

    [Fact]
    public async Task SchedulerInstruments_CountItemsRunAndBusyTime()
    {
        const int N = 200;
        string name = $"scheduler-{Guid.NewGuid():N}";
        using var recorder = new MetricsRecorder(name);
        await using (var runtime = new BocRuntime(new BocRuntimeOptions { Name = name, WorkerCount = 2 }))
        {
            // One cown each: a behaviour is one item, while a flood on one busy cown may be appended into fewer.
            for (int i = 0; i < N; i++)
            {
                runtime.When(new Cown<int[]>(new int[1]), s => s[0]++);
            }

            await runtime.WaitForQuiescenceAsync().Guard();

            // A worker counts an item once it has run it, which is just after the last behaviour signalled quiescence:
            // wait (bounded) for the clocks to catch up, so the gauge is read after every item was counted.
            var scheduler = (BocScheduler)runtime.Scheduler;
            using var limit = new CancellationTokenSource(Progress.Limit);
            while (scheduler.ItemsRun < N)
            {
                await Task.Delay(1, limit.Token);
            }

            recorder.Listener.RecordObservableInstruments();
        }

        // Every behaviour is one item; tasks and posted continuations are items too, so at least N.
        Assert.True(recorder.Last("boc.scheduler.items_run") >= N);
        Assert.True(recorder.LastDouble("boc.scheduler.busy_time") > 0);
    }

    [Fact]
    public void ARuntimeDroppedWithoutDisposal_IsNotKeptAliveByTheMeter()
    {
        WeakReference runtime = CreateAndDrop();
        for (int i = 0; i < 5 && runtime.IsAlive; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }

        Assert.False(runtime.IsAlive);
        Assert.DoesNotContain(BocMetrics.Runtimes.Snapshot(), r => r.Name == "dropped");
    }

    [Fact]
    public async Task WithoutListeners_NothingIsRecordedAndNothingStampedOrTraced()
    {
        const int N = 50;
        string name = $"quiet-{Guid.NewGuid():N}";
        var seen = new ConcurrentQueue<(bool Stamped, bool Traced, Activity? Ambient)>();
        using var recorder = new MetricsRecorder(name, start: false);
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Name = name, TraceBehaviours = true, WorkerCount = 2 });
        var cown = new Cown<int[]>(new int[1]);

        void SpawnAll()
        {
            for (int i = 0; i < N; i++)
            {
                runtime.When(cown, s =>
                {
                    Behaviour current = Behaviour.Current!;
                    seen.Enqueue((current.HasSpawnTimestamp, current.IsTraced, Activity.Current));
                });
            }
        }

        Assert.False(BocMetrics.Spawned.Enabled);
        Assert.False(BocMetrics.StartDelay.Enabled);
        Assert.False(BocTracing.Source.HasListeners());
        SpawnAll();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(N, seen.Count);
        Assert.All(seen, s => Assert.Equal((false, false, (Activity?)null), s));
        Assert.Equal(0, recorder.Count);

        // The same spawns with a listener are stamped and recorded: the check above can fail.
        seen.Clear();
        recorder.Listener.Start();
        SpawnAll();
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.All(seen, s => Assert.True(s.Stamped));
        Assert.Equal(N, recorder.Sum("boc.behaviours.spawned"));
    }

    [Fact]
    public async Task BehaviourSpans_AreChildrenOfTheSpawnersActivity_CoverAsyncBodies_AndMarkFaults()
    {
        using var tests = new ActivitySource("Boc.Tests.Tracing");
        using var spans = new SpanRecorder("Boc", tests.Name);
        var cowns = new[] { new Cown<int[]>(new int[1]), new Cown<int[]>(new int[1]) };
        var fault = new InvalidOperationException("planned");
        Activity? inner = null;
        Activity? bodySpan = null;
        await using var runtime = new BocRuntime(new BocRuntimeOptions { TraceBehaviours = true, WorkerCount = 2 });
        ActivityContext parentContext;
        using (Activity parent = tests.StartActivity("request")!)
        {
            parentContext = parent.Context;
            await runtime.WhenAsync(cowns[0], cowns[1], (a, b) => { a[0]++; b[0]++; }).Guard();
            Action<int[]> throwing = _ => throw fault;
            await Assert.ThrowsAsync<InvalidOperationException>(() => runtime.WhenAsync(cowns[0], throwing).Guard());
            await runtime.WhenAsync(cowns[1], async b =>
            {
                bodySpan = Activity.Current;
                await Task.Yield();

                // After the await, on whatever thread: the behaviour's span is still current.
                using Activity? child = tests.StartActivity("inner");
                inner = child;
            }).Guard();
        }

        // Outside any activity: a root span.
        await runtime.WhenAsync(cowns[0], a => a[0]++).Guard();

        Activity[] behaviours = spans.Stopped.Where(a => a.OperationName == "boc.behaviour").ToArray();
        Assert.Equal(4, behaviours.Length);
        Assert.All(behaviours.Take(3), a =>
        {
            Assert.Equal(parentContext.TraceId, a.TraceId);
            Assert.Equal(parentContext.SpanId, a.ParentSpanId);
            Assert.Equal(ActivityKind.Internal, a.Kind);
        });
        Assert.Equal(default(ActivitySpanId), behaviours[3].ParentSpanId);
        Assert.NotEqual(parentContext.TraceId, behaviours[3].TraceId);
        Assert.Equal(2, behaviours[0].GetTagItem("boc.cowns"));
        Assert.Equal(1, behaviours[1].GetTagItem("boc.cowns"));
        Assert.Equal(ActivityStatusCode.Unset, behaviours[0].Status);
        Assert.Equal(ActivityStatusCode.Error, behaviours[1].Status);
        Assert.Equal(fault.Message, behaviours[1].StatusDescription);
        ActivityEvent exception = Assert.Single(behaviours[1].Events);
        Assert.Equal("exception", exception.Name);
        Assert.Equal(typeof(InvalidOperationException).FullName, exception.Tags.Single(t => t.Key == "exception.type").Value);

        // The asynchronous body's span was current in the body, and the activity it started after its await is its child.
        Assert.Same(behaviours[2], bodySpan);
        Assert.NotNull(inner);
        Assert.Equal(behaviours[2].SpanId, inner!.ParentSpanId);
        Activity[] stopped = spans.Stopped;
        Assert.True(Array.IndexOf(stopped, inner) < Array.IndexOf(stopped, behaviours[2]), "the span ends after the body's own activity");
    }

    [Fact]
    public async Task BehaviourSpans_SayWhichBehaviourTheyAre_ByBodyMethodAndCownNames()
    {
        using var spans = new SpanRecorder("Boc");
        var alice = new Cown<int[]>(new int[1], "alice");
        var bob = new Cown<int[]>(new int[1], "bob");
        var anonymous = new Cown<int[]>(new int[1]);
        await using var runtime = new BocRuntime(new BocRuntimeOptions { TraceBehaviours = true, WorkerCount = 2 });

        await runtime.WhenAsync(alice, Cown.Read(bob), (a, b) => a[0] += b[0]).Guard();      // a lambda in this method
        await runtime.WhenAsync(anonymous, Increment).Guard();                                   // a method
        await runtime.WhenAsync(anonymous, static (a, by) => a[0] += by, 2).Guard();           // a state form's lambda
        runtime.When(alice, Local);                                                              // a local function
        await runtime.WaitForQuiescenceAsync().Guard();

        Activity[] behaviours = spans.Stopped.Where(a => a.OperationName == "boc.behaviour").ToArray();
        Assert.Equal(4, behaviours.Length);
        Assert.Equal(
            [
                $"{nameof(ObservabilityTests)}.{nameof(BehaviourSpans_SayWhichBehaviourTheyAre_ByBodyMethodAndCownNames)} (lambda)",
                $"{nameof(ObservabilityTests)}.{nameof(Increment)}",
                $"{nameof(ObservabilityTests)}.{nameof(BehaviourSpans_SayWhichBehaviourTheyAre_ByBodyMethodAndCownNames)} (lambda)",
                $"{nameof(ObservabilityTests)}.{nameof(BehaviourSpans_SayWhichBehaviourTheyAre_ByBodyMethodAndCownNames)}.Local",
            ],
            behaviours.Select(a => a.DisplayName));
        Assert.Equal($"Boc.Tests.{nameof(ObservabilityTests)}.{nameof(Increment)}", behaviours[1].GetTagItem("code.function.name"));
        Assert.Equal($"alice#{alice.Id} (write), bob#{bob.Id} (read)", behaviours[0].GetTagItem("boc.cown.names"));
        Assert.Null(behaviours[1].GetTagItem("boc.cown.names"));

        static void Local(int[] a) => a[0]++;
    }

    private static void Increment(int[] a) => a[0]++;

    [Fact]
    public async Task TracingOff_StartsNoSpans_EvenWithAListener()
    {
        using var spans = new SpanRecorder("Boc");
        await using var runtime = new BocRuntime(new BocRuntimeOptions { WorkerCount = 2 });
        var cown = new Cown<int[]>(new int[1]);
        bool traced = true;
        await runtime.WhenAsync(cown, s => { traced = Behaviour.Current!.IsTraced || Activity.Current is not null; }).Guard();
        Assert.False(traced);
        Assert.Empty(spans.Stopped);
    }

    [Fact]
    public async Task DebuggerDisplays_ShowIdQueueStateAndRuntimeSummary()
    {
        Assert.Equal("{DebuggerDisplay,nq}", Assert.Single(typeof(Cown<int[]>).GetCustomAttributes<DebuggerDisplayAttribute>(inherit: true)).Value);
        Assert.Equal("{DebuggerDisplay,nq}", Assert.Single(typeof(BocRuntime).GetCustomAttributes<DebuggerDisplayAttribute>(inherit: true)).Value);

        var runtime = new BocRuntime(new BocRuntimeOptions { Name = "shop", WorkerCount = 2 });
        var cown = new Cown<int[]>(new int[1]);
        Assert.Equal($"Cown#{cown.Id}, idle", cown.DebuggerDisplay);
        Assert.Equal("BocRuntime \"shop\", BocScheduler (2 workers), pending ≈ 0", runtime.DebuggerDisplay);
        var view = new CownDebugView<int[]>(cown);
        Assert.Equal(cown.Id, view.Id);
        Assert.Equal([$"Cown#{cown.Id}: idle (nothing queued or running)"], view.Queue);
        Assert.Same(cown.State, view.State);

        using var readersIn = new CountdownEvent(2);
        var release = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        try
        {
            // Two readers hold the cown (awaiting, so no worker blocks); a writer then takes the turn and waits for them.
            for (int i = 0; i < 2; i++)
            {
                runtime.When(Cown.Read(cown), async _ => { readersIn.Signal(); await release.Task; });
            }

            Assert.True(readersIn.Wait(Progress.Limit));
            Assert.Equal($"Cown#{cown.Id}, busy, 2 readers running", cown.DebuggerDisplay);
            runtime.When(cown, s => s[0]++);
            runtime.When(cown, s => s[0]++);
            Assert.Equal($"Cown#{cown.Id}, busy (queue not empty), 2 readers running, a writer waits for the readers", cown.DebuggerDisplay);
            Assert.Equal("BocRuntime \"shop\", BocScheduler (2 workers), pending ≈ 4", runtime.DebuggerDisplay);

            // The waiting writer holds the turn, so the dump can walk the whole queue from it.
            string[] lines = cown.DescribeQueue().Split('\n').Select(l => l.TrimEnd('\r')).ToArray();
            output.WriteLine(string.Join('\n', lines));
            Assert.Equal(
                [
                    $"Cown#{cown.Id}: queue not empty, 2 readers running, a writer holds the turn and waits for the readers",
                    $"  0: waiting (1 to go) on Cown#{cown.Id} (write)",
                    $"  1: waiting (1 to go) on Cown#{cown.Id} (write)",
                ],
                lines);
        }
        finally
        {
            release.SetResult();
            await runtime.DisposeAsync().AsTask().Guard();
        }

        Assert.Equal($"Cown#{cown.Id}, idle", cown.DebuggerDisplay);
        Assert.Equal($"Cown#{cown.Id}: idle (nothing queued or running)", cown.DescribeQueue());
        Assert.Equal("BocRuntime \"shop\", BocScheduler (2 workers), pending ≈ 0, disposed", runtime.DebuggerDisplay);
    }

    [Fact]
    public async Task DescribeQueue_FromABodyThatHoldsTheCown_ListsEveryBehaviourQueuedBehindIt()
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.ThreadPool });
        var cown = new Cown<int[]>(new int[1]);
        var other = new Cown<int[]>(new int[1]);
        string dump = await runtime.WhenAsync(cown, s =>
        {
            // Queued behind this body on the cown: they cannot start before it ends, so the snapshot is stable.
            runtime.When(cown, other, (a, b) => a[0]++);
            runtime.When(Cown.Read(cown), a => _ = a[0]);
            return cown.DescribeQueue();
        }).Guard();
        output.WriteLine(dump);
        (Cown first, Cown second) = cown.Id < other.Id ? (cown, other) : (other, cown);
        Assert.Equal(
            [
                $"{cown}: queue not empty",
                $"  0: running on {cown} (write)",
                $"  1: waiting (1 to go) on {first} (write), {second} (write)",
                $"  2: waiting (1 to go) on {cown} (read)",
            ],
            dump.Split('\n').Select(l => l.TrimEnd('\r')));

        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal($"{cown}: idle (nothing queued or running)", cown.DescribeQueue());
    }

    [System.Runtime.CompilerServices.MethodImpl(System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]
    private static WeakReference CreateAndDrop()
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { Name = "dropped", Dispatcher = BocDispatcher.ThreadPool });
        Assert.Contains(BocMetrics.Runtimes.Snapshot(), r => ReferenceEquals(r, runtime));
        return new WeakReference(runtime);
    }

    /// <summary>Records every measurement of the <c>Boc</c> meter tagged with one runtime name (or untagged, for tests that ask).</summary>
    private sealed class MetricsRecorder : IDisposable
    {
        private readonly ConcurrentQueue<(string Instrument, double Value)> _measurements = new();
        private readonly string _runtimeName;

        public MetricsRecorder(string runtimeName, bool start = true, string[]? only = null)
        {
            _runtimeName = runtimeName;
            Listener.InstrumentPublished = (instrument, listener) =>
            {
                if (instrument.Meter.Name == BocMetrics.MeterName && (only is null || only.Contains(instrument.Name)))
                {
                    listener.EnableMeasurementEvents(instrument);
                }
            };
            // On .NET 8, Dispose turns an instrument's Enabled back off only when MeasurementsCompleted is set
            // (dotnet/runtime#102465, fixed in .NET 9); without it every later test would see instruments enabled.
            Listener.MeasurementsCompleted = static (_, _) => { };
            Listener.SetMeasurementEventCallback<long>((i, v, tags, _) => Record(i, v, tags));
            Listener.SetMeasurementEventCallback<double>((i, v, tags, _) => Record(i, v, tags));
            if (start)
            {
                Listener.Start();
            }
        }

        public MeterListener Listener { get; } = new();

        public int Count => _measurements.Count;

        public long Sum(string instrument) => (long)_measurements.Where(m => m.Instrument == instrument).Sum(m => m.Value);

        public double[] Values(string instrument) => _measurements.Where(m => m.Instrument == instrument).Select(m => m.Value).ToArray();

        public long Last(string instrument) => (long)Values(instrument).Last();

        public double LastDouble(string instrument) => Values(instrument).Last();

        public void Clear() => _measurements.Clear();

        public void Dispose() => Listener.Dispose();

        private void Record(Instrument instrument, double value, ReadOnlySpan<KeyValuePair<string, object?>> tags)
        {
            foreach (KeyValuePair<string, object?> tag in tags)
            {
                if (tag.Key == BocMetrics.RuntimeTag && (string?)tag.Value == _runtimeName)
                {
                    _measurements.Enqueue((instrument.Name, value));
                    return;
                }
            }
        }
    }

    /// <summary>Listens to the given sources, samples everything, and keeps the stopped activities in stop order.</summary>
    private sealed class SpanRecorder : IDisposable
    {
        private readonly ActivityListener _listener;
        private readonly ConcurrentQueue<Activity> _stopped = new();

        public SpanRecorder(params string[] sources)
        {
            _listener = new ActivityListener
            {
                ShouldListenTo = source => sources.Contains(source.Name),
                Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
                ActivityStopped = _stopped.Enqueue,
            };
            ActivitySource.AddActivityListener(_listener);
        }

        public Activity[] Stopped => _stopped.ToArray();

        public void Dispose() => _listener.Dispose();
    }
}
