using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Concurrency;

// Savina 4.9 Concurrent Dictionary (SOURCES.md §4.9): W workers each make M requests (Write or Read) to one
// Dictionary actor, one at a time (the reply triggers the next request); after M requests a worker sends EndWork to
// the Master, which after W EndWorks stops the Dictionary.
//
// Decisions (the spec leaves these open):
// - Worker i draws from PseudoRandom(i + M + write%), as the spec recommends, instead of java.util.Random: 19,981
//   writes at Paper size. The expected op mix and the values written to each key come from a sequential replay of
//   the same streams in Build (not timed) and are compared in Validate.
// - key = |nextInt()| % DATA_LIMIT. PseudoRandom's values are below 65536, so every written key already exists and
//   the final size stays DATA_LIMIT. The map is pre-filled with k -> k in Build (Savina builds DATA_MAP in its config,
//   outside the timed iteration). Small = Paper (one run is about 0.1-0.3 s here); Test uses 100 requests per worker
//   and DATA_LIMIT 4096, so that keys collide and the per-key check sees several writers.
// - Savina's EndWork to the Dictionary is kept; its behaviour publishes the map for Validate and is the completion
//   event. Replies are counted by the workers (not the Dictionary), because in the full variant reads run as
//   concurrent readers and must not write the Dictionary's state.
// - Full BoC follows [V]: the same actors and messages; the only change is that a Read takes Cown.Read(dictionary),
//   so reads overlap each other and run in spawn order with the writes. (Merging the reply into a two-cown
//   When(Read(dictionary), worker) would remove the Result messages too; [V] does not, and the brief asks for reads
//   as read-only acquisitions, so the message structure is kept.)

/// <summary>Concurrent Dictionary parameters, the pre-filled map, and the sequential replay and checks every variant shares.</summary>
internal sealed class ConcurrentDictionaryReference
{
    private readonly int _workers;
    private readonly int _messagesPerWorker;
    private readonly int _dataLimit;
    private readonly Dictionary<int, HashSet<int>> _expectedValues = [];

    public ConcurrentDictionaryReference(int workers, int messagesPerWorker, int writePercent, int dataLimit)
    {
        _workers = workers;
        _messagesPerWorker = messagesPerWorker;
        _dataLimit = dataLimit;
        for (int i = 0; i < _workers; i++)
        {
            var random = new PseudoRandom(i + _messagesPerWorker + writePercent);
            for (int m = 0; m < _messagesPerWorker; m++)
            {
                if (random.NextInt(100) < writePercent)
                {
                    int key = Math.Abs(random.NextInt()) % _dataLimit;
                    int value = random.NextInt();
                    ExpectedWrites++;
                    if (!_expectedValues.TryGetValue(key, out HashSet<int>? values))
                    {
                        _expectedValues[key] = values = [];
                    }

                    values.Add(value);
                }
                else
                {
                    random.NextInt();
                }
            }
        }
    }

    public long ExpectedWrites { get; private set; }

    /// <summary>W, M, write percentage and DATA_LIMIT for <paramref name="size"/>.</summary>
    public static (int Workers, int MessagesPerWorker, int WritePercent, int DataLimit) ParametersFor(SavinaSize size) => size switch
    {
        SavinaSize.Paper => (20, 10_000, 10, int.MaxValue / 4096),
        SavinaSize.Small => (20, 10_000, 10, int.MaxValue / 4096),
        _ => (20, 100, 10, 4096),
    };

    /// <summary>The map pre-filled with k -> k for every key below DATA_LIMIT.</summary>
    public static Dictionary<int, int> CreateMap(int dataLimit)
    {
        var map = new Dictionary<int, int>(dataLimit);
        for (int k = 0; k < dataLimit; k++)
        {
            map[k] = k;
        }

        return map;
    }

