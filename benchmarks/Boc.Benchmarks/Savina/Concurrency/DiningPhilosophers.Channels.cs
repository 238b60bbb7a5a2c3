using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Concurrency;

/// <summary>
/// Channels baseline of <see cref="DiningPhilosophersActor"/>: the same Arbitrator and N Philosophers, each a
/// <see cref="ChannelActor{TMessage}"/>, with Savina's Start/Hungry/Eat/Denied/Done/Exit messages.
/// </summary>
[SavinaWorkload("Dining Philosophers", SavinaVariant.Channels)]
public sealed class DiningPhilosophersChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly int _philosophers = DiningPhilosophersParameters.Philosophers;
    private readonly int _rounds = DiningPhilosophersParameters.Rounds(size);
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private Arbitrator _arbitrator = null!;
    private Philosopher[] _philosopherActors = null!;

    // Published at completion by the Arbitrator.
    private long _meals;
    private long _retries;
    private int _forksTakenAtEnd = -1;
    private long _badReleases = -1;

    public override string Metrics => $"retries={_retries}";

    private enum PhilosopherMessage
    {
        Start,
        Denied,
        Eat,
    }

    private enum ArbitratorKind
    {
        Hungry,
        Done,
        Exit,
    }

    protected override void Build()
    {
        _arbitrator = new Arbitrator(this);
        _philosopherActors = new Philosopher[_philosophers];
        for (int i = 0; i < _philosophers; i++)
        {
            _philosopherActors[i] = new Philosopher(this, i);
        }
    }

    protected override async Task ExecuteAsync()
    {
        foreach (Philosopher philosopher in _philosopherActors)
        {
            philosopher.Send(PhilosopherMessage.Start);
        }

        await _done.Task.ConfigureAwait(false);
        await _arbitrator.Completion.ConfigureAwait(false);
        await Task.WhenAll(_philosopherActors.Select(p => p.Completion)).ConfigureAwait(false);
    }

    protected override void Validate()
    {
        long expected = (long)_philosophers * _rounds;
        Check(_meals == expected, $"the Arbitrator saw {_meals} meals, expected {expected}");
        Check(_forksTakenAtEnd == 0, $"{_forksTakenAtEnd} forks still taken at the end");
        Check(_badReleases == 0, $"{_badReleases} Done messages released forks that were not taken");
    }

    private readonly record struct ArbitratorMessage(ArbitratorKind Kind, Philosopher? Philosopher, int Id);

    private sealed class Philosopher(DiningPhilosophersChannels run, int id) : ChannelActor<PhilosopherMessage>
    {
        private int _roundsSoFar;

        protected override void Receive(PhilosopherMessage message)
        {
            switch (message)
            {
                // On Start or Denied: ask the Arbitrator for both forks.
                case PhilosopherMessage.Start:
                case PhilosopherMessage.Denied:
                    run._arbitrator.Send(new ArbitratorMessage(ArbitratorKind.Hungry, this, id));
                    break;

                // On Eat: release the forks, then get hungry again (self Start) or exit.
                case PhilosopherMessage.Eat:
                    _roundsSoFar++;
                    run._arbitrator.Send(new ArbitratorMessage(ArbitratorKind.Done, null, id));
                    if (_roundsSoFar < run._rounds)
                    {
                        Send(PhilosopherMessage.Start);
                    }
                    else
                    {
                        run._arbitrator.Send(new ArbitratorMessage(ArbitratorKind.Exit, null, id));
                    }

                    break;
                default:
                    throw new InvalidOperationException($"philosopher {id} got an unexpected {message}");
            }
        }
    }

    private sealed class Arbitrator(DiningPhilosophersChannels run) : ChannelActor<ArbitratorMessage>
    {
        private readonly bool[] _forks = new bool[run._philosophers];
        private int _exited;
        private long _meals;
        private long _denied;
        private long _badReleases;

        protected override void Receive(ArbitratorMessage message)
        {
            switch (message.Kind)
            {
                case ArbitratorKind.Hungry:
                    OnHungry(message.Philosopher!, message.Id);
                    break;
                case ArbitratorKind.Done:
                    OnDone(message.Id);
                    break;
                case ArbitratorKind.Exit:
                    OnExit();
                    break;
                default:
                    throw new InvalidOperationException($"the Arbitrator got an unexpected {message.Kind}");
            }
        }

        // On Hungry: grant both forks or deny.
        private void OnHungry(Philosopher philosopher, int id)
        {
            int left = id;
            int right = (id + 1) % run._philosophers;
            if (_forks[left] || _forks[right])
            {
                _denied++;
                philosopher.Send(PhilosopherMessage.Denied);
            }
            else
            {
                _forks[left] = true;
                _forks[right] = true;
                philosopher.Send(PhilosopherMessage.Eat);
            }
        }

        private void OnDone(int id)
        {
            int left = id;
            int right = (id + 1) % run._philosophers;
            if (!_forks[left] || !_forks[right])
            {
                _badReleases++;
            }

            _forks[left] = false;
            _forks[right] = false;
            _meals++;
        }

        // On Exit: after N of them, publish, stop every actor and complete (every philosopher's Done precedes its Exit).
        private void OnExit()
        {
            _exited++;
            if (_exited == run._philosophers)
            {
                run._meals = _meals;
                run._retries = _denied;
                run._badReleases = _badReleases;
                run._forksTakenAtEnd = _forks.Count(f => f);
                foreach (Philosopher philosopher in run._philosopherActors)
                {
                    philosopher.Stop();
                }

                Stop();
                run._done.SetResult();
            }
        }
    }
}

/// <summary>BenchmarkDotNet entry for Dining Philosophers: the Channels baseline.</summary>
public partial class DiningPhilosophers
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new DiningPhilosophersChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
