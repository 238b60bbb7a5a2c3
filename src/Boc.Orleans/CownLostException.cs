namespace Boc.Orleans;

/// <summary>An attempt lost one of its cowns before its commit decision; it is abandoned and retried.</summary>
internal sealed class CownLostException : Exception
{
    public CownLostException()
    {
    }

    public CownLostException(string message)
        : base(message)
    {
    }

    public CownLostException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
