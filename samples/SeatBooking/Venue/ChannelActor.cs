using System.Threading.Channels;

namespace SeatBooking.Venue;

/// <summary>
/// An actor in the Channel style: a private state, a mailbox, and one loop that handles one message at a time. A
/// message is a function of the state whose result is sent back (the "ask" pattern), so the state never leaves the loop.
/// </summary>
internal sealed class ChannelActor<TState>
    where TState : class
{
    private readonly Channel<Func<TState, bool>> _mailbox =
        Channel.CreateUnbounded<Func<TState, bool>>(new UnboundedChannelOptions { SingleReader = true });

    private readonly TState _state;

    public ChannelActor(TState state)
    {
        _state = state;
        _ = Task.Run(RunAsync);
    }

    /// <summary>Sends <paramref name="message"/> and completes with its reply.</summary>
    public Task<TReply> Ask<TReply>(Func<TState, TReply> message)
    {
        var reply = new TaskCompletionSource<TReply>(TaskCreationOptions.RunContinuationsAsynchronously);
        bool posted = _mailbox.Writer.TryWrite(state =>
        {
            try
            {
                reply.SetResult(message(state));
            }
#pragma warning disable CA1031 // The failure goes back to the asker; the actor goes on with its next message.
            catch (Exception error)
#pragma warning restore CA1031
            {
                reply.SetException(error);
            }

            return true;
        });
        return posted ? reply.Task : Task.FromException<TReply>(new InvalidOperationException("The actor has stopped."));
    }

    private async Task RunAsync()
    {
        await foreach (Func<TState, bool> message in _mailbox.Reader.ReadAllAsync().ConfigureAwait(false))
        {
            message(_state);
        }
    }
}
