using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Concurrency;

/// <summary>
/// Channels baseline of <see cref="ConcurrentSortedLinkedListActor"/>: the same Master, SortedList and W Workers, each
/// a <see cref="ChannelActor{TMessage}"/>, with Savina's DoWork/Size/Write/Contains/Result/EndWork messages.
/// </summary>
[SavinaWorkload("Concurrent Sorted Linked-List", SavinaVariant.Channels)]
public sealed class ConcurrentSortedLinkedListChannels(SavinaSize size) : SavinaRun(size)
{
    private const int WritePercent = ConcurrentSortedLinkedListReference.WritePercent;
    private const int SizePercent = ConcurrentSortedLinkedListReference.SizePercent;
    private readonly int _workers = 20;
    private readonly int _messagesPerWorker = size switch { SavinaSize.Paper => 8_000, SavinaSize.Small => 2_000, _ => 100 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Master _master = null!;
    private ListActor _list = null!;
    private Worker[] _workerActors = null!;

    // Sequential reference (Build).
    private ConcurrentSortedLinkedListReference _reference = null!;

    // Published at completion.
    private SortedLinkedListOpCounts _sent;
    private long _replies;
    private SavinaSortedLinkedList? _finalList;

    private enum ListKind
    {
        Size,
        Write,
        Contains,
        EndWork,
    }

    protected override void Build()
    {
        _list = new ListActor(this);
        _master = new Master(this);
        _workerActors = new Worker[_workers];
        for (int i = 0; i < _workers; i++)
        {
            _workerActors[i] = new Worker(this, new PseudoRandom(ConcurrentSortedLinkedListReference.Seed(i, _messagesPerWorker)));
        }

        _reference = new ConcurrentSortedLinkedListReference(_workers, _messagesPerWorker);
    }

    protected override async Task ExecuteAsync()
    {
        foreach (Worker worker in _workerActors)
        {
            worker.Send(new WorkerMessage(IsResult: false, 0));
        }

        await _done.Task.ConfigureAwait(false);
        await _list.Completion.ConfigureAwait(false);
        await _master.Completion.ConfigureAwait(false);
        await Task.WhenAll(_workerActors.Select(w => w.Completion)).ConfigureAwait(false);
    }

    protected override void Validate() => _reference.Validate(_replies, _sent, _finalList);

    /// <summary>DoWork, or Result (which Savina's worker ignores).</summary>
    private readonly record struct WorkerMessage(bool IsResult, int Result);

    private readonly record struct ListMessage(ListKind Kind, Worker? Worker, int Value);

    /// <summary>EndWork, carrying the worker's counters.</summary>
    private readonly record struct EndWork(long Replies, SortedLinkedListOpCounts Sent);

    private sealed class Worker(ConcurrentSortedLinkedListChannels run, PseudoRandom random) : ChannelActor<WorkerMessage>
    {
        private int _messageCount;
        private long _replies;
        private SortedLinkedListOpCounts _sent;

        // On DoWork or Result: the next request, or EndWork after M requests.
        protected override void Receive(WorkerMessage message)
        {
            if (message.IsResult)
            {
                _replies++;
            }

            _messageCount++;
            if (_messageCount > run._messagesPerWorker)
            {
                run._master.Send(new EndWork(_replies, _sent));
                return;
            }

            int r = random.NextInt(100);
            if (r < SizePercent)
            {
                _sent.Size++;
                run._list.Send(new ListMessage(ListKind.Size, this, 0));
            }
            else if (r < SizePercent + WritePercent)
            {
                _sent.Write++;
                run._list.Send(new ListMessage(ListKind.Write, this, random.NextInt()));
            }
            else
            {
                _sent.Contains++;
                run._list.Send(new ListMessage(ListKind.Contains, this, random.NextInt()));
            }
        }
    }

    private sealed class ListActor(ConcurrentSortedLinkedListChannels run) : ChannelActor<ListMessage>
    {
        private readonly SavinaSortedLinkedList _list = new();

        protected override void Receive(ListMessage message)
        {
            switch (message.Kind)
            {
                case ListKind.Write:
                    _list.Add(message.Value);
                    message.Worker!.Send(new WorkerMessage(IsResult: true, message.Value));
                    break;
                case ListKind.Contains:
                    message.Worker!.Send(new WorkerMessage(IsResult: true, _list.Contains(message.Value) ? 1 : 0));
                    break;
                case ListKind.Size:
                    message.Worker!.Send(new WorkerMessage(IsResult: true, _list.Count()));
                    break;

                // On EndWork: publish the list, stop every actor and complete.
                case ListKind.EndWork:
                    run._finalList = _list;
                    foreach (Worker worker in run._workerActors)
                    {
                        worker.Stop();
                    }

                    run._master.Stop();
                    Stop();
                    run._done.SetResult();
                    break;
                default:
                    throw new InvalidOperationException($"the list got an unexpected {message.Kind}");
            }
        }
    }

    // On EndWork (carrying the worker's counters): after W of them, stop the list.
    private sealed class Master(ConcurrentSortedLinkedListChannels run) : ChannelActor<EndWork>
    {
        private int _terminated;
        private long _replies;
        private SortedLinkedListOpCounts _sent;

        protected override void Receive(EndWork message)
        {
            _replies += message.Replies;
            _sent.Size += message.Sent.Size;
            _sent.Write += message.Sent.Write;
            _sent.Contains += message.Sent.Contains;
            _terminated++;
            if (_terminated == run._workers)
            {
                run._replies = _replies;
                run._sent = _sent;
                run._list.Send(new ListMessage(ListKind.EndWork, null, 0));
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for Concurrent Sorted Linked-List: the Channels baseline.</summary>
public partial class ConcurrentSortedLinkedList
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new ConcurrentSortedLinkedListChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
