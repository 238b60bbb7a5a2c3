#if DEBUG
using System.Diagnostics;

namespace Boc.Tests;

/// <summary>
/// Debug builds check every transition of a request's state word (Protocol/Slot.cs) and every operation on a cown's
/// queue (Protocol/CownQueue.cs) against the word it finds. These tests take illegal steps on purpose, with a debug
/// provider that throws instead of ending the process, to show the checks are live: the Debug pass of CI runs the
/// protocol's stress tests with them.
/// </summary>
[Collection(nameof(DebugProviderCollection))]
public sealed class SlotTransitionTests
{
    [Fact]
    public void LegalWords_PassEveryCheck()
    {
        using var _ = new ThrowingTraceListener();
        var reader = new Slot { IsRead = true };
        reader.GrantFromEmptyQueue();
        Assert.True(reader.ScheduleReader());
        Assert.Equal(Slot.Scheduled | Slot.Granted, reader.Withdraw());

        var writer = new Slot { IsRead = false };
        writer.ScheduleWriterBesideDeliverer();
        Assert.Equal(Slot.Scheduled, writer.Hold());
        Assert.True(writer.IsScheduled);
        Assert.False(writer.IsWithdrawn);
    }

    [Fact]
    public void ScheduledTwice_Fails()
    {
        using var _ = new ThrowingTraceListener();
        var writer = new Slot { IsRead = false };
        writer.ScheduleWriter();
        Assert.Contains("illegal slot transition", Assert.Throws<DebugCheckFailedException>(() => writer.ScheduleWriter()).Message);
    }

    [Fact]
    public void GrantedWriter_Fails()
    {
        using var _ = new ThrowingTraceListener();
        var writer = new Slot { IsRead = false };
        writer.ScheduleWriter();
        Assert.Throws<DebugCheckFailedException>(() => writer.Grant());
    }

    [Fact]
    public void WithdrawnBeforeTheSpawnEnded_Fails()
    {
        using var _ = new ThrowingTraceListener();
        var reader = new Slot { IsRead = true };
        Assert.Throws<DebugCheckFailedException>(() => reader.Withdraw());
    }

    [Fact]
    public void LinkBehindARequestNotScheduled_Fails()
    {
        using var _ = new ThrowingTraceListener();
        var slot = new Slot { IsRead = false };
        Assert.Throws<DebugCheckFailedException>(() => slot.Link(null!, 0));
    }

    [Fact]
    public void AReaderLeavingThatNeverJoined_Fails()
    {
        using var _ = new ThrowingTraceListener();
        var queue = default(CownQueue);
        queue.AddReader();
        Assert.Null(queue.RemoveReader());
        Assert.Throws<DebugCheckFailedException>(() => queue.RemoveReader());
    }

    /// <summary>
    /// Makes a failed debug check throw while it is installed: with the trace listeners replaced by this one, a failed
    /// <see cref="Debug.Assert(bool)"/> or <see cref="Debug.Fail(string)"/> reaches <see cref="Fail(string, string)"/>
    /// (the default listener ends the process).
    /// </summary>
    private sealed class ThrowingTraceListener : TraceListener
    {
        private readonly TraceListener[] _previous;

        public ThrowingTraceListener()
        {
            _previous = [.. Trace.Listeners.Cast<TraceListener>()];
            Trace.Listeners.Clear();
            Trace.Listeners.Add(this);
        }

        public override void Fail(string? message, string? detailMessage) => throw new DebugCheckFailedException(message);

        public override void Write(string? message)
        {
        }

        public override void WriteLine(string? message)
        {
        }

        protected override void Dispose(bool disposing)
        {
            if (disposing)
            {
                Trace.Listeners.Clear();
                Trace.Listeners.AddRange(_previous);
            }

            base.Dispose(disposing);
        }
    }

    private sealed class DebugCheckFailedException(string? message) : Exception(message);
}

/// <summary>Tests that replace the process-wide debug provider do not run beside each other.</summary>
[CollectionDefinition(nameof(DebugProviderCollection), DisableParallelization = true)]
public sealed class DebugProviderCollection;
#endif
