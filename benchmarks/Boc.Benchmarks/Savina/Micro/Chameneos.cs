using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Savina.Micro;

// Savina 4.6 Chameneos (SOURCES.md §4.6): chameneos meet through a Mall that pairs them until numMeetings meetings
// have happened; then each fades and reports its meeting count.
//
// Decisions:
// - The chameneo and Mall cowns are made in Build; chameneos and the Mall refer to each other by index into the run's
//   (immutable) array of chameneo cowns.
// - The first Meet of each chameneo is spawned on the Mall by the main thread with the chameneo's initial colour, as
//   [V] does (its actor run is 800,300 behaviours, which this reproduces), rather than from a start behaviour on each
//   chameneo as Savina's onPostStart does.
// - numMailboxes=1 and usePriorities=true are unused by Savina's Akka version, and so here.
// - Small equals Paper: a Paper run takes well under a second on the 2-core machine (about 0.01-0.3 s).

/// <summary>The chameneo colours and Savina's complement rule.</summary>
internal enum ChameneoColor
{
    Red,
    Yellow,
    Blue,
    Faded,
}

internal static class ChameneoColors
{
    private static readonly ChameneoColor[] Initial = [ChameneoColor.Red, ChameneoColor.Yellow, ChameneoColor.Blue];

    public static ChameneoColor ForIndex(int i) => Initial[i % 3];

    /// <summary>The same colour stays; FADED wins; otherwise the third colour.</summary>
    public static ChameneoColor Complement(ChameneoColor a, ChameneoColor b)
    {
        if (a == b)
        {
            return a;
        }

        if (a == ChameneoColor.Faded || b == ChameneoColor.Faded)
        {
            return ChameneoColor.Faded;
        }

        // Red, Yellow, Blue are 0, 1, 2: the third is the one that is neither.
        return (ChameneoColor)(3 - (int)a - (int)b);
    }
}

