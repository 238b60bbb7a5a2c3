using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Concurrency;

// Savina 4.10 Concurrent Sorted Linked-List (SOURCES.md §4.10): like Concurrent Dictionary, but the shared actor
// holds Savina's SortedLinkedList (sorted insert that walks the list, duplicates kept; Contains and Size walk the whole
// list). W workers each make M requests (Size, Write or Contains), one at a time. No full-BoC variant ([V] has none).
//
// Decisions:
// - Worker i uses PseudoRandom(i + M + write% + size%) as Savina does: 10 Size, 16,126 Write and 143,864 Contains at
//   Paper size. The op mix and the multiset of written values are deterministic, so Build replays the streams
//   sequentially (not timed) and Validate checks the final list against the sorted replay, element by element.
// - Savina's EndWork to the list actor is kept; its behaviour publishes the list and is the completion event.
// - Small keeps 20 workers and the op mix but does 2,000 requests per worker: the Contains walks grow with the list, so
//   the cost is quadratic in M (Paper takes seconds).

/// <summary>Operation counts of a Concurrent Sorted Linked-List run: Size, Write and Contains requests.</summary>
internal record struct SortedLinkedListOpCounts(long Size, long Write, long Contains);

/// <summary>The workers' request streams, their sequential replay and the checks every variant shares.</summary>
internal sealed class ConcurrentSortedLinkedListReference
{
    public const int WritePercent = 10;
    public const int SizePercent = 1;
    private readonly int _workers;
    private readonly int _messagesPerWorker;
    private readonly SortedLinkedListOpCounts _expected;
    private readonly int[] _expectedValues;

    public ConcurrentSortedLinkedListReference(int workers, int messagesPerWorker)
    {
        _workers = workers;
        _messagesPerWorker = messagesPerWorker;
        var values = new List<int>();
        _expected = default;
        for (int i = 0; i < _workers; i++)
        {
            var random = new PseudoRandom(Seed(i, messagesPerWorker));
            for (int m = 0; m < _messagesPerWorker; m++)
            {
                int r = random.NextInt(100);
                if (r < SizePercent)
                {
                    _expected.Size++;
                }
                else if (r < SizePercent + WritePercent)
                {
                    _expected.Write++;
                    values.Add(random.NextInt());
                }
                else
                {
                    _expected.Contains++;
                    random.NextInt();
                }
            }
        }

        values.Sort();
        _expectedValues = [.. values];
    }

    /// <summary>Worker <paramref name="worker"/>'s seed: i + M + write% + size%, as Savina.</summary>
    public static int Seed(int worker, int messagesPerWorker) => worker + messagesPerWorker + WritePercent + SizePercent;

    /// <summary>Throws <see cref="SavinaValidationException"/> unless the run matches the replay.</summary>
    public void Validate(long replies, SortedLinkedListOpCounts sent, SavinaSortedLinkedList? finalList)
    {
        long expectedReplies = (long)_workers * _messagesPerWorker;
        Check(replies == expectedReplies, $"workers received {replies} replies, expected {expectedReplies}");
        Check(sent == _expected, $"op mix {sent} differs from the sequential replay {_expected}");
        Check(finalList is not null, "the list never received EndWork");

        // Sorted, and the same multiset as the replay's writes: compare element by element with the sorted replay.
        int index = 0;
        for (SortedLinkedListNode? n = finalList!.Head; n is not null; n = n.Next)
        {
            Check(index < _expectedValues.Length, $"the list has more than {_expectedValues.Length} elements");
            Check(n.Value == _expectedValues[index], $"list element {index} is {n.Value}, expected {_expectedValues[index]}");
            index++;
        }

        Check(index == _expectedValues.Length, $"the list has {index} elements, expected {_expectedValues.Length}");
    }

    private static void Check(bool condition, string what)
    {
        if (!condition)
        {
            throw new SavinaValidationException(what);
        }
    }
}

/// <summary>A node of <see cref="SavinaSortedLinkedList"/>.</summary>
internal sealed class SortedLinkedListNode(int value)
{
    public int Value { get; } = value;

    public SortedLinkedListNode? Next { get; set; }
}

// Savina's SortedLinkedList: Add walks to the first larger element (so equal values keep arrival order), Contains
// walks the whole list (no early exit on a larger element), Size counts the nodes.
internal sealed class SavinaSortedLinkedList
{
    public SortedLinkedListNode? Head { get; private set; }

    public void Add(int value)
    {
        var node = new SortedLinkedListNode(value);
        if (Head is null || value < Head.Value)
        {
            node.Next = Head;
            Head = node;
            return;
        }

        SortedLinkedListNode before = Head;
        SortedLinkedListNode? after = Head.Next;
        while (after is not null && value >= after.Value)
        {
            before = after;
            after = after.Next;
        }

        node.Next = after;
        before.Next = node;
    }

    public bool Contains(int value)
    {
        for (SortedLinkedListNode? n = Head; n is not null; n = n.Next)
        {
            if (n.Value == value)
            {
                return true;
            }
        }

        return false;
    }

    public int Count()
    {
        int count = 0;
        for (SortedLinkedListNode? n = Head; n is not null; n = n.Next)
        {
            count++;
        }

        return count;
    }
}

