namespace Boc.Orleans.FaultTests.Node;

/// <summary>An append-only event log, one line per event, flushed to the OS at once: a kill -9 loses none it wrote.</summary>
internal sealed class Journal : IDisposable
{
    private readonly StreamWriter _writer;
    private readonly object _gate = new();

    public Journal(string path) => _writer = new StreamWriter(new FileStream(path, FileMode.Append, FileAccess.Write, FileShare.ReadWrite)) { AutoFlush = true };

    public void Write(string line)
    {
        lock (_gate)
        {
            _writer.WriteLine(line);
        }
    }

    public void Dispose() => _writer.Dispose();
}
