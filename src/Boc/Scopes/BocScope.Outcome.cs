namespace Boc;

// The outcome of a scope ("The outcome" in BocScope.Members.cs): decided once, at the finish, and handed to whoever waits.
// A waiter that comes after the finish (the common case: a request's block awaits its member inside, so everything has
// finished when the block ends) gets a completed task, or a completed ValueTask from DisposeAsync, and nothing is
// allocated for it; a task to complete later is created only for a waiter that comes first. The hand-over between the
// finisher and such a waiter is a Dekker pair: the finisher publishes (an interlocked store) and then looks for a
// waiter; a waiter installs itself (an interlocked exchange) and then looks for the publication. Either the finisher
// sees the waiter and completes it, or the waiter sees the publication and completes itself (TrySet*, so both may).
public sealed partial class BocScope
{
    // 1 once the outcome is published; _outcome is written before.
    private int _published;

    // The outcome: null if the scope completed normally.
    private Exception? _outcome;

    // A task for waiters that came before the finish; created by the first of them.
    private TaskCompletionSource? _waiter;

    /// <summary>Gets whether the outcome is published (the scope has finished).</summary>
    private bool Published => Atomic.Read(ref _published) != 0;

    /// <summary>Decides the outcome and hands it to whoever waits; called once, at the finish.</summary>
    private void Complete()
    {
        AggregateException? failures = Failures();
        Exception? outcome = (CancelReason)Atomic.Read(ref _cancelReason) switch
        {
            CancelReason.Deadline => new TimeoutException(
                $"The scope's deadline ({_timeout}) passed before its behaviours finished: the ones that had not started were withdrawn, and the ones running were asked to stop."
                + (failures is null ? "" : " Behaviours of the scope also threw: see the inner exception."),
                failures),
            CancelReason.Token => Canceled("The scope was canceled by its token before its behaviours finished.", failures, _userToken),
            CancelReason.Parent => Canceled("The scope was canceled by its parent scope before its behaviours finished.", failures, Token),
            CancelReason.Runtime => Canceled("The scope was canceled by BocRuntime.CancelScopes before its behaviours finished.", failures, Token),
            _ => failures,
        };

        if (Atomic.Read(ref _outcomeAbandoned) != 0 && Atomic.Read(ref _outcomeClaimed) == 0 && failures is not null)
        {
            // Nobody waits for this outcome (a self-wait ended the block): the failures are not lost, they go where a
            // failure of the body that began the scope would go.
            if (_parent is { } parent)
            {
                foreach (Exception failure in failures.InnerExceptions)
                {
                    parent.AddFailure(failure);
                }
            }
            else
            {
                _runtime.ReportUnhandled(failures);
            }
        }

        _outcome = outcome;
        Atomic.Exchange(ref _published, 1);
        if (Atomic.Read(ref _waiter) is { } waiter)
        {
            SetOutcome(waiter);
        }
    }

    /// <summary>The outcome as a task: for a waiter after the finish, allocated only when the outcome is a failure.</summary>
    private Task Completion()
    {
        if (Published)
        {
            return _outcome switch
            {
                null => Task.CompletedTask,
                OperationCanceledException { InnerException: null } canceled => Task.FromCanceled(canceled.CancellationToken),
                Exception failure => Task.FromException(failure),
            };
        }

        TaskCompletionSource? waiter = Atomic.Read(ref _waiter);
        if (waiter is null)
        {
            var created = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
            waiter = Atomic.CompareExchange(ref _waiter, created, null) ?? created;

            // The finisher may have looked for a waiter before this one was installed.
            if (Published)
            {
                SetOutcome(waiter);
            }
        }

        return waiter.Task;
    }

    /// <summary>Completes <paramref name="waiter"/> with the published outcome (a plain cancellation as a canceled task).</summary>
    private void SetOutcome(TaskCompletionSource waiter)
    {
        switch (_outcome)
        {
            case null:
                waiter.TrySetResult();
                break;
            case OperationCanceledException { InnerException: null } canceled:
                waiter.TrySetCanceled(canceled.CancellationToken);
                break;
            default:
                waiter.TrySetException(_outcome);
                break;
        }
    }

    private static OperationCanceledException Canceled(string message, AggregateException? failures, CancellationToken token) =>
        failures is null
            ? new OperationCanceledException(message, token)
            : new OperationCanceledException(message + " Behaviours of the scope also threw: see the inner exception.", failures, token);

    /// <summary>The fire-and-forget members' failures as one exception, or null if none failed.</summary>
    private AggregateException? Failures()
    {
        if (Atomic.Read(ref _gate) is null)
        {
            return null;
        }

        lock (Gate())
        {
            return _failures.ToException("Behaviours of the scope threw exceptions");
        }
    }
}
