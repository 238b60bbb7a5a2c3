namespace Boc;

/// <summary>
/// A runtime's fire-and-forget failures that no handler observed (no <see cref="BocRuntimeOptions.UnhandledExceptionHandler"/>):
/// kept (at most <see cref="BocRuntime.MaxKeptExceptions"/>, the rest counted) until the next
/// <see cref="BocRuntime.WaitForQuiescenceAsync"/> or disposal takes them, each reported once. Behind a lock: only failing
/// behaviours and those waits come here.
/// </summary>
internal sealed class UnobservedErrors
{
    private readonly Lock _lock = new();
    private KeptFailures _kept;

    /// <summary>Keeps a failure for the next report.</summary>
    public void Keep(Exception error)
    {
        lock (_lock)
        {
            _kept.Add(error);
        }
    }

    /// <summary>Takes every kept failure and throws them as one <see cref="AggregateException"/>; does nothing if there are none.</summary>
    public void ThrowIfAny()
    {
        AggregateException? errors;
        lock (_lock)
        {
            errors = _kept.ToException("Fire-and-forget behaviours threw exceptions that no handler observed");
            _kept = default;
        }

        if (errors is not null)
        {
            throw errors;
        }
    }
}
