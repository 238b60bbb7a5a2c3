namespace Boc.Orleans.Grains;

/// <summary>
/// A cown's activation gave up after a storage write failed (its outcome unknown) and answers nothing until it is
/// reactivated from storage. A spawner treats it as a cown it cannot reach: it retries, or abandons the attempt.
/// </summary>
[GenerateSerializer]
internal sealed class CownUnavailableException : Exception
{
    public CownUnavailableException()
    {
    }

    public CownUnavailableException(string message)
        : base(message)
    {
    }

    public CownUnavailableException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