/// <summary>Actor style: Master, SortedList and W Workers, one cown each; every message a one-cown behaviour.</summary>
[SavinaWorkload("Concurrent Sorted Linked-List", SavinaVariant.Actor)]
public sealed class ConcurrentSortedLinkedListActor(SavinaSize size) : SavinaRun(size)
{
    private const int WritePercent = ConcurrentSortedLinkedListReference.WritePercent;
    private const int SizePercent = ConcurrentSortedLinkedListReference.SizePercent;
    private readonly int _workers = 20;
    private readonly int _messagesPerWorker = size switch { SavinaSize.Paper => 8_000, SavinaSize.Small => 2_000, _ => 100 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<MasterState> _master = null!;
    private Cown<SavinaSortedLinkedList> _list = null!;
    private Cown<WorkerState>[] _workerCowns = null!;

    // Sequential reference (Build).
    private ConcurrentSortedLinkedListReference _reference = null!;

    // Published at completion.
    private SortedLinkedListOpCounts _sent;
    private long _replies;
    private SavinaSortedLinkedList? _finalList;

    protected override void Build()
    {
        _list = new Cown<SavinaSortedLinkedList>(new SavinaSortedLinkedList());
        _master = new Cown<MasterState>(new MasterState());
        _workerCowns = new Cown<WorkerState>[_workers];
        for (int i = 0; i < _workers; i++)
        {
            var state = new WorkerState(new PseudoRandom(Seed(i)));
            _workerCowns[i] = new Cown<WorkerState>(state);
            state.Self = _workerCowns[i];
        }

        _reference = new ConcurrentSortedLinkedListReference(_workers, _messagesPerWorker);
    }

    protected override Task ExecuteAsync()
    {
        foreach (Cown<WorkerState> worker in _workerCowns)
        {
            Runtime.When(worker, static (w, run) => run.OnWorkerMessage(w), this);
        }

        return _done.Task;
    }

    protected override void Validate() => _reference.Validate(_replies, _sent, _finalList);

    private int Seed(int worker) => ConcurrentSortedLinkedListReference.Seed(worker, _messagesPerWorker);

    // Worker, on DoWork or Result: the next request, or EndWork after M requests.
    private void OnWorkerMessage(WorkerState worker)
    {
        worker.MessageCount++;
        if (worker.MessageCount > _messagesPerWorker)
        {
            Runtime.When(
                _master,
                static (master, m) => m.Run.OnEndWork(master, m.Replies, m.Sent),
                (Run: this, Replies: worker.Replies, Sent: worker.Sent));
            return;
        }

        PseudoRandom random = worker.Random;
        int r = random.NextInt(100);
        if (r < SizePercent)
        {
            worker.Sent.Size++;
            Runtime.When(_list, static (list, m) => m.Run.OnSize(list, m.Worker), (Run: this, Worker: worker.Self));
        }
        else if (r < SizePercent + WritePercent)
        {
            worker.Sent.Write++;
            Runtime.When(
                _list,
                static (list, m) => m.Run.OnWrite(list, m.Worker, m.Value),
                (Run: this, Worker: worker.Self, Value: random.NextInt()));
        }
        else
        {
            worker.Sent.Contains++;
            Runtime.When(
                _list,
                static (list, m) => m.Run.OnContains(list, m.Worker, m.Value),
                (Run: this, Worker: worker.Self, Value: random.NextInt()));
        }
    }

    private void OnWrite(SavinaSortedLinkedList list, Cown<WorkerState> worker, int value)
    {
        list.Add(value);
        Reply(worker, value);
    }

    private void OnContains(SavinaSortedLinkedList list, Cown<WorkerState> worker, int value) =>
        Reply(worker, list.Contains(value) ? 1 : 0);

    private void OnSize(SavinaSortedLinkedList list, Cown<WorkerState> worker) => Reply(worker, list.Count());

    private void Reply(Cown<WorkerState> worker, int result) =>
        Runtime.When(worker, static (w, m) => m.Run.OnResult(w, m.Result), (Run: this, Result: result));

    private void OnResult(WorkerState worker, int result)
    {
        // Savina's worker ignores the result; it only triggers the next request.
        _ = result;
        worker.Replies++;
        OnWorkerMessage(worker);
    }

    // Master, on EndWork (carrying the worker's counters): after W of them, stop the list.
    private void OnEndWork(MasterState master, long replies, SortedLinkedListOpCounts sent)
    {
        master.Replies += replies;
        master.Sent.Size += sent.Size;
        master.Sent.Write += sent.Write;
        master.Sent.Contains += sent.Contains;
        master.Terminated++;
        if (master.Terminated == _workers)
        {
            _replies = master.Replies;
            _sent = master.Sent;
            Runtime.When(_list, static (list, run) => run.OnStop(list), this);
        }
    }

    private void OnStop(SavinaSortedLinkedList list)
    {
        _finalList = list;
        _done.SetResult();
    }

    private sealed class MasterState
    {
        public int Terminated { get; set; }

        public long Replies { get; set; }

        public SortedLinkedListOpCounts Sent;
    }

    private sealed class WorkerState(PseudoRandom random)
    {
        public PseudoRandom Random { get; } = random;

        public Cown<WorkerState> Self { get; set; } = null!;

        public int MessageCount { get; set; }

        public long Replies { get; set; }

        public SortedLinkedListOpCounts Sent;
    }
}

/// <summary>BenchmarkDotNet entry for Concurrent Sorted Linked-List.</summary>
public partial class ConcurrentSortedLinkedList : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new ConcurrentSortedLinkedListActor(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();
}