    /// <summary>Throws <see cref="SavinaValidationException"/> unless the run matches the replay.</summary>
    public void Validate(long replies, long writesSent, long missingKeys, Dictionary<int, int>? finalMap)
    {
        long expectedReplies = (long)_workers * _messagesPerWorker;
        Check(replies == expectedReplies, $"workers received {replies} replies, expected {expectedReplies}");
        Check(missingKeys == 0, $"{missingKeys} reads found no value for an existing key");
        Check(writesSent == ExpectedWrites, $"workers sent {writesSent} writes, the sequential replay has {ExpectedWrites}");
        Check(finalMap is not null, "the Dictionary never received EndWork");
        Check(finalMap!.Count == _dataLimit, $"final size {finalMap.Count}, expected {_dataLimit}");
        foreach ((int key, HashSet<int> values) in _expectedValues)
        {
            Check(
                finalMap.TryGetValue(key, out int value) && values.Contains(value),
                $"key {key} holds a value that no worker wrote to it");
        }
    }

    private static void Check(bool condition, string what)
    {
        if (!condition)
        {
            throw new SavinaValidationException(what);
        }
    }
}

/// <summary>Shared body of both Concurrent Dictionary variants; they differ only in how a Read acquires the map.</summary>
public abstract class ConcurrentDictionaryRun : SavinaRun
{
    private readonly int _workers;
    private readonly int _messagesPerWorker;
    private readonly int _writePercent;
    private readonly int _dataLimit;
    private readonly bool _readOnlyReads;
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<MasterState> _master = null!;
    private Cown<DictionaryState> _dictionary = null!;
    private IAcquirable<DictionaryState> _readTarget = null!;
    private Cown<WorkerState>[] _workerCowns = null!;

    // Sequential reference (Build).
    private ConcurrentDictionaryReference _reference = null!;

    // Published at completion by the Master's and the Dictionary's behaviours.
    private long _replies;
    private long _writesSent;
    private long _missingKeys;
    private Dictionary<int, int>? _finalMap;

    protected ConcurrentDictionaryRun(SavinaSize size, bool readOnlyReads)
        : base(size)
    {
        (_workers, _messagesPerWorker, _writePercent, _dataLimit) = ConcurrentDictionaryReference.ParametersFor(size);
        _readOnlyReads = readOnlyReads;
    }

    protected override void Build()
    {
        _dictionary = new Cown<DictionaryState>(new DictionaryState(ConcurrentDictionaryReference.CreateMap(_dataLimit)));
        _readTarget = _readOnlyReads ? Cown.Read(_dictionary) : _dictionary;
        _master = new Cown<MasterState>(new MasterState());
        _workerCowns = new Cown<WorkerState>[_workers];
        for (int i = 0; i < _workers; i++)
        {
            var state = new WorkerState(new PseudoRandom(i + _messagesPerWorker + _writePercent));
            _workerCowns[i] = new Cown<WorkerState>(state);
            state.Self = _workerCowns[i];
        }

        _reference = new ConcurrentDictionaryReference(_workers, _messagesPerWorker, _writePercent, _dataLimit);
    }

    protected override Task ExecuteAsync()
    {
        // The Master's start: DoWork to every worker.
        foreach (Cown<WorkerState> worker in _workerCowns)
        {
            Runtime.When(worker, static (w, run) => run.OnWorkerMessage(w), this);
        }

        return _done.Task;
    }

    protected override void Validate() => _reference.Validate(_replies, _writesSent, _missingKeys, _finalMap);

    // Worker, on DoWork or Result: the next request, or EndWork after M requests (Savina counts both messages).
    private void OnWorkerMessage(WorkerState worker)
    {
        worker.MessageCount++;
        if (worker.MessageCount <= _messagesPerWorker)
        {
            PseudoRandom random = worker.Random;
            if (random.NextInt(100) < _writePercent)
            {
                int key = Math.Abs(random.NextInt()) % _dataLimit;
                int value = random.NextInt();
                worker.Writes++;
                Runtime.When(
                    _dictionary,
                    static (d, m) => m.Run.OnWrite(d, m.Worker, m.Key, m.Value),
                    (Run: this, Worker: worker.Self, Key: key, Value: value));
            }
            else
            {
                int key = Math.Abs(random.NextInt()) % _dataLimit;
                Runtime.When(
                    _readTarget,
                    static (d, m) => m.Run.OnRead(d, m.Worker, m.Key),
                    (Run: this, Worker: worker.Self, Key: key));
            }
        }
        else
        {
            Runtime.When(
                _master,
                static (master, m) => m.Run.OnEndWork(master, m.Replies, m.Writes, m.Missing),
                (Run: this, Replies: worker.Replies, Writes: worker.Writes, Missing: worker.MissingKeys));
        }
    }

