using System.Threading.Channels;

namespace Boc.Benchmarks.Baselines;

/// <summary>
/// What a .NET developer writes without an actor library: one unbounded <see cref="Channel{T}"/> and one reader loop per
/// actor. Tuned the way a careful developer would: single-reader channel, no synchronous continuations (a sender never
/// runs the receiver's handler on its own stack), messages handled in batches while the channel has them, and no
/// allocation per message beyond the message itself (use a struct message type to avoid even that).
/// </summary>
/// <typeparam name="TMessage">The message type; a struct or record struct keeps sends allocation-free.</typeparam>
/// <remarks>
/// The actor's state lives in the derived class and is touched only by <see cref="Receive"/>, which the reader loop
/// calls one message at a time. <see cref="Stop"/> completes the channel; the loop ends after draining it.
/// </remarks>
public abstract class ChannelActor<TMessage>
{
    private readonly Channel<TMessage> _mailbox = Channel.CreateUnbounded<TMessage>(new UnboundedChannelOptions
    {
        SingleReader = true,
        SingleWriter = false,
        AllowSynchronousContinuations = false,
    });

    /// <summary>Starts the reader loop on the thread pool.</summary>
    protected ChannelActor() => Completion = Task.Run(RunAsync);

    /// <summary>Completes when the actor has stopped and drained its mailbox; faults if a handler threw.</summary>
    public Task Completion { get; }

    /// <summary>Sends a message; never blocks (the mailbox is unbounded).</summary>
    public void Send(TMessage message)
    {
        if (!_mailbox.Writer.TryWrite(message))
        {
            throw new InvalidOperationException($"{GetType().Name} has stopped and cannot receive messages.");
        }
    }

    /// <summary>Stops accepting messages; the loop ends once the mailbox is empty.</summary>
    public void Stop() => _mailbox.Writer.TryComplete();

    /// <summary>Handles one message. Runs on the actor's reader loop, one message at a time.</summary>
    protected abstract void Receive(TMessage message);

    private async Task RunAsync()
    {
        ChannelReader<TMessage> reader = _mailbox.Reader;
        while (await reader.WaitToReadAsync().ConfigureAwait(false))
        {
            while (reader.TryRead(out TMessage? message))
            {
                Receive(message);
            }
        }
    }
}
