using System.Collections.Concurrent;

namespace Boc.Tests;

/// <summary>
/// Delivering a result runs code the runtime does not control: the awaiter's captured context schedules its
/// continuation. If that throws, the failure must be reported and the behaviour still completed and recycled, instead
/// of the exception escaping the worker (which ends the process).
/// </summary>
public sealed class DeliveryFailureTests
{
    private sealed class Counter
    {
        public int Value;
    }

    /// <summary>A context that refuses every continuation, as one that has been shut down might.</summary>
    private sealed class RefusingContext : SynchronizationContext
    {
        public override void Post(SendOrPostCallback d, object? state) => throw new NotSupportedException("this context accepts no work");

        public override SynchronizationContext CreateCopy() => this;
    }

    [Theory]
    [InlineData(BocDispatcher.ThreadPool)]
    [InlineData(BocDispatcher.BocScheduler)]
    public async Task AnAwaiterWhoseContextRefusesTheContinuation_IsReported_AndTheRuntimeCarriesOn(BocDispatcher dispatcher)
    {
        var errors = new ConcurrentQueue<Exception>();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher, UnhandledExceptionHandler = errors.Enqueue });
        var counter = new Cown<Counter>(new Counter());
        using var gate = new ManualResetEventSlim();

        // Hold the cown so that the result is still pending when the awaiter registers (and captures its context).
        runtime.When(counter, _ => gate.Wait());
#pragma warning disable CA2012 // Only the awaiter's half of an await: register a continuation, never take the result.
        ValueTask<int> result = runtime.WhenAsync(counter, c => ++c.Value);
#pragma warning restore CA2012
        SynchronizationContext? previous = SynchronizationContext.Current;
        SynchronizationContext.SetSynchronizationContext(new RefusingContext());
        try
        {
            result.GetAwaiter().OnCompleted(() => { });
        }
        finally
        {
            SynchronizationContext.SetSynchronizationContext(previous);
        }

        gate.Set();
        await runtime.WaitForQuiescenceAsync().Guard();

        Exception error = Assert.Single(errors);
        Assert.IsType<NotSupportedException>(error.InnerException);

        // The behaviour completed (its body ran once) and the cown, the runtime and the pool are all still usable.
        for (int i = 2; i < 1_002; i++)
        {
            Assert.Equal(i, await runtime.WhenAsync(counter, c => ++c.Value).Guard());
        }
    }
}
