using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Concurrency;

/// <summary>
/// Channels baseline of <see cref="CigaretteSmokersActor"/>: the same Arbiter and S Smokers, each a
/// <see cref="ChannelActor{TMessage}"/>, with Savina's StartSmoking/StartedSmoking/Exit messages.
/// </summary>
[SavinaWorkload("Cigarette Smokers", SavinaVariant.Channels)]
public sealed class CigaretteSmokersChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly int _rounds = size switch { SavinaSize.Paper => 1_000, SavinaSize.Small => 1_000, _ => 100 };
    private readonly int _smokers = size switch { SavinaSize.Paper => 200, SavinaSize.Small => 200, _ => 20 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Arbiter _arbiter = null!;
    private Smoker[] _smokerActors = null!;

    // Sequential reference (Build).
    private long _expectedPeriodSum;
    private int[] _expectedPicks = [];

    // Published at completion: by the Arbiter, and by each smoker on Exit.
    private int _roundsDone;
    private long[] _periodSum = [];
    private int[] _picks = [];

    private enum ArbiterMessage
    {
        Start,
        StartedSmoking,
    }

    protected override void Build()
    {
        _arbiter = new Arbiter(this, new PseudoRandom((long)_rounds * _smokers));
        _smokerActors = new Smoker[_smokers];
        for (int i = 0; i < _smokers; i++)
        {
            _smokerActors[i] = new Smoker(this, i);
        }

        _periodSum = new long[_smokers];
        _picks = new int[_smokers];
        (_expectedPeriodSum, _expectedPicks) = CigaretteSmokersReference.Replay(_rounds, _smokers);
    }

    protected override async Task ExecuteAsync()
    {
        _arbiter.Send(ArbiterMessage.Start);
        await _done.Task.ConfigureAwait(false);
        await _arbiter.Completion.ConfigureAwait(false);
        await Task.WhenAll(_smokerActors.Select(s => s.Completion)).ConfigureAwait(false);
    }

    protected override void Validate()
    {
        Check(_roundsDone == _rounds, $"the Arbiter counted {_roundsDone} rounds, expected {_rounds}");
        long periodSum = _periodSum.Sum();
        Check(periodSum == _expectedPeriodSum, $"smokers busy-waited {periodSum} steps, the replay has {_expectedPeriodSum}");
        for (int i = 0; i < _smokers; i++)
        {
            Check(_picks[i] == _expectedPicks[i], $"smoker {i} smoked {_picks[i]} times, the replay has {_expectedPicks[i]}");
        }
    }

    /// <summary>StartSmoking with its busy-wait period, or Exit.</summary>
    private readonly record struct SmokerMessage(bool IsExit, int Period);

    private sealed class Arbiter(CigaretteSmokersChannels run, PseudoRandom random) : ChannelActor<ArbiterMessage>
    {
        private int _rounds;

        protected override void Receive(ArbiterMessage message)
        {
            switch (message)
            {
                case ArbiterMessage.Start:
                    NotifyRandomSmoker();
                    break;

                // On StartedSmoking: the next round, or Exit to every smoker after R rounds.
                case ArbiterMessage.StartedSmoking:
                    _rounds++;
                    if (_rounds >= run._rounds)
                    {
                        run._roundsDone = _rounds;
                        foreach (Smoker smoker in run._smokerActors)
                        {
                            smoker.Send(new SmokerMessage(IsExit: true, 0));
                            smoker.Stop();
                        }

                        Stop();
                        run._done.SetResult();
                    }
                    else
                    {
                        NotifyRandomSmoker();
                    }

                    break;
                default:
                    throw new InvalidOperationException($"the Arbiter got an unexpected {message}");
            }
        }

        // Pick a smoker and a period ("resources are grabbed instantaneously").
        private void NotifyRandomSmoker()
        {
            int index = Math.Abs(random.NextInt()) % run._smokers;
            int period = random.NextInt(1000) + 10;
            run._smokerActors[index].Send(new SmokerMessage(IsExit: false, period));
        }
    }

    private sealed class Smoker(CigaretteSmokersChannels run, int id) : ChannelActor<SmokerMessage>
    {
        private readonly PseudoRandom _burn = new(id);
        private int _picks;
        private long _periodSum;

        protected override void Receive(SmokerMessage message)
        {
            if (message.IsExit)
            {
                run._periodSum[id] = _periodSum;
                run._picks[id] = _picks;
                return;
            }

            // On StartSmoking: tell the Arbiter, then smoke.
            run._arbiter.Send(ArbiterMessage.StartedSmoking);
            SavinaHelpers.BusyWait(message.Period, _burn);
            _picks++;
            _periodSum += message.Period;
        }
    }
}

/// <summary>BenchmarkDotNet entry for Cigarette Smokers: the Channels baseline.</summary>
public partial class CigaretteSmokers
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new CigaretteSmokersChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
