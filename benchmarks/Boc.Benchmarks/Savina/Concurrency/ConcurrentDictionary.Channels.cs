using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Concurrency;

/// <summary>
/// Channels baseline of <see cref="ConcurrentDictionaryActor"/>: the same Master, Dictionary and W Workers, each a
/// <see cref="ChannelActor{TMessage}"/>, with Savina's DoWork/Write/Read/Result/EndWork messages.
/// </summary>
[SavinaWorkload("Concurrent Dictionary", SavinaVariant.Channels)]
public sealed class ConcurrentDictionaryChannels : SavinaRun
{
    private readonly int _workers;
    private readonly int _messagesPerWorker;
    private readonly int _writePercent;
    private readonly int _dataLimit;
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Master _master = null!;
    private DictionaryActor _dictionary = null!;
    private Worker[] _workerActors = null!;

    // Sequential reference (Build).
    private ConcurrentDictionaryReference _reference = null!;

    // Published at completion by the Master and the Dictionary.
    private long _replies;
    private long _writesSent;
    private long _missingKeys;
    private Dictionary<int, int>? _finalMap;

    public ConcurrentDictionaryChannels(SavinaSize size)
        : base(size) =>
        (_workers, _messagesPerWorker, _writePercent, _dataLimit) = ConcurrentDictionaryReference.ParametersFor(size);

    private enum DictionaryKind
    {
        Write,
        Read,
        EndWork,
    }

    protected override void Build()
    {
        _dictionary = new DictionaryActor(this, ConcurrentDictionaryReference.CreateMap(_dataLimit));
        _master = new Master(this);
        _workerActors = new Worker[_workers];
        for (int i = 0; i < _workers; i++)
        {
            _workerActors[i] = new Worker(this, new PseudoRandom(i + _messagesPerWorker + _writePercent));
        }

        _reference = new ConcurrentDictionaryReference(_workers, _messagesPerWorker, _writePercent, _dataLimit);
    }

    protected override async Task ExecuteAsync()
    {
        // The Master's start: DoWork to every worker.
        foreach (Worker worker in _workerActors)
        {
            worker.Send(new WorkerMessage(IsResult: false, 0));
        }

        await _done.Task.ConfigureAwait(false);
        await _dictionary.Completion.ConfigureAwait(false);
        await _master.Completion.ConfigureAwait(false);
        await Task.WhenAll(_workerActors.Select(w => w.Completion)).ConfigureAwait(false);
    }

    protected override void Validate() => _reference.Validate(_replies, _writesSent, _missingKeys, _finalMap);

    /// <summary>DoWork, or Result with the value read or written.</summary>
    private readonly record struct WorkerMessage(bool IsResult, int Value);

    private readonly record struct DictionaryMessage(DictionaryKind Kind, Worker? Worker, int Key, int Value);

    /// <summary>EndWork with the worker's counts.</summary>
    private readonly record struct EndWork(long Replies, long Writes, long Missing);

    private sealed class Worker(ConcurrentDictionaryChannels run, PseudoRandom random) : ChannelActor<WorkerMessage>
    {
        private int _messageCount;
        private long _replies;
        private long _writes;
        private long _missingKeys;

        protected override void Receive(WorkerMessage message)
        {
            if (message.IsResult)
            {
                // Savina's Result carries the value and the worker ignores it; here a missing key (never expected) is
                // counted so that Validate can fail on it.
                _replies++;
                if (message.Value < 0)
                {
                    _missingKeys++;
                }
            }

            // On DoWork or Result: the next request, or EndWork after M requests (Savina counts both messages).
            _messageCount++;
            if (_messageCount <= run._messagesPerWorker)
            {
                if (random.NextInt(100) < run._writePercent)
                {
                    int key = Math.Abs(random.NextInt()) % run._dataLimit;
                    int value = random.NextInt();
                    _writes++;
                    run._dictionary.Send(new DictionaryMessage(DictionaryKind.Write, this, key, value));
                }
                else
                {
                    int key = Math.Abs(random.NextInt()) % run._dataLimit;
                    run._dictionary.Send(new DictionaryMessage(DictionaryKind.Read, this, key, 0));
                }
            }
            else
            {
                run._master.Send(new EndWork(_replies, _writes, _missingKeys));
            }
        }
    }

    private sealed class DictionaryActor(ConcurrentDictionaryChannels run, Dictionary<int, int> map) : ChannelActor<DictionaryMessage>
    {
        protected override void Receive(DictionaryMessage message)
        {
            switch (message.Kind)
            {
                // On Write: store and reply with the value.
                case DictionaryKind.Write:
                    map[message.Key] = message.Value;
                    message.Worker!.Send(new WorkerMessage(IsResult: true, message.Value));
                    break;
                case DictionaryKind.Read:
                    int value = map.TryGetValue(message.Key, out int v) ? v : -1;
                    message.Worker!.Send(new WorkerMessage(IsResult: true, value));
                    break;

                // On EndWork: publish the map, stop every actor and complete.
                case DictionaryKind.EndWork:
                    run._finalMap = map;
                    foreach (Worker worker in run._workerActors)
                    {
                        worker.Stop();
                    }

                    run._master.Stop();
                    Stop();
                    run._done.SetResult();
                    break;
                default:
                    throw new InvalidOperationException($"the Dictionary got an unexpected {message.Kind}");
            }
        }
    }

    private sealed class Master(ConcurrentDictionaryChannels run) : ChannelActor<EndWork>
    {
        private int _terminated;
        private long _replies;
        private long _writes;
        private long _missingKeys;

        // On EndWork: after W of them, stop the Dictionary.
        protected override void Receive(EndWork message)
        {
            _replies += message.Replies;
            _missingKeys += message.Missing;
            _writes += message.Writes;
            _terminated++;
            if (_terminated == run._workers)
            {
                run._replies = _replies;
                run._writesSent = _writes;
                run._missingKeys = _missingKeys;
                run._dictionary.Send(new DictionaryMessage(DictionaryKind.EndWork, null, 0, 0));
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for Concurrent Dictionary: the Channels baseline.</summary>
public partial class ConcurrentDictionary
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new ConcurrentDictionaryChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
