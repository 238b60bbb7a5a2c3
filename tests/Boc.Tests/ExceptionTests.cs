using System.Collections.Concurrent;

namespace Boc.Tests;

public sealed class ExceptionTests
{
    private sealed class Counter
    {
        public int Value;
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(5)]
    public async Task AFireAndForgetFailure_NamesTheCownsItsBehaviourHeld(int arity)
    {
        var errors = new ConcurrentQueue<Exception>();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { UnhandledExceptionHandler = errors.Enqueue });
        var cowns = Enumerable.Range(0, arity).Select(_ => new Cown<object>(new object())).ToArray();

        // Every other cown read-only; a dynamic set, so that any arity takes the same path as the fixed overloads.
        IAcquirable<object>[] requests = cowns.Select((c, i) => i % 2 == 0 ? (IAcquirable<object>)c : Cown.Read(c)).ToArray();
        runtime.When(requests, _ => throw new InvalidOperationException("boom"));
        await runtime.WaitForQuiescenceAsync();

        Exception error = Assert.Single(errors);
        string[] expected = cowns.Select((c, i) => $"{c} ({(i % 2 == 0 ? "write" : "read")})").Order(StringComparer.Ordinal).ToArray();
        string[] named = ((string)error.Data[BocRuntime.FailedCownsDataKey]!).Split(", ").Order(StringComparer.Ordinal).ToArray();
        Assert.Equal(expected, named);
    }

    [Fact]
    public async Task ABodyThatThrows_KeepsItsWritesBeforeTheThrow()
    {
        // Isolation, not rollback (README, "Atomicity"): the debit stays, the credit never happened, and the next
        // behaviour sees exactly that state.
        await using var runtime = new BocRuntime();
        var from = new Cown<Counter>(new Counter { Value = 100 });
        var to = new Cown<Counter>(new Counter());
        InvalidOperationException thrown = await Assert.ThrowsAsync<InvalidOperationException>(() => runtime.WhenAsync(from, to, (f, t) =>
        {
            f.Value -= 60;
            throw new InvalidOperationException("after the debit");
        }).Guard());
        Assert.Equal("after the debit", thrown.Message);
        Assert.Equal((40, 0), await runtime.WhenAsync(from, to, (f, t) => (f.Value, t.Value)).Guard());
    }

    [Fact]
    public async Task AFailure_NamesTheCownsByTheirNames()
    {
        var errors = new ConcurrentQueue<Exception>();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { UnhandledExceptionHandler = errors.Enqueue });
        var alice = new Cown<Counter>(new Counter(), name: "alice");
        var bob = new Cown<Counter>(new Counter(), "bob");
        var anonymous = new Cown<Counter>(new Counter());
        runtime.When(alice, Cown.Read(bob), anonymous, (a, b, c) => throw new InvalidOperationException("boom"));
        await runtime.WaitForQuiescenceAsync();

        Exception error = Assert.Single(errors);
        string[] named = ((string)error.Data[BocRuntime.FailedCownsDataKey]!).Split(", ").Order(StringComparer.Ordinal).ToArray();
        Assert.Equal(new[] { $"alice#{alice.Id} (write)", $"bob#{bob.Id} (read)", $"Cown#{anonymous.Id} (write)" }.Order(StringComparer.Ordinal), named);
        Assert.Equal("alice", alice.Name);
        Assert.Null(anonymous.Name);
        Assert.Equal($"alice#{alice.Id}", alice.ToString());
        Assert.Throws<ArgumentException>(() => new Cown<Counter>(new Counter(), " "));
        Assert.Throws<ArgumentNullException>(() => new Cown<Counter>(null!, "x"));
    }

    [Fact]
    public async Task ThrowingBody_ReleasesItsCowns_AndSuccessorsRun()
    {
        var errors = new ConcurrentQueue<Exception>();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { UnhandledExceptionHandler = errors.Enqueue });
        var a = new Cown<Counter>(new Counter());
        var b = new Cown<Counter>(new Counter());
        for (int i = 0; i < 1_000; i++)
        {
            int n = i;
            runtime.When(a, b, (x, y) =>
            {
                x.Value++;
                if (n % 3 == 0)
                {
                    throw new InvalidOperationException($"failure {n}");
                }

                y.Value++;
            });
            runtime.When(Cown.Read(a), x => { });
        }

        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(1_000, await runtime.WhenAsync(a, x => x.Value).Guard());
        Assert.Equal(666, await runtime.WhenAsync(b, x => x.Value).Guard());
        Assert.Equal(334, errors.Count);
        Assert.Equal(
            Enumerable.Range(0, 1_000).Where(n => n % 3 == 0).Select(n => $"failure {n}").Order(),
            errors.Select(e => e.Message).Order());
    }

    [Fact]
    public async Task WithoutAHandler_QuiescenceReportsEachFireAndForgetExceptionOnce()
    {
        await using var runtime = new BocRuntime();
        var counter = new Cown<Counter>(new Counter());
        runtime.When(counter, _ => throw new InvalidOperationException("one"));
        runtime.When(counter, async _ => { await Task.Yield(); throw new FormatException("two"); });
        runtime.When(counter, c => c.Value++);

        var aggregate = await Assert.ThrowsAsync<AggregateException>(() => runtime.WaitForQuiescenceAsync().Guard());
        Assert.Equal(["one", "two"], aggregate.InnerExceptions.Select(e => e.Message).Order());

        // Reported once: the next wait is clean.
        await runtime.WaitForQuiescenceAsync().Guard();
        Assert.Equal(1, await runtime.WhenAsync(counter, c => c.Value).Guard());
    }

    [Fact]
    public async Task WithoutAHandler_DisposeReportsWhatNobodyObserved()
    {
        var runtime = new BocRuntime();
        runtime.When(() => throw new InvalidOperationException("lost?"));
        var aggregate = await Assert.ThrowsAsync<AggregateException>(async () => await runtime.DisposeAsync());
        Assert.Equal("lost?", Assert.Single(aggregate.InnerExceptions).Message);
    }

    [Fact]
    public async Task AThrowingHandler_KeepsBothExceptions()
    {
        await using var runtime = new BocRuntime(new BocRuntimeOptions { UnhandledExceptionHandler = _ => throw new NotSupportedException("handler") });
        runtime.When(() => throw new InvalidOperationException("body"));
        var aggregate = await Assert.ThrowsAsync<AggregateException>(() => runtime.WaitForQuiescenceAsync().Guard());
        var inner = Assert.IsType<AggregateException>(Assert.Single(aggregate.InnerExceptions));
        Assert.Equal(["body", "handler"], inner.InnerExceptions.Select(e => e.Message));
    }

    [Fact]
    public async Task AsyncBodyReturningNull_IsReportedAndReleasesTheCown()
    {
        var errors = new ConcurrentQueue<Exception>();
        await using var runtime = new BocRuntime(new BocRuntimeOptions { UnhandledExceptionHandler = errors.Enqueue });
        var counter = new Cown<Counter>(new Counter());
        runtime.When(counter, _ => (Task)null!);
        Assert.Equal(1, await runtime.WhenAsync(counter, c => ++c.Value).Guard());
        Assert.IsType<InvalidOperationException>(Assert.Single(errors));
    }
}