    // Dictionary, on Write: store and reply with the value.
    private void OnWrite(DictionaryState dictionary, Cown<WorkerState> worker, int key, int value)
    {
        dictionary.Map[key] = value;
        Runtime.When(worker, static (w, m) => m.Run.OnResult(w, m.Value), (Run: this, Value: value));
    }

    // Dictionary, on Read (a reader in the full variant: it must not write the state).
    private void OnRead(DictionaryState dictionary, Cown<WorkerState> worker, int key)
    {
        int value = dictionary.Map.TryGetValue(key, out int v) ? v : -1;
        Runtime.When(worker, static (w, m) => m.Run.OnResult(w, m.Value), (Run: this, Value: value));
    }

    private void OnResult(WorkerState worker, int value)
    {
        // Savina's Result carries the value and the worker ignores it; here a missing key (never expected: every key
        // below DATA_LIMIT exists and values are >= 0) is counted so that Validate can fail on it.
        worker.Replies++;
        if (value < 0)
        {
            worker.MissingKeys++;
        }

        OnWorkerMessage(worker);
    }

    // Master, on EndWork: after W of them, stop the Dictionary.
    private void OnEndWork(MasterState master, long replies, long writes, long missing)
    {
        master.Replies += replies;
        master.MissingKeys += missing;
        master.Writes += writes;
        master.Terminated++;
        if (master.Terminated == _workers)
        {
            _replies = master.Replies;
            _writesSent = master.Writes;
            _missingKeys = master.MissingKeys;
            Runtime.When(_dictionary, static (d, run) => run.OnStop(d), this);
        }
    }

    // Dictionary, on EndWork: publish the map and complete.
    private void OnStop(DictionaryState dictionary)
    {
        _finalMap = dictionary.Map;
        _done.SetResult();
    }

    private sealed class DictionaryState(Dictionary<int, int> map)
    {
        public Dictionary<int, int> Map { get; } = map;
    }

    private sealed class MasterState
    {
        public int Terminated { get; set; }

        public long Replies { get; set; }

        public long Writes { get; set; }

        public long MissingKeys { get; set; }
    }

    private sealed class WorkerState(PseudoRandom random)
    {
        public PseudoRandom Random { get; } = random;

        public Cown<WorkerState> Self { get; set; } = null!;

        public int MessageCount { get; set; }

        public long Replies { get; set; }

        public long Writes { get; set; }

        public long MissingKeys { get; set; }
    }
}

/// <summary>Actor style: Master, Dictionary and W Workers, one cown each; every message a one-cown behaviour.</summary>
[SavinaWorkload("Concurrent Dictionary", SavinaVariant.Actor)]
public sealed class ConcurrentDictionaryActor(SavinaSize size) : ConcurrentDictionaryRun(size, readOnlyReads: false);

/// <summary>Full BoC ([V]): the same actors, but a Read acquires the map read-only, so reads run in parallel.</summary>
[SavinaWorkload("Concurrent Dictionary", SavinaVariant.Full)]
public sealed class ConcurrentDictionaryFull(SavinaSize size) : ConcurrentDictionaryRun(size, readOnlyReads: true);

/// <summary>BenchmarkDotNet entry for Concurrent Dictionary.</summary>
[System.Diagnostics.CodeAnalysis.SuppressMessage(
    "Naming",
    "CA1711:Identifiers should not have incorrect suffix",
    Justification = "The suite names each BenchmarkDotNet class after its Savina benchmark; this one is not a collection.")]
public partial class ConcurrentDictionary : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new ConcurrentDictionaryActor(Size));

    [IterationSetup(Target = nameof(Full))]
    public void SetupFull() => _run = Prepare(new ConcurrentDictionaryFull(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();

    [Benchmark]
    public Task Full() => _run.RunAsync();
}
