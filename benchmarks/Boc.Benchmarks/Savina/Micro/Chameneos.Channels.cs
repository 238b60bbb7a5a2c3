using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

// Decisions (besides the actor run's):
// - Every actor is stopped after the completion event (the Mall has every MeetingCount, so no message is in flight).

/// <summary>Channels baseline: the actor run's Mall and chameneos, each a <see cref="ChannelActor{TMessage}"/>.</summary>
[SavinaWorkload("Chameneos", SavinaVariant.Channels)]
public sealed class ChameneosChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly int _chameneos = size switch { SavinaSize.Paper => 100, SavinaSize.Small => 100, _ => 10 };
    private readonly int _meetings = size switch { SavinaSize.Paper => 200_000, SavinaSize.Small => 200_000, _ => 2_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private ChameneoActor[] _creatures = null!;
    private MallActor _mall = null!;
    private long _sumMeetings = -1;
    private int _faded = -1;

    protected override void Build()
    {
        _creatures = new ChameneoActor[_chameneos];
        for (int i = 0; i < _chameneos; i++)
        {
            _creatures[i] = new ChameneoActor(this, i, ChameneoColors.ForIndex(i));
        }

        _mall = new MallActor(this, _meetings);
    }

    protected override async Task ExecuteAsync()
    {
        for (int i = 0; i < _chameneos; i++)
        {
            _mall.Send(MallMessage.Meet(ChameneoColors.ForIndex(i), i));
        }

        await _done.Task.ConfigureAwait(false);
        _mall.Stop();
        foreach (ChameneoActor chameneo in _creatures)
        {
            chameneo.Stop();
        }

        await Task.WhenAll(_creatures.Select(c => c.Completion).Append(_mall.Completion)).ConfigureAwait(false);
    }

    protected override void Validate()
    {
        Check(_sumMeetings == 2L * _meetings, $"Chameneos met {_sumMeetings} times in all, expected {2L * _meetings}");
        Check(_faded == _chameneos, $"{_faded} chameneos faded, expected {_chameneos}");
    }

    private enum MallKind
    {
        Meet,
        MeetingCount,
    }

    private enum ChameneoKind
    {
        Meet,
        Change,
        Exit,
    }

    /// <summary>Meet(colour, sender), or MeetingCount(count).</summary>
    private readonly record struct MallMessage(MallKind Kind, ChameneoColor Color, int Sender, int Count)
    {
        public static MallMessage Meet(ChameneoColor color, int sender) => new(MallKind.Meet, color, sender, 0);
    }

    /// <summary>Meet(colour, sender), Change(colour), or Exit.</summary>
    private readonly record struct ChameneoMessage(ChameneoKind Kind, ChameneoColor Color, int Sender);

    private sealed class MallActor(ChameneosChannels run, int meetings) : ChannelActor<MallMessage>
    {
        private int _meetingsLeft = meetings;
        private int _waiting = -1;
        private long _sumMeetings;
        private int _faded;

        protected override void Receive(MallMessage message)
        {
            if (message.Kind == MallKind.Meet)
            {
                OnMeet(message.Color, message.Sender);
            }
            else
            {
                OnMeetingCount(message.Count);
            }
        }

        // On Meet: park the sender, or pair it with the parked one by forwarding the Meet; Exit once exhausted.
        private void OnMeet(ChameneoColor color, int sender)
        {
            if (_meetingsLeft > 0)
            {
                if (_waiting < 0)
                {
                    _waiting = sender;
                }
                else
                {
                    _meetingsLeft--;
                    run._creatures[_waiting].Send(new ChameneoMessage(ChameneoKind.Meet, color, sender));
                    _waiting = -1;
                }
            }
            else
            {
                run._creatures[sender].Send(new ChameneoMessage(ChameneoKind.Exit, default, -1));
            }
        }

        // On MeetingCount: the last one completes the run.
        private void OnMeetingCount(int count)
        {
            _faded++;
            _sumMeetings += count;
            if (_faded == run._chameneos)
            {
                run._sumMeetings = _sumMeetings;
                run._faded = _faded;
                run._done.SetResult();
            }
        }
    }

    private sealed class ChameneoActor(ChameneosChannels run, int id, ChameneoColor color) : ChannelActor<ChameneoMessage>
    {
        private ChameneoColor _color = color;
        private int _meetings;

        protected override void Receive(ChameneoMessage message)
        {
            switch (message.Kind)
            {
                case ChameneoKind.Meet:
                    // Meet(colour, other): change colour, tell the other, meet again.
                    _color = ChameneoColors.Complement(_color, message.Color);
                    _meetings++;
                    run._creatures[message.Sender].Send(new ChameneoMessage(ChameneoKind.Change, _color, id));
                    run._mall.Send(MallMessage.Meet(_color, id));
                    break;
                case ChameneoKind.Change:
                    // Change(colour): take it, meet again.
                    _color = message.Color;
                    _meetings++;
                    run._mall.Send(MallMessage.Meet(_color, id));
                    break;
                default:
                    // Exit: fade and report.
                    _color = ChameneoColor.Faded;
                    run._mall.Send(new MallMessage(MallKind.MeetingCount, _color, id, _meetings));
                    break;
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for Chameneos: the Channels baseline.</summary>
public partial class Chameneos
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new ChameneosChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
