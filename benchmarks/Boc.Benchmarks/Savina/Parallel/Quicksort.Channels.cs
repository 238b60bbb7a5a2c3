using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Parallel;

/// <summary>
/// Channels baseline of <see cref="QuicksortActor"/>: the same sorter tree, one <see cref="ChannelActor{TMessage}"/> per
/// sorter, children created during the run; Sort goes down, Result (with the subtree's sorter and leaf counts) goes up,
/// and the root's third fragment completes the run.
/// </summary>
[SavinaWorkload("Quicksort", SavinaVariant.Channels)]
public sealed class QuicksortChannels : SavinaRun
{
    private readonly QuicksortInput _inputKind;
    private readonly int _threshold;
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private QuicksortModel.Expected _expected = null!;
    private LongBuffer _input = null!;
    private Sorter _root = null!;
    private LongBuffer? _result;
    private int _sorters;
    private int _leaves;

    /// <summary>A run on Savina's input.</summary>
    public QuicksortChannels(SavinaSize size)
        : this(size, QuicksortInput.Savina)
    {
    }

    /// <summary>A run on <paramref name="input"/>'s sequence.</summary>
    internal QuicksortChannels(SavinaSize size, QuicksortInput input)
        : base(size)
    {
        _inputKind = input;
        _threshold = QuicksortModel.Parameters(size).T;
    }

    private enum Position
    {
        Initial,
        Left,
        Right,
    }

    protected override void Build()
    {
        _expected = QuicksortModel.Reference(Size, _inputKind);
        QuicksortModel.CheckPaperConstants(Size, _inputKind, _expected);
        _input = QuicksortModel.InputBuffer(Size, _inputKind);
        _root = new Sorter(this, null, Position.Initial);
    }

    protected override async Task ExecuteAsync()
    {
        _root.Send(new Sort(_input));
        await _done.Task.ConfigureAwait(false);

        // Every sorter has reported to its parent, so the tree is complete: stop it all, then await the loops.
        var sorters = new List<Sorter>();
        var pending = new Stack<Sorter>();
        pending.Push(_root);
        while (pending.TryPop(out Sorter? sorter))
        {
            sorter.Stop();
            sorters.Add(sorter);
            if (sorter.LeftChild is not null)
            {
                pending.Push(sorter.LeftChild);
            }

            if (sorter.RightChild is not null)
            {
                pending.Push(sorter.RightChild);
            }
        }

        foreach (Sorter sorter in sorters)
        {
            await sorter.Completion.ConfigureAwait(false);
        }
    }

    protected override void Validate()
    {
        string error = QuicksortModel.CompareAndRelease(_result, _expected);
        Check(error.Length == 0, error);
        Check(_sorters == _expected.Sorters && _leaves == _expected.Leaves,
            $"tree had {_sorters} sorters / {_leaves} leaves, expected {_expected.Sorters} / {_expected.Leaves}");
    }

    private abstract record SorterMessage;

    private sealed record Sort(LongBuffer Data) : SorterMessage;

    private sealed record Result(LongBuffer Data, Position Position, int Sorters, int Leaves) : SorterMessage;

    private sealed class Sorter(QuicksortChannels run, Sorter? parent, Position position) : ChannelActor<SorterMessage>
    {
        private LongBuffer? _result;
        private int _fragments;

        // This sorter plus every sorter below it that has reported.
        private int _sorters = 1;
        private int _leaves;

        // Written only by this sorter's loop (on Sort); read by the run after the completion event.
        public Sorter? LeftChild { get; private set; }

        public Sorter? RightChild { get; private set; }

        protected override void Receive(SorterMessage message)
        {
            switch (message)
            {
                case Sort sort:
                    OnSort(sort.Data);
                    break;
                case Result result:
                    OnResult(result);
                    break;
            }
        }

        private void OnSort(LongBuffer data)
        {
            if (data.Count < run._threshold)
            {
                _result = QuicksortModel.SortSequentially(data);
                _leaves = 1;
                NotifyParent();
                return;
            }

            (LongBuffer less, LongBuffer equal, LongBuffer greater) = QuicksortModel.Pivotize(data, data[data.Count / 2]);
            LeftChild = new Sorter(run, this, Position.Left);
            LeftChild.Send(new Sort(less));
            RightChild = new Sorter(run, this, Position.Right);
            RightChild.Send(new Sort(greater));
            _result = equal;
            _fragments++;
        }

        // Result(data, position): concatenate on the matching side; the third fragment completes this sorter.
        private void OnResult(Result message)
        {
            LongBuffer mine = _result!;
            if (message.Data.Count == 0)
            {
                message.Data.Release();
            }
            else
            {
                _result = message.Position == Position.Left
                    ? QuicksortModel.Join(message.Data, mine)
                    : QuicksortModel.Join(mine, message.Data);
            }

            _sorters += message.Sorters;
            _leaves += message.Leaves;
            _fragments++;
            if (_fragments == 3)
            {
                NotifyParent();
            }
        }

        private void NotifyParent()
        {
            if (parent is null)
            {
                run._result = _result;
                run._sorters = _sorters;
                run._leaves = _leaves;
                run._done.SetResult();
                return;
            }

            parent.Send(new Result(_result!, position, _sorters, _leaves));
        }
    }
}

/// <summary>BenchmarkDotNet entry for Quicksort: the Channels baseline, on Savina's input and on the reference's.</summary>
public partial class Quicksort
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new QuicksortChannels(Size));

    /// <summary>Builds a Channels run on the reference runtime's input (not timed).</summary>
    [IterationSetup(Target = nameof(ChannelsReferenceInput))]
    public void SetupChannelsReferenceInput() => _channelsRun = Prepare(new QuicksortChannels(Size, QuicksortInput.Reference));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();

    /// <summary>The Channels baseline on the reference runtime's input.</summary>
    [Benchmark]
    public Task ChannelsReferenceInput() => _channelsRun.RunAsync();
}
