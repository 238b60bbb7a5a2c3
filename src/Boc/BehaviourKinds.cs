namespace Boc;

/// <summary>
/// Base of behaviours whose body returns no value: fire-and-forget (no completion source; exceptions go to the
/// runtime's handler) or awaited (the completion source gets the outcome).
/// </summary>
internal abstract class CompletionBehaviour : Behaviour
{
    private readonly TaskCompletionSource? _completion;

    protected CompletionBehaviour(BocRuntime runtime, int capacity, TaskCompletionSource? completion)
        : base(runtime, capacity)
    {
        _completion = completion;
    }

    protected override void Deliver(Exception? error, Task? bodyTask)
    {
        if (_completion is null)
        {
            base.Deliver(error, bodyTask);
        }
        else if (error is null)
        {
            _completion.SetResult();
        }
        else if (error is OperationCanceledException canceled)
        {
            _completion.SetCanceled(canceled.CancellationToken);
        }
        else
        {
            _completion.SetException(error);
        }
    }
}

/// <summary>Base of behaviours whose body produces a value for an awaiting spawner.</summary>
internal abstract class ResultBehaviour<TResult> : Behaviour
{
    private readonly TaskCompletionSource<TResult> _completion;
    private TResult? _result;

    protected ResultBehaviour(BocRuntime runtime, int capacity, TaskCompletionSource<TResult> completion)
        : base(runtime, capacity)
    {
        _completion = completion;
    }

    protected void SetResult(TResult result) => _result = result;

    protected override void Deliver(Exception? error, Task? bodyTask)
    {
        if (error is null)
        {
            _completion.SetResult(bodyTask is Task<TResult> valued ? valued.Result : _result!);
        }
        else if (error is OperationCanceledException canceled)
        {
            _completion.SetCanceled(canceled.CancellationToken);
        }
        else
        {
            _completion.SetException(error);
        }
    }
}
