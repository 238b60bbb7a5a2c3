namespace Boc;

/// <summary>
/// Collects the behaviours of one atomic batch, inside the delegate passed to <see cref="BocRuntime.Batch(Action{BocBatch})"/>
/// (or <see cref="Behaviours.Batch(Action{BocBatch})"/>). Its <c>When</c> and <c>WhenAsync</c> forms take the same
/// arguments as the runtime's, but only record the behaviour: the batch enqueues all of them as one step when the
/// delegate returns, so that no other behaviour comes between two of them on any cown they share, and on each cown they
/// run in the order they were added (Verona's <c>when(a){…} + when(b){…}</c>).
/// </summary>
/// <remarks>
/// A builder belongs to one call of <c>Batch</c> and to the thread running its delegate: it is not thread-safe, and
/// once <c>Batch</c> has returned (or thrown) every method throws <see cref="InvalidOperationException"/>. A
/// <c>When</c> on the runtime itself (or a nested <c>Batch</c>) called inside the delegate is not part of this batch:
/// it spawns at once, so it is queued before the batch on the cowns they share. Cancellation tokens are not offered
/// inside a batch: a member is withdrawn only with the whole batch, which is all or nothing at spawn time.
/// </remarks>
public sealed partial class BocBatch
{
    private readonly BocRuntime _runtime;
    private Behaviour[] _members = new Behaviour[4];
    private int _count;
    private bool _closed;

    internal BocBatch(BocRuntime runtime) => _runtime = runtime;

    /// <summary>Gets the number of behaviours recorded so far.</summary>
    /// <exception cref="InvalidOperationException">The batch was already spawned or abandoned.</exception>
    public int Count
    {
        get
        {
            ThrowIfClosed();
            return _count;
        }
    }

    /// <summary>Records a behaviour, initialised on the batch's runtime but not enqueued.</summary>
    private void Add(Behaviour behaviour)
    {
        if (_count == _members.Length)
        {
            Array.Resize(ref _members, _count * 2);
        }

        _members[_count++] = behaviour;
    }

    private void ThrowIfClosed()
    {
        if (_closed)
        {
            throw new InvalidOperationException(
                "This BocBatch was already spawned or abandoned: a batch builder may be used only inside the delegate passed to Batch, while it runs.");
        }
    }

    /// <summary>Closes the builder (no more members) and returns its members; the caller spawns or abandons them.</summary>
    internal Behaviour[] Close(out int count)
    {
        _closed = true;
        count = _count;
        return _members;
    }

    /// <summary>Closes the builder and abandons every member: none is enqueued, awaitables fail as canceled.</summary>
    internal void Abandon(Exception reason)
    {
        Behaviour[] members = Close(out int count);
        BocRuntime.AbandonAll(members, count, reason);
    }
}
