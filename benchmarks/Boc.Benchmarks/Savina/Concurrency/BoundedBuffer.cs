using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Concurrency;

// Savina 4.11 Producer-Consumer with Bounded Buffer (SOURCES.md §4.11): a Manager brokers data items between P
// producers and C consumers through a buffer of adjustedBufferSize = bufferSize - numProducers, parking producers when
// it is full. No full-BoC variant ([V]'s author: "not a good translation").
//
// Decisions:
// - Savina's termination messages are kept: a producer that has made its items answers the next ProduceData with
//   ProducerExit; the Manager's exit condition is the completion event and, as Savina's onPreExit does, it then sends
//   ConsumerExit to every consumer, whose behaviour publishes that consumer's counters for Validate.
// - Every producer starts from 0.0 with the same cost, so all producers emit the same item sequence; Build computes
//   it once sequentially and Validate checks that the consumers received P copies of it (count, and sum with a
//   relative tolerance, since the order in which consumers add up items varies).
// - Small keeps 40 producers, 40 consumers and the costs, with 100 items per producer.

/// <summary>The sequential reference every variant shares.</summary>
internal static class BoundedBufferReference
{
    /// <summary>The sum of one producer's item sequence (every producer starts from 0.0 with the same cost).</summary>
    public static double ExpectedSumPerProducer(int itemsPerProducer, int prodCost)
    {
        double item = 0;
        double sum = 0;
        for (int k = 0; k < itemsPerProducer; k++)
        {
            item = SavinaHelpers.ProcessItem(item, prodCost);
            sum += item;
        }

        return sum;
    }
}

/// <summary>Actor style: Manager, P Producers and C Consumers, one cown each; every message a one-cown behaviour.</summary>
[SavinaWorkload("Bounded Buffer", SavinaVariant.Actor)]
public sealed class BoundedBufferActor(SavinaSize size) : SavinaRun(size)
{
    private readonly int _bufferSize = 50;
    private readonly int _producers = 40;
    private readonly int _consumers = 40;
    private readonly int _itemsPerProducer = size switch { SavinaSize.Paper => 1_000, SavinaSize.Small => 100, _ => 5 };
    private readonly int _prodCost = 25;
    private readonly int _consCost = 25;
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<ManagerState> _manager = null!;
    private Cown<ProducerState>[] _producerCowns = null!;
    private Cown<ConsumerState>[] _consumerCowns = null!;
    private double _expectedSumPerProducer;

    // Published at completion: by the Manager, and by each consumer on ConsumerExit.
    private long _managerData;
    private int _pendingAtExit = -1;
    private int _parkedAtExit = -1;
    private long[] _consumed = [];
    private double[] _consumedSum = [];

    protected override void Build()
    {
        var manager = new ManagerState();
        _manager = new Cown<ManagerState>(manager);
        _producerCowns = new Cown<ProducerState>[_producers];
        for (int i = 0; i < _producers; i++)
        {
            var state = new ProducerState();
            _producerCowns[i] = new Cown<ProducerState>(state);
            state.Self = _producerCowns[i];
        }

        _consumerCowns = new Cown<ConsumerState>[_consumers];
        for (int i = 0; i < _consumers; i++)
        {
            var state = new ConsumerState(i);
            _consumerCowns[i] = new Cown<ConsumerState>(state);
            state.Self = _consumerCowns[i];
            manager.AvailableConsumers.Enqueue(_consumerCowns[i]);
        }

        _consumed = new long[_consumers];
        _consumedSum = new double[_consumers];

        _expectedSumPerProducer = BoundedBufferReference.ExpectedSumPerProducer(_itemsPerProducer, _prodCost);
    }

