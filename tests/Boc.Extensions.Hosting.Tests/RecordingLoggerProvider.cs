using System.Collections.Concurrent;
using Microsoft.Extensions.Logging;

namespace Boc.Extensions.Hosting.Tests;

/// <summary>A real logger provider that keeps every record, so tests can read what the host logged.</summary>
internal sealed class RecordingLoggerProvider : ILoggerProvider
{
    public ConcurrentQueue<LogRecord> Records { get; } = new();

    public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

    public void Dispose()
    {
    }

    public IEnumerable<LogRecord> For(string eventName) => Records.Where(r => r.EventId.Name == eventName);

    internal sealed record LogRecord(string Category, LogLevel Level, EventId EventId, string Message, Exception? Exception,
        IReadOnlyList<KeyValuePair<string, object?>> State);

    private sealed class Logger(RecordingLoggerProvider provider, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            var values = state as IReadOnlyList<KeyValuePair<string, object?>> ?? [];
            provider.Records.Enqueue(new LogRecord(category, logLevel, eventId, formatter(state, exception), exception, values));
        }
    }
}
