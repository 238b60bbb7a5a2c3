namespace Boc.Tests;

/// <summary>
/// Misuse gets Boc's own words: a result awaited twice, and work offered to a runtime that was shut down, say what the
/// caller did and name what they can (the behaviour's cowns, the runtime), instead of the BCL's generic messages.
/// </summary>
public sealed class MisuseMessageTests
{
    [Fact]
    public async Task AResultAwaitedTwice_SaysSo_InBocsWords()
    {
        await using var runtime = new BocRuntime();
        var cown = new Cown<int[]>(new int[1]);

        // Queued behind a body, so that it is not run inline (an inline run's awaitable is a plain value, which may be
        // awaited any number of times).
        using var gate = new ManualResetEventSlim();
        runtime.When(cown, _ => gate.Wait(Progress.Limit));
#pragma warning disable CA2012 // Awaited twice on purpose.
        ValueTask<int> result = runtime.WhenAsync(cown, c => ++c[0]);
        gate.Set();
        Assert.Equal(1, await result);
        // Whether the behaviour was recycled already (a stale token) or not (the outcome claimed), the message is Boc's.
        InvalidOperationException twice = await Assert.ThrowsAsync<InvalidOperationException>(async () => await result);
        await runtime.WaitForQuiescenceAsync();
        InvalidOperationException thrice = await Assert.ThrowsAsync<InvalidOperationException>(async () => await result);
#pragma warning restore CA2012
        foreach (InvalidOperationException error in new[] { twice, thrice })
        {
            Assert.Contains("was already taken", error.Message, StringComparison.Ordinal);
            Assert.Contains("awaited (or its result read) only once", error.Message, StringComparison.Ordinal);
            Assert.DoesNotContain("current state of the object", error.Message, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task AWithdrawnResultAwaitedTwice_NamesItsCowns()
    {
        // A withdrawn behaviour's outcome can be taken while it still waits in its queue: then it can still be named.
        await using var runtime = new BocRuntime();
        var cown = new Cown<int[]>(new int[1], "orders");
        using var gate = new ManualResetEventSlim();
        using var started = new ManualResetEventSlim();
        using var cts = new CancellationTokenSource();
        runtime.When(cown, _ =>
        {
            started.Set();
            gate.Wait(Progress.Limit);
        });
        started.Wait(Progress.Limit);
#pragma warning disable CA2012 // Awaited twice on purpose.
        ValueTask<int> canceled = runtime.WhenAsync(cown, c => c[0], cts.Token);
        cts.Cancel();
        await Assert.ThrowsAsync<BehaviourWithdrawnException>(async () => await canceled);
        InvalidOperationException twice = await Assert.ThrowsAsync<InvalidOperationException>(async () => await canceled);
#pragma warning restore CA2012
        gate.Set();
        Assert.Contains($"on orders#{cown.Id} (write)", twice.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(null)]
    [InlineData("billing")]
    public async Task AfterShutdown_ASpawnSaysTheRuntimeWasShutDown_AndNamesIt(string? name)
    {
        var runtime = new BocRuntime(new BocRuntimeOptions { Name = name });
        var cown = new Cown<int[]>(new int[1]);
        await runtime.ShutdownAsync(CancellationToken.None);

        var errors = new List<ObjectDisposedException>
        {
            Assert.Throws<ObjectDisposedException>(() => runtime.When(cown, c => c[0]++)),
            Assert.Throws<ObjectDisposedException>(() => runtime.BeginScope()),
            await Assert.ThrowsAsync<ObjectDisposedException>(() => runtime.WhenAsync(cown, c => c[0]).AsTask()),
        };
        foreach (ObjectDisposedException error in errors)
        {
            Assert.Contains("has been shut down", error.Message, StringComparison.Ordinal);
            Assert.DoesNotContain("Cannot access a disposed object", error.Message, StringComparison.Ordinal);
            if (name is not null)
            {
                Assert.Contains($"'{name}'", error.Message, StringComparison.Ordinal);
            }
        }
    }
}
