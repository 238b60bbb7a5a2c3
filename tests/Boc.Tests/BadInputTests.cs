namespace Boc.Tests;

/// <summary>Bad input is rejected before anything is enqueued, so every cown involved stays usable.</summary>
public sealed class BadInputTests : IAsyncLifetime
{
    private readonly BocRuntime _runtime = new();

    public Task InitializeAsync() => Task.CompletedTask;

    public async Task DisposeAsync() => await _runtime.DisposeAsync();

    private sealed class Box
    {
        public int Value;
    }

    private async Task AssertUsable(params Cown<Box>[] cowns)
    {
        // If a rejected call had enqueued a request on any of these, this behaviour would wait forever.
        int count = await _runtime.WhenAsync(cowns, states => states.Count).Guard();
        Assert.Equal(cowns.Length, count);
        await _runtime.WaitForQuiescenceAsync().Guard();
    }

    [Fact]
    public async Task NullCown_InAnyPosition_ThrowsBeforeEnqueuingTheOthers()
    {
        var a = new Cown<Box>(new Box());
        var b = new Cown<Box>(new Box());
        var c = new Cown<Box>(new Box());
        Assert.Equal("c3", Assert.Throws<ArgumentNullException>(() => _runtime.When(a, b, (IAcquirable<Box>)null!, (_, _, _) => { })).ParamName);
        Assert.Equal("c1", Assert.Throws<ArgumentNullException>(() => _runtime.When((IAcquirable<Box>)null!, b, c, (_, _, _) => { })).ParamName);
        Assert.Equal("c2", Assert.Throws<ArgumentNullException>(() => { _runtime.WhenAsync(a, (IAcquirable<Box>)null!, (_, _) => 1).AsTask().Wait(); }).ParamName);
        await AssertUsable(a, b, c);
    }

    [Fact]
    public async Task NullBody_ThrowsBeforeEnqueuing()
    {
        var a = new Cown<Box>(new Box());
        var b = new Cown<Box>(new Box());
        Assert.Equal("body", Assert.Throws<ArgumentNullException>(() => _runtime.When(a, b, (Action<Box, Box>)null!)).ParamName);
        Assert.Equal("body", Assert.Throws<ArgumentNullException>(() => _runtime.When((Action)null!)).ParamName);
        Assert.Equal("body", Assert.Throws<ArgumentNullException>(() => { _runtime.WhenAsync(a, (Func<Box, Task<int>>)null!).AsTask().Wait(); }).ParamName);
        await AssertUsable(a, b);
    }

    [Fact]
    public async Task DynamicSetWithANullElement_ThrowsBeforeEnqueuingTheElementsBeforeIt()
    {
        var a = new Cown<Box>(new Box());
        var b = new Cown<Box>(new Box());
        var error = Assert.Throws<ArgumentException>(() => _runtime.When(new IAcquirable<Box>[] { a, b, null! }, _ => { }));
        Assert.Equal("cowns", error.ParamName);
        Assert.Throws<ArgumentNullException>(() => _runtime.When((IReadOnlyList<IAcquirable<Box>>)null!, _ => { }));
        Assert.Throws<ArgumentNullException>(() => _runtime.When((IAcquirable<Box>)null!, new[] { b }, (_, _) => { }));
        await AssertUsable(a, b);
    }

    [Fact]
    public async Task TooManyCowns_ThrowsBeforeEnqueuing()
    {
        var cowns = Enumerable.Range(0, BocRuntime.MaxCownsPerBehaviour + 1).Select(_ => new Cown<Box>(new Box())).ToArray();
        Assert.Throws<ArgumentException>(() => _runtime.When(cowns, _ => { }));
        Assert.Throws<ArgumentException>(() => _runtime.When(cowns[0], cowns[1..], (_, _) => { }));
        await AssertUsable(cowns[..BocRuntime.MaxCownsPerBehaviour]);
    }

    [Fact]
    public void NullState_IsRejected()
    {
        Assert.Equal("state", Assert.Throws<ArgumentNullException>(() => new Cown<Box>(null!)).ParamName);
    }

    [Fact]
    public async Task DisposedRuntime_ThrowsBeforeEnqueuing_AndTheCownsStayUsableElsewhere()
    {
        var a = new Cown<Box>(new Box());
        var disposed = new BocRuntime();
        await disposed.DisposeAsync();
        Assert.Throws<ObjectDisposedException>(() => disposed.When(a, x => x.Value++));
        Assert.Throws<ObjectDisposedException>(() => disposed.When(() => { }));
        await AssertUsable(a);
        Assert.Equal(0, await _runtime.WhenAsync(a, x => x.Value).Guard());
    }
}
