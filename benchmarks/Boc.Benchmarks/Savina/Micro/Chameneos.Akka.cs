using Akka.Actor;
using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

// Akka.NET baseline of Chameneos: the actors and messages of ChameneosActor.
//
// Decisions:
// - Meet carries only the colour; its sender is Akka's Sender. The Mall parks the Sender of the first Meet and pairs it
//   by forwarding the second Meet to it (Forward keeps the original sender), so the parked chameneo replies Change to
//   its Sender, as Savina's Meet(colour, sender) does.
// - The first Meet of each chameneo is sent to the Mall by the main thread on the chameneo's behalf (Tell with the
//   chameneo as sender), as the Boc run does.
// - Each chameneo stops itself after reporting its count; the Mall stops itself after the last report (completion).

/// <summary>Akka.NET baseline: chameneos meet through a Mall until the meetings run out, then fade and report.</summary>
[SavinaWorkload("Chameneos", SavinaVariant.Akka)]
public sealed class ChameneosAkka(SavinaSize size) : SavinaRun(size)
{
    private readonly int _chameneos = size switch { SavinaSize.Paper => 100, SavinaSize.Small => 100, _ => 10 };
    private readonly int _meetings = size switch { SavinaSize.Paper => 200_000, SavinaSize.Small => 200_000, _ => 2_000 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private IActorRef[] _creatures = null!;
    private IActorRef _mall = ActorRefs.Nobody;
    private long _sumMeetings = -1;
    private int _faded = -1;

    protected override void Build()
    {
        ActorSystem system = AkkaHost.System;
        int chameneos = _chameneos;
        int meetings = _meetings;
        Action<long, int> onDone = OnDone;
        _mall = system.ActorOf(Props.Create(() => new MallActor(chameneos, meetings, onDone)));
        IActorRef mall = _mall;
        _creatures = new IActorRef[_chameneos];
        for (int i = 0; i < _chameneos; i++)
        {
            ChameneoColor color = ChameneoColors.ForIndex(i);
            _creatures[i] = system.ActorOf(Props.Create(() => new ChameneoActor(color, mall)));
        }
    }

    protected override Task ExecuteAsync()
    {
        for (int i = 0; i < _chameneos; i++)
        {
            _mall.Tell(new Meet(ChameneoColors.ForIndex(i)), _creatures[i]);
        }

        return _done.Task;
    }

    protected override void Validate()
    {
        Check(_sumMeetings == 2L * _meetings, $"Chameneos met {_sumMeetings} times in all, expected {2L * _meetings}");
        Check(_faded == _chameneos, $"{_faded} chameneos faded, expected {_chameneos}");
    }

    private void OnDone(long sumMeetings, int faded)
    {
        _sumMeetings = sumMeetings;
        _faded = faded;
        _done.SetResult();
    }

    private sealed record Meet(ChameneoColor Color);

    private sealed record Change(ChameneoColor Color);

    private sealed record MeetingCount(int Count);

    private sealed class Exit
    {
        public static readonly Exit Instance = new();
    }

    private sealed class MallActor : ReceiveActor
    {
        private int _meetingsLeft;
        private IActorRef? _waiting;
        private long _sumMeetings;
        private int _faded;

        public MallActor(int chameneos, int meetings, Action<long, int> onDone)
        {
            _meetingsLeft = meetings;

            // On Meet: park the sender, or pair it with the parked one by forwarding the Meet; Exit once exhausted.
            Receive<Meet>(m =>
            {
                if (_meetingsLeft > 0)
                {
                    if (_waiting is null)
                    {
                        _waiting = Sender;
                    }
                    else
                    {
                        _meetingsLeft--;
                        _waiting.Forward(m);
                        _waiting = null;
                    }
                }
                else
                {
                    Sender.Tell(Exit.Instance);
                }
            });

            // On MeetingCount: the last one completes the run.
            Receive<MeetingCount>(m =>
            {
                _faded++;
                _sumMeetings += m.Count;
                if (_faded == chameneos)
                {
                    onDone(_sumMeetings, _faded);
                    Context.Stop(Self);
                }
            });
        }
    }

    private sealed class ChameneoActor : ReceiveActor
    {
        private ChameneoColor _color;
        private int _meetings;

        public ChameneoActor(ChameneoColor color, IActorRef mall)
        {
            _color = color;

            // On Meet(colour) from another chameneo: change colour, tell the other, meet again.
            Receive<Meet>(m =>
            {
                _color = ChameneoColors.Complement(_color, m.Color);
                _meetings++;
                Sender.Tell(new Change(_color));
                mall.Tell(new Meet(_color));
            });

            // On Change(colour): take it, meet again.
            Receive<Change>(m =>
            {
                _color = m.Color;
                _meetings++;
                mall.Tell(new Meet(_color));
            });

            // On Exit: fade, report and stop.
            Receive<Exit>(_ =>
            {
                _color = ChameneoColor.Faded;
                mall.Tell(new MeetingCount(_meetings));
                Context.Stop(Self);
            });
        }
    }
}

/// <summary>BenchmarkDotNet entry for the Akka.NET baseline of Chameneos.</summary>
public partial class Chameneos
{
    private SavinaRun _akkaRun = null!;

    [IterationSetup(Target = nameof(Akka))]
    public void SetupAkka() => _akkaRun = Prepare(new ChameneosAkka(Size));

    [Benchmark]
    public Task Akka() => _akkaRun.RunAsync();
}
