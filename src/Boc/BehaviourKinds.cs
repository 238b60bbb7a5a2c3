using System.Threading.Tasks.Sources;

namespace Boc;

/// <summary>
/// Base of behaviours whose body returns no value. Fire-and-forget behaviours send a body's exception to the runtime's
/// handler and return to the pool when they finish. Awaited ones (<c>WhenAsync</c>) are their own
/// <see cref="IValueTaskSource"/>: the <see cref="ValueTask"/> points at the behaviour, and the behaviour returns to the
/// pool once the awaiter has taken the outcome, so no <see cref="Task"/> is allocated per behaviour.
/// </summary>
internal abstract class CompletionBehaviour : Behaviour, IValueTaskSource
{
    // RunContinuationsAsynchronously: the awaiter's continuation is queued, never run on the thread that is releasing
    // cowns (a continuation that blocks there could hold the only worker that can run what it waits for).
    private ManualResetValueTaskSourceCore<bool> _core = new() { RunContinuationsAsynchronously = true };
    private bool _awaited;

    /// <summary>Gets the awaitable for this spawn. Read it before the behaviour is enqueued: afterwards it may already be reused.</summary>
    internal ValueTask Completion => new(this, _core.Version);

    protected void SetAwaited(bool awaited) => _awaited = awaited;

    protected sealed override bool Deliver(Exception? error, Task? bodyTask)
    {
        if (!_awaited)
        {
            if (error is not null)
            {
                Runtime.ReportUnhandled(error);
            }

            return false;
        }

        if (error is null)
        {
            _core.SetResult(true);
        }
        else
        {
            _core.SetException(error);
        }

        return true;
    }

    ValueTaskSourceStatus IValueTaskSource.GetStatus(short token) => _core.GetStatus(token);

    void IValueTaskSource.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);

    void IValueTaskSource.GetResult(short token)
    {
        // Only the awaiter holding the current token, after completion, hands the behaviour back to the pool. A stale
        // token (the ValueTask awaited twice) makes the core throw: the version check of the pooled source.
        bool release = token == _core.Version && _core.GetStatus(token) != ValueTaskSourceStatus.Pending;
        try
        {
            _core.GetResult(token);
        }
        finally
        {
            if (release)
            {
                _core.Reset();
                Recycle();
            }
        }
    }
}

/// <summary>
/// Base of behaviours whose body produces a value for an awaiting spawner; the behaviour is the
/// <see cref="IValueTaskSource{TResult}"/> behind the returned <see cref="ValueTask{TResult}"/> (see
/// <see cref="CompletionBehaviour"/>).
/// </summary>
internal abstract class ResultBehaviour<TResult> : Behaviour, IValueTaskSource<TResult>
{
    private ManualResetValueTaskSourceCore<TResult> _core = new() { RunContinuationsAsynchronously = true };
    private TResult? _result;

    /// <summary>Gets the awaitable for this spawn. Read it before the behaviour is enqueued.</summary>
    internal ValueTask<TResult> Completion => new(this, _core.Version);

    protected void SetResult(TResult result) => _result = result;

    protected sealed override bool Deliver(Exception? error, Task? bodyTask)
    {
        if (error is not null)
        {
            _core.SetException(error);
        }
        else
        {
            TResult result = bodyTask is Task<TResult> valued ? valued.Result : _result!;
            _result = default;
            _core.SetResult(result);
        }

        return true;
    }

    ValueTaskSourceStatus IValueTaskSource<TResult>.GetStatus(short token) => _core.GetStatus(token);

    void IValueTaskSource<TResult>.OnCompleted(Action<object?> continuation, object? state, short token, ValueTaskSourceOnCompletedFlags flags) =>
        _core.OnCompleted(continuation, state, token, flags);

    TResult IValueTaskSource<TResult>.GetResult(short token)
    {
        // See CompletionBehaviour.GetResult.
        bool release = token == _core.Version && _core.GetStatus(token) != ValueTaskSourceStatus.Pending;
        try
        {
            return _core.GetResult(token);
        }
        finally
        {
            if (release)
            {
                _core.Reset();
                Recycle();
            }
        }
    }
}
