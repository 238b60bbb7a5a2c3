using System.Reflection;
using System.Runtime.Loader;

namespace Boc.Tests;

/// <summary>
/// <see cref="BocRuntime.Default"/> is process-wide state, so each test loads a fresh copy of Boc.dll into a collectible
/// <see cref="AssemblyLoadContext"/>: a new copy has its own, not yet created, default runtime. Only types of the shared
/// framework (<see cref="Action"/>, <see cref="Exception"/>, <see cref="Task"/>) cross between the two copies.
/// </summary>
public sealed class DefaultRuntimeTests
{
    [Fact]
    public async Task Configured_handler_receives_the_exceptions_of_fire_and_forget_behaviours_on_Default()
    {
        using var boc = new FreshBoc();
        var seen = new TaskCompletionSource<Exception>(TaskCreationOptions.RunContinuationsAsynchronously);
        boc.ConfigureDefault(handler: e => seen.TrySetResult(e));

        boc.When(() => throw new InvalidOperationException("from a behaviour on Default"));

        Exception error = await seen.Task.Guard();
        Assert.Equal("from a behaviour on Default", error.Message);
        // The handler observed it, so nothing is kept for the next wait.
        await boc.WaitForQuiescenceAsync().Guard();
    }

    [Fact]
    public async Task Without_configuration_Default_keeps_the_exceptions_for_the_next_wait()
    {
        using var boc = new FreshBoc();
        boc.When(() => throw new InvalidOperationException("kept"));

        var error = await Assert.ThrowsAsync<AggregateException>(() => boc.WaitForQuiescenceAsync().Guard());
        Assert.Equal("kept", Assert.Single(error.InnerExceptions).Message);
    }

    [Fact]
    public void ConfigureDefault_after_first_use_throws_and_leaves_Default_as_it_was()
    {
        using var boc = new FreshBoc();
        object first = boc.Default;

        var error = Assert.Throws<InvalidOperationException>(() => boc.ConfigureDefault(handler: _ => { }));
        Assert.Contains("already used", error.Message, StringComparison.Ordinal);
        Assert.Same(first, boc.Default);
    }

    [Fact]
    public void ConfigureDefault_twice_throws_and_keeps_the_first_configuration()
    {
        using var boc = new FreshBoc();
        boc.ConfigureDefault(handler: _ => { });
        object configured = boc.Default;

        var error = Assert.Throws<InvalidOperationException>(() => boc.ConfigureDefault(handler: _ => { }));
        Assert.Contains("already configured", error.Message, StringComparison.Ordinal);
        Assert.Same(configured, boc.Default);
    }

    [Fact]
    public async Task Bad_options_throw_before_Default_is_created_so_a_correct_call_still_works()
    {
        using var boc = new FreshBoc();
        Assert.Throws<ArgumentNullException>(() => boc.ConfigureDefaultNull());
        Assert.Throws<ArgumentOutOfRangeException>(() => boc.ConfigureDefault(handler: null, workerCount: 0));

        var seen = new TaskCompletionSource<Exception>(TaskCreationOptions.RunContinuationsAsynchronously);
        boc.ConfigureDefault(handler: e => seen.TrySetResult(e));
        boc.When(() => throw new InvalidOperationException("after the bad calls"));
        Assert.Equal("after the bad calls", (await seen.Task.Guard()).Message);
    }

    /// <summary>A private copy of Boc.dll, driven by reflection.</summary>
    private sealed class FreshBoc : IDisposable
    {
        private readonly AssemblyLoadContext _context = new(nameof(DefaultRuntimeTests), isCollectible: true);
        private readonly Type _runtime;
        private readonly Type _options;
        private readonly Type _behaviours;

        public FreshBoc()
        {
            Assembly boc = _context.LoadFromAssemblyPath(typeof(BocRuntime).Assembly.Location);
            Assert.NotSame(typeof(BocRuntime).Assembly, boc);
            _runtime = boc.GetType("Boc.BocRuntime", throwOnError: true)!;
            _options = boc.GetType("Boc.BocRuntimeOptions", throwOnError: true)!;
            _behaviours = boc.GetType("Boc.Behaviours", throwOnError: true)!;
        }

        public object Default => _runtime.GetProperty("Default")!.GetValue(null)!;

        public void ConfigureDefault(Action<Exception>? handler, int? workerCount = null)
        {
            object options = Activator.CreateInstance(_options)!;
            _options.GetProperty("UnhandledExceptionHandler")!.SetValue(options, handler);
            _options.GetProperty("WorkerCount")!.SetValue(options, workerCount);
            // The thread pool: a default runtime cannot be disposed, so it must not leave worker threads behind.
            _options.GetProperty("Dispatcher")!.SetValue(options, Enum.Parse(_options.GetProperty("Dispatcher")!.PropertyType, "ThreadPool"));
            Invoke(_runtime.GetMethod("ConfigureDefault")!, options);
        }

        public void ConfigureDefaultNull() => Invoke(_runtime.GetMethod("ConfigureDefault")!, [null]);

        public void When(Action body) =>
            Invoke(_behaviours.GetMethod("When", [typeof(Action)])!, body);

        public Task WaitForQuiescenceAsync() =>
            (Task)Invoke(_behaviours.GetMethod("WaitForQuiescenceAsync")!, CancellationToken.None)!;

        public void Dispose() => _context.Unload();

        private static object? Invoke(MethodInfo method, params object?[] arguments)
        {
            try
            {
                return method.Invoke(null, arguments);
            }
            catch (TargetInvocationException wrapped) when (wrapped.InnerException is not null)
            {
                System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(wrapped.InnerException);
                throw;
            }
        }
    }
}