/// <summary>Actor style: Mall and chameneo cowns; Meet, Change, Exit and MeetingCount are one-cown behaviours.</summary>
[SavinaWorkload("Chameneos", SavinaVariant.Actor)]
public sealed class ChameneosActor(SavinaSize size) : SavinaRun(size)
{
    private readonly int _chameneos = size switch { SavinaSize.Paper => 100, SavinaSize.Small => 100, _ => 10 };
    private readonly int _meetings = size switch { SavinaSize.Paper => 200_000, SavinaSize.Small => 200_000, _ => 2_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<Chameneo>[] _creatures = null!;
    private Cown<Mall> _mall = null!;
    private long _sumMeetings = -1;
    private int _faded = -1;

    protected override void Build()
    {
        _creatures = new Cown<Chameneo>[_chameneos];
        for (int i = 0; i < _chameneos; i++)
        {
            _creatures[i] = new Cown<Chameneo>(new Chameneo { Id = i, Color = ChameneoColors.ForIndex(i) });
        }

        _mall = new Cown<Mall>(new Mall { MeetingsLeft = _meetings });
    }

    protected override Task ExecuteAsync()
    {
        for (int i = 0; i < _chameneos; i++)
        {
            SendMeetToMall(ChameneoColors.ForIndex(i), i);
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_sumMeetings == 2L * _meetings, $"Chameneos met {_sumMeetings} times in all, expected {2L * _meetings}");
        Check(_faded == _chameneos, $"{_faded} chameneos faded, expected {_chameneos}");
    }

    private void SendMeetToMall(ChameneoColor color, int sender) =>
        Runtime.When(_mall, static (mall, m) => m.Run.MallOnMeet(mall, m.Color, m.Sender), (Run: this, Color: color, Sender: sender));

    // Mall, on Meet: park the sender, or pair it with the parked one by forwarding the Meet; Exit once exhausted.
    private void MallOnMeet(Mall mall, ChameneoColor color, int sender)
    {
        if (mall.MeetingsLeft > 0)
        {
            if (mall.Waiting < 0)
            {
                mall.Waiting = sender;
            }
            else
            {
                mall.MeetingsLeft--;
                Runtime.When(
                    _creatures[mall.Waiting],
                    static (chameneo, m) => m.Run.ChameneoOnMeet(chameneo, m.Color, m.Sender),
                    (Run: this, Color: color, Sender: sender));
                mall.Waiting = -1;
            }
        }
        else
        {
            Runtime.When(_creatures[sender], static (chameneo, run) => run.ChameneoOnExit(chameneo), this);
        }
    }

    // Mall, on MeetingCount: the last one completes the run.
    private void MallOnMeetingCount(Mall mall, int count)
    {
        mall.Faded++;
        mall.SumMeetings += count;
        if (mall.Faded == _chameneos)
        {
            _sumMeetings = mall.SumMeetings;
            _faded = mall.Faded;
            _done.SetResult();
        }
    }

    // Chameneo, on Meet(colour, other): change colour, tell the other, meet again.
    private void ChameneoOnMeet(Chameneo chameneo, ChameneoColor otherColor, int other)
    {
        chameneo.Color = ChameneoColors.Complement(chameneo.Color, otherColor);
        chameneo.Meetings++;
        Runtime.When(
            _creatures[other],
            static (c, m) => m.Run.ChameneoOnChange(c, m.Color),
            (Run: this, chameneo.Color));
        SendMeetToMall(chameneo.Color, chameneo.Id);
    }

    // Chameneo, on Change(colour): take it, meet again.
    private void ChameneoOnChange(Chameneo chameneo, ChameneoColor color)
    {
        chameneo.Color = color;
        chameneo.Meetings++;
        SendMeetToMall(chameneo.Color, chameneo.Id);
    }

    // Chameneo, on Exit: fade and report.
    private void ChameneoOnExit(Chameneo chameneo)
    {
        chameneo.Color = ChameneoColor.Faded;
        Runtime.When(_mall, static (mall, m) => m.Run.MallOnMeetingCount(mall, m.Meetings), (Run: this, chameneo.Meetings));
    }

    private sealed class Chameneo
    {
        public int Id { get; init; }

        public ChameneoColor Color { get; set; }

        public int Meetings { get; set; }
    }

    private sealed class Mall
    {
        public int MeetingsLeft { get; set; }

        public int Waiting { get; set; } = -1;

        public long SumMeetings { get; set; }

        public int Faded { get; set; }
    }
}

/// <summary>
/// Full BoC: the Mall pairs two waiting chameneos with one behaviour over both (no Meet forwarding, no Change); on
/// exhaustion a behaviour over (Mall, chameneo) fades it and counts its meetings.
/// </summary>
[SavinaWorkload("Chameneos", SavinaVariant.Full)]
public sealed class ChameneosFull(SavinaSize size) : SavinaRun(size)
{
    private readonly int _chameneos = size switch { SavinaSize.Paper => 100, SavinaSize.Small => 100, _ => 10 };
    private readonly int _meetings = size switch { SavinaSize.Paper => 200_000, SavinaSize.Small => 200_000, _ => 2_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Cown<Chameneo>[] _creatures = null!;
    private Cown<Mall> _mall = null!;
    private long _sumMeetings = -1;
    private int _faded = -1;

    protected override void Build()
    {
        _creatures = new Cown<Chameneo>[_chameneos];
        for (int i = 0; i < _chameneos; i++)
        {
            _creatures[i] = new Cown<Chameneo>(new Chameneo { Id = i, Color = ChameneoColors.ForIndex(i) });
        }

        _mall = new Cown<Mall>(new Mall { MeetingsLeft = _meetings });
    }

    protected override Task ExecuteAsync()
    {
        for (int i = 0; i < _chameneos; i++)
        {
            SendMeetToMall(i);
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_sumMeetings == 2L * _meetings, $"Chameneos met {_sumMeetings} times in all, expected {2L * _meetings}");
        Check(_faded == _chameneos, $"{_faded} chameneos faded, expected {_chameneos}");
    }

    private void SendMeetToMall(int sender) =>
        Runtime.When(_mall, static (mall, m) => m.Run.MallOnMeet(mall, m.Sender), (Run: this, Sender: sender));

    private void MallOnMeet(Mall mall, int sender)
    {
        if (mall.MeetingsLeft > 0)
        {
            if (mall.Waiting < 0)
            {
                mall.Waiting = sender;
            }
            else
            {
                mall.MeetingsLeft--;
                Runtime.When(_creatures[mall.Waiting], _creatures[sender], static (a, b, run) => run.Meet(a, b), this);
                mall.Waiting = -1;
            }
        }
        else
        {
            Runtime.When(_mall, _creatures[sender], static (m, chameneo, run) => run.FadeAndCount(m, chameneo), this);
        }
    }

    // Both chameneos at once: both take the complement and meet again.
    private void Meet(Chameneo a, Chameneo b)
    {
        ChameneoColor color = ChameneoColors.Complement(a.Color, b.Color);
        a.Color = color;
        b.Color = color;
        a.Meetings++;
        b.Meetings++;
        SendMeetToMall(a.Id);
        SendMeetToMall(b.Id);
    }

    private void FadeAndCount(Mall mall, Chameneo chameneo)
    {
        chameneo.Color = ChameneoColor.Faded;
        mall.Faded++;
        mall.SumMeetings += chameneo.Meetings;
        if (mall.Faded == _chameneos)
        {
            _sumMeetings = mall.SumMeetings;
            _faded = mall.Faded;
            _done.SetResult();
        }
    }

    private sealed class Chameneo
    {
        public int Id { get; init; }

        public ChameneoColor Color { get; set; }

        public int Meetings { get; set; }
    }

    private sealed class Mall
    {
        public int MeetingsLeft { get; set; }

        public int Waiting { get; set; } = -1;

        public long SumMeetings { get; set; }

        public int Faded { get; set; }
    }
}

/// <summary>BenchmarkDotNet entry for Chameneos.</summary>
public partial class Chameneos : SavinaBenchmarkBase
{
    private SavinaRun _run = null!;

    [IterationSetup(Target = nameof(Actor))]
    public void SetupActor() => _run = Prepare(new ChameneosActor(Size));

    [IterationSetup(Target = nameof(Full))]
    public void SetupFull() => _run = Prepare(new ChameneosFull(Size));

    [Benchmark(Baseline = true)]
    public Task Actor() => _run.RunAsync();

    [Benchmark]
    public Task Full() => _run.RunAsync();
}