    protected override Task ExecuteAsync()
    {
        // The Manager's onPostStart: every producer gets ProduceData.
        Runtime.When(_manager, static (_, run) => run.OnStart(), this);
        return _done.Task;
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

    private void OnStart()
    {
        foreach (Cown<ProducerState> producer in _producerCowns)
        {
            SendProduceData(producer);
        }
    }

    private void SendProduceData(Cown<ProducerState> producer) =>
        Runtime.When(producer, static (p, run) => run.OnProduceData(p), this);

    // Producer, on ProduceData: make the next item, or exit after I items.
    private void OnProduceData(ProducerState producer)
    {
        if (producer.ItemsProduced == _itemsPerProducer)
        {
            Runtime.When(_manager, static (m, run) => run.OnProducerExit(m), this);
            return;
        }

        producer.Item = SavinaHelpers.ProcessItem(producer.Item, _prodCost);
        Runtime.When(
            _manager,
            static (m, msg) => msg.Run.OnData(m, msg.Item, msg.Producer),
            (Run: this, Item: producer.Item, Producer: producer.Self));
        producer.ItemsProduced++;
    }

    // Manager, on Data: hand it to a free consumer or buffer it; then re-arm or park the producer.
    private void OnData(ManagerState manager, double item, Cown<ProducerState> producer)
    {
        manager.DataReceived++;
        if (manager.AvailableConsumers.Count == 0)
        {
            manager.PendingData.Enqueue(item);
        }
        else
        {
            SendData(manager.AvailableConsumers.Dequeue(), item);
        }

        if (manager.PendingData.Count >= _bufferSize - _producers)
        {
            manager.AvailableProducers.Enqueue(producer);
        }
        else
        {
            SendProduceData(producer);
        }
    }

    private void SendData(Cown<ConsumerState> consumer, double item) =>
        Runtime.When(consumer, static (c, msg) => msg.Run.OnConsumerData(c, msg.Item), (Run: this, Item: item));

    // Consumer, on Data: consume it and report available.
    private void OnConsumerData(ConsumerState consumer, double item)
    {
        consumer.Item = SavinaHelpers.ProcessItem(consumer.Item + item, _consCost);
        consumer.Consumed++;
        consumer.ConsumedSum += item;
        Runtime.When(
            _manager,
            static (m, msg) => msg.Run.OnConsumerAvailable(m, msg.Consumer),
            (Run: this, Consumer: consumer.Self));
    }

    // Manager, on ConsumerAvailable: give it buffered data (and un-park a producer), or mark it free.
    private void OnConsumerAvailable(ManagerState manager, Cown<ConsumerState> consumer)
    {
        if (manager.PendingData.Count == 0)
        {
            manager.AvailableConsumers.Enqueue(consumer);
            TryExit(manager);
        }
        else
        {
            SendData(consumer, manager.PendingData.Dequeue());
            if (manager.AvailableProducers.Count > 0)
            {
                SendProduceData(manager.AvailableProducers.Dequeue());
            }
        }
    }

    private void OnProducerExit(ManagerState manager)
    {
        manager.TerminatedProducers++;
        TryExit(manager);
    }

    private void TryExit(ManagerState manager)
    {
        if (manager.Exited || manager.TerminatedProducers != _producers || manager.AvailableConsumers.Count != _consumers)
        {
            return;
        }

        manager.Exited = true;
        _managerData = manager.DataReceived;
        _pendingAtExit = manager.PendingData.Count;
        _parkedAtExit = manager.AvailableProducers.Count;

        // Savina's onPreExit: ConsumerExit to every consumer.
        foreach (Cown<ConsumerState> consumer in _consumerCowns)
        {
            Runtime.When(consumer, static (c, run) => run.OnConsumerExit(c), this);
        }

        _done.SetResult();
    }

    private void OnConsumerExit(ConsumerState consumer)
    {
        _consumed[consumer.Id] = consumer.Consumed;
        _consumedSum[consumer.Id] = consumer.ConsumedSum;
    }

    private sealed class ManagerState
    {
        public Queue<Cown<ProducerState>> AvailableProducers { get; } = new();

        public Queue<Cown<ConsumerState>> AvailableConsumers { get; } = new();

        public Queue<double> PendingData { get; } = new();

        public int TerminatedProducers { get; set; }

        public long DataReceived { get; set; }

        public bool Exited { get; set; }
    }

    private sealed class ProducerState
    {
        public Cown<ProducerState> Self { get; set; } = null!;

        public double Item { get; set; }

        public int ItemsProduced { get; set; }
    }

    private sealed class ConsumerState(int id)
    {
        public int Id { get; } = id;

        public Cown<ConsumerState> Self { get; set; } = null!;

        public double Item { get; set; }

        public long Consumed { get; set; }

        public double ConsumedSum { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Bounded Buffer.</summary>
public partial class BoundedBuffer : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new BoundedBufferActor(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();
}
