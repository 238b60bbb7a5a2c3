using BenchmarkDotNet.Attributes;
using Boc.Benchmarks.Baselines;

namespace Boc.Benchmarks.Savina.Micro;

// Decisions (besides the actor run's):
// - Every actor (its channel and reader loop) is created inside the timed run, as in the actor run: the root by the
//   main thread, the others by their parent's Request handler. An actor refers to its parent directly, so a Request
//   needs no self reference.
// - An actor stops its own loop once it has answered its parent (Savina's exit()): it receives no message after that.
//   The run does not await the 2·fib(N)−1 loops (they are made on the workers; collecting them would add shared state
//   the actor run does not have), so a failing handler shows as a run that never completes, not as a fault.

/// <summary>Channels baseline: one fresh <see cref="ChannelActor{TMessage}"/> per Fib actor; Request and Response.</summary>
[SavinaWorkload("Fib", SavinaVariant.Channels)]
public sealed class FibChannels(SavinaSize size) : SavinaRun(size)
{
    private readonly int _n = size switch { SavinaSize.Paper => 25, SavinaSize.Small => 25, _ => 15 };
    private readonly TaskCompletionSource _done = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private long _result = -1;

    protected override void Build()
    {
    }

    protected override async Task ExecuteAsync()
    {
        var root = new FibActor(this, null);
        root.Send(new FibMessage(IsResponse: false, _n));
        await _done.Task.ConfigureAwait(false);
        await root.Completion.ConfigureAwait(false);
    }

    protected override void Validate()
    {
        long expected = FibReference.Sequential(_n);
        Check(_result == expected, $"Fib({_n}) = {_result}, expected {expected}");
    }

    /// <summary>Request(n) (Value is n), or Response(value).</summary>
    private readonly record struct FibMessage(bool IsResponse, long Value);

    private sealed class FibActor(FibChannels run, FibActor? parent) : ChannelActor<FibMessage>
    {
        private long _result;
        private int _received;

        protected override void Receive(FibMessage message)
        {
            if (message.IsResponse)
            {
                // On Response(value): add; after both, answer the parent.
                _received++;
                _result += message.Value;
                if (_received == 2)
                {
                    Respond();
                }

                return;
            }

            // On Request(n): answer 1 for n <= 2, otherwise create two children and ask them.
            int n = (int)message.Value;
            if (n <= 2)
            {
                _result = 1;
                Respond();
                return;
            }

            new FibActor(run, this).Send(new FibMessage(IsResponse: false, n - 1));
            new FibActor(run, this).Send(new FibMessage(IsResponse: false, n - 2));
        }

        private void Respond()
        {
            Stop();
            if (parent is null)
            {
                run._result = _result;
                run._done.SetResult();
                return;
            }

            parent.Send(new FibMessage(IsResponse: true, _result));
        }
    }
}

/// <summary>BenchmarkDotNet entry for Fib: the Channels baseline.</summary>
public partial class Fib
{
    private SavinaRun _channelsRun = null!;

    [IterationSetup(Target = nameof(Channels))]
    public void SetupChannels() => _channelsRun = Prepare(new FibChannels(Size));

    [Benchmark]
    public Task Channels() => _channelsRun.RunAsync();
}
