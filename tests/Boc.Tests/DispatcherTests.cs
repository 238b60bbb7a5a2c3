namespace Boc.Tests;

/// <summary>
/// Base of the test classes that run once per dispatcher: each concrete subclass picks one, so every test in the base
/// class runs against both the .NET thread pool and BocScheduler.
/// </summary>
public abstract class DispatcherTests : IAsyncLifetime
{
    protected DispatcherTests(BocDispatcher dispatcher)
    {
        Dispatcher = dispatcher;
        Runtime = new BocRuntime(new BocRuntimeOptions { Dispatcher = dispatcher });
    }

    protected BocDispatcher Dispatcher { get; }

    protected BocRuntime Runtime { get; }

    public Task InitializeAsync() => Task.CompletedTask;

    public async Task DisposeAsync() => await Runtime.DisposeAsync();
}
