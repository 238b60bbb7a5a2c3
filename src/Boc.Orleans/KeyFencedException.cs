namespace Boc.Orleans;

/// <summary>An attempt found its idempotency key fenced (or its call too old to queue with it): the call fails, not retried.</summary>
internal sealed class KeyFencedException : Exception
{
    public KeyFencedException()
    {
    }

    public KeyFencedException(string message)
        : base(message)
    {
    }

    public KeyFencedException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
