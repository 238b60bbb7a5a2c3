using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Concurrency;

/// <summary>
/// Channels baseline of <see cref="BoundedBufferActor"/>: the same Manager, P Producers and C Consumers, each a
/// <see cref="ChannelActor{TMessage}"/>, with Savina's ProduceData/Data/ConsumerAvailable/ProducerExit/ConsumerExit
/// messages.
/// </summary>
[SavinaWorkload("Bounded Buffer", SavinaVariant.Channels)]
public sealed class BoundedBufferChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly int _bufferSize = 50;
    private readonly int _producers = 40;
    private readonly int _consumers = 40;
    private readonly int _itemsPerProducer = size switch { SavinaSize.Paper => 1_000, SavinaSize.Small => 100, _ => 5 };
    private readonly int _prodCost = 25;
    private readonly int _consCost = 25;
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Manager _manager = null!;
    private Producer[] _producerActors = null!;
    private Consumer[] _consumerActors = null!;
    private double _expectedSumPerProducer;

    // Published at completion: by the Manager, and by each consumer on ConsumerExit.
    private long _managerData;
    private int _pendingAtExit = -1;
    private int _parkedAtExit = -1;
    private long[] _consumed = [];
    private double[] _consumedSum = [];

    private enum ManagerKind
    {
        Start,
        Data,
        ConsumerAvailable,
        ProducerExit,
    }

    private enum ProducerMessage
    {
        ProduceData,
    }

    protected override void Build()
    {
        _manager = new Manager(this);
        _producerActors = new Producer[_producers];
        for (int i = 0; i < _producers; i++)
        {
            _producerActors[i] = new Producer(this);
        }

        _consumerActors = new Consumer[_consumers];
        for (int i = 0; i < _consumers; i++)
        {
            _consumerActors[i] = new Consumer(this, i);
            _manager.AddAvailableConsumer(_consumerActors[i]);
        }

        _consumed = new long[_consumers];
        _consumedSum = new double[_consumers];
        _expectedSumPerProducer = BoundedBufferReference.ExpectedSumPerProducer(_itemsPerProducer, _prodCost);
    }

    protected override async Task ExecuteAsync()
    {
        // The Manager's onPostStart: every producer gets ProduceData.
        _manager.Send(new ManagerMessage(ManagerKind.Start, 0, null, null));
        await _done.Task.ConfigureAwait(false);
        await _manager.Completion.ConfigureAwait(false);
        await Task.WhenAll(_producerActors.Select(p => p.Completion)).ConfigureAwait(false);
        await Task.WhenAll(_consumerActors.Select(c => c.Completion)).ConfigureAwait(false);
    }

    protected override void Validate()
    {
        long expected = (long)_producers * _itemsPerProducer;
        Check(_managerData == expected, $"Manager received {_managerData} items, expected {expected}");
        Check(_pendingAtExit == 0, $"{_pendingAtExit} items pending at exit");
        Check(_parkedAtExit == 0, $"{_parkedAtExit} producers parked at exit");
        long consumed = _consumed.Sum();
        Check(consumed == expected, $"consumers consumed {consumed} items, expected {expected}");
        double sum = _consumedSum.Sum();
        double expectedSum = _expectedSumPerProducer * _producers;
        Check(
            Math.Abs(sum - expectedSum) <= 1e-9 * Math.Abs(expectedSum),
            $"consumed items sum to {sum:R}, expected {expectedSum:R}");
    }

    private readonly record struct ManagerMessage(ManagerKind Kind, double Item, Producer? Producer, Consumer? Consumer);

    /// <summary>Data with its item, or ConsumerExit.</summary>
    private readonly record struct ConsumerMessage(bool IsExit, double Item);

    private sealed class Manager(BoundedBufferChannels run) : ChannelActor<ManagerMessage>
    {
        private readonly Queue<Producer> _availableProducers = new();
        private readonly Queue<Consumer> _availableConsumers = new();
        private readonly Queue<double> _pendingData = new();
        private int _terminatedProducers;
        private long _dataReceived;
        private bool _exited;

        /// <summary>Seeds the free-consumer queue in Build, before any message.</summary>
        public void AddAvailableConsumer(Consumer consumer) => _availableConsumers.Enqueue(consumer);

        protected override void Receive(ManagerMessage message)
        {
            switch (message.Kind)
            {
                case ManagerKind.Start:
                    foreach (Producer producer in run._producerActors)
                    {
                        producer.Send(ProducerMessage.ProduceData);
                    }

                    break;
                case ManagerKind.Data:
                    OnData(message.Item, message.Producer!);
                    break;
                case ManagerKind.ConsumerAvailable:
                    OnConsumerAvailable(message.Consumer!);
                    break;
                case ManagerKind.ProducerExit:
                    _terminatedProducers++;
                    TryExit();
                    break;
                default:
                    throw new InvalidOperationException($"the Manager got an unexpected {message.Kind}");
            }
        }

        // On Data: hand it to a free consumer or buffer it; then re-arm or park the producer.
        private void OnData(double item, Producer producer)
        {
            _dataReceived++;
            if (_availableConsumers.Count == 0)
            {
                _pendingData.Enqueue(item);
            }
            else
            {
                _availableConsumers.Dequeue().Send(new ConsumerMessage(IsExit: false, item));
            }

            if (_pendingData.Count >= run._bufferSize - run._producers)
            {
                _availableProducers.Enqueue(producer);
            }
            else
            {
                producer.Send(ProducerMessage.ProduceData);
            }
        }

        // On ConsumerAvailable: give it buffered data (and un-park a producer), or mark it free.
        private void OnConsumerAvailable(Consumer consumer)
        {
            if (_pendingData.Count == 0)
            {
                _availableConsumers.Enqueue(consumer);
                TryExit();
            }
            else
            {
                consumer.Send(new ConsumerMessage(IsExit: false, _pendingData.Dequeue()));
                if (_availableProducers.Count > 0)
                {
                    _availableProducers.Dequeue().Send(ProducerMessage.ProduceData);
                }
            }
        }

        private void TryExit()
        {
            if (_exited || _terminatedProducers != run._producers || _availableConsumers.Count != run._consumers)
            {
                return;
            }

            _exited = true;
            run._managerData = _dataReceived;
            run._pendingAtExit = _pendingData.Count;
            run._parkedAtExit = _availableProducers.Count;

            // Savina's onPreExit: ConsumerExit to every consumer; then every actor stops.
            foreach (Consumer consumer in run._consumerActors)
            {
                consumer.Send(new ConsumerMessage(IsExit: true, 0));
                consumer.Stop();
            }

            foreach (Producer producer in run._producerActors)
            {
                producer.Stop();
            }

            Stop();
            run._done.SetResult();
        }
    }

    // On ProduceData: make the next item, or exit after I items.
    private sealed class Producer(BoundedBufferChannels run) : ChannelActor<ProducerMessage>
    {
        private double _item;
        private int _itemsProduced;

        protected override void Receive(ProducerMessage message)
        {
            if (_itemsProduced == run._itemsPerProducer)
            {
                run._manager.Send(new ManagerMessage(ManagerKind.ProducerExit, 0, null, null));
                return;
            }

            _item = SavinaHelpers.ProcessItem(_item, run._prodCost);
            run._manager.Send(new ManagerMessage(ManagerKind.Data, _item, this, null));
            _itemsProduced++;
        }
    }

    private sealed class Consumer(BoundedBufferChannels run, int id) : ChannelActor<ConsumerMessage>
    {
        private double _item;
        private long _consumed;
        private double _consumedSum;

        protected override void Receive(ConsumerMessage message)
        {
            if (message.IsExit)
            {
                run._consumed[id] = _consumed;
                run._consumedSum[id] = _consumedSum;
                return;
            }

            // On Data: consume it and report available.
            _item = SavinaHelpers.ProcessItem(_item + message.Item, run._consCost);
            _consumed++;
            _consumedSum += message.Item;
            run._manager.Send(new ManagerMessage(ManagerKind.ConsumerAvailable, 0, null, this));
        }
    }
}

/// <summary>BenchmarkDotNet entry for Bounded Buffer: the Channels baseline.</summary>
public partial class BoundedBuffer
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new BoundedBufferChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
