using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Boc.Extensions.Hosting.Tests;

/// <summary>AddBoc in the real generic host (<see cref="Host.CreateApplicationBuilder()"/>): no mocks.</summary>
public sealed class AddBocTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(60);

    private sealed class Counter
    {
        public int Value;
    }

    private static (HostApplicationBuilder Builder, RecordingLoggerProvider Logs) NewBuilder()
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });
        var logs = new RecordingLoggerProvider();
        builder.Logging.ClearProviders().AddProvider(logs).SetMinimumLevel(LogLevel.Trace);
        return (builder, logs);
    }

    [Fact]
    public async Task The_host_provides_one_runtime_that_runs_behaviours()
    {
        var (builder, _) = NewBuilder();
        builder.Services.AddBoc(o => o.WorkerCount = 2);
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Limit);

        var runtime = host.Services.GetRequiredService<BocRuntime>();
        Assert.Same(runtime, host.Services.GetRequiredService<BocRuntime>());
        var counter = new Cown<Counter>(new Counter());
        for (int i = 0; i < 1_000; i++)
        {
            runtime.When(counter, c => c.Value++);
        }

        Assert.Equal(1_000, await runtime.WhenAsync(counter, c => c.Value).AsTask().WaitAsync(Limit));
        await host.StopAsync().WaitAsync(Limit);
    }

    [Fact]
    public async Task In_a_host_the_dispatcher_defaults_to_the_thread_pool_and_can_be_set_to_BocScheduler()
    {
        var (pooled, _) = NewBuilder();
        pooled.Services.AddBoc();
        using IHost poolHost = pooled.Build();
        BocRuntime onPool = poolHost.Services.GetRequiredService<BocRuntime>();
        Assert.Same(TaskScheduler.Default, onPool.Scheduler);
        Assert.True(await RunsOnPoolThread(onPool));

        var (own, _) = NewBuilder();
        own.Services.AddBoc(o => o.Dispatcher = BocDispatcher.BocScheduler);
        using IHost ownHost = own.Build();
        BocRuntime onScheduler = ownHost.Services.GetRequiredService<BocRuntime>();
        Assert.IsType<BocScheduler>(onScheduler.Scheduler);
        Assert.False(await RunsOnPoolThread(onScheduler));
        await onScheduler.DisposeAsync();
        await onPool.DisposeAsync();

        // Fire-and-forget: never run inline on the caller, so the answer is the dispatcher's thread.
        static Task<bool> RunsOnPoolThread(BocRuntime runtime)
        {
            var ranOnPool = new TaskCompletionSource<bool>(TaskCreationOptions.RunContinuationsAsynchronously);
            runtime.When(new Cown<Counter>(new Counter()), _ => ranOnPool.SetResult(Thread.CurrentThread.IsThreadPoolThread));
            return ranOnPool.Task.WaitAsync(Limit);
        }
    }

    [Fact]
    public async Task A_failed_behaviour_is_logged_with_its_exception_counted_and_then_given_to_the_configured_handler()
    {
        var (builder, logs) = NewBuilder();
        var handled = new TaskCompletionSource<(Exception Error, int LogsBefore)>(TaskCreationOptions.RunContinuationsAsynchronously);
        builder.Services.AddBoc(o => o.UnhandledExceptionHandler = e => handled.TrySetResult((e, logs.For("BehaviourFailed").Count())));
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Limit);
        var runtime = host.Services.GetRequiredService<BocRuntime>();

        var failure = new InvalidOperationException("seat map corrupted");
        var seats = new Cown<Counter>(new Counter());
        var prices = new Cown<Counter>(new Counter());
        runtime.When(seats, Cown.Read(prices), (_, _) => throw failure);

        var (error, logsBefore) = await handled.Task.WaitAsync(Limit);
        Assert.Same(failure, error);
        Assert.Equal(1, logsBefore);
        var record = Assert.Single(logs.For("BehaviourFailed"));
        Assert.Equal(LogLevel.Error, record.Level);
        Assert.Equal(typeof(BocRuntime).FullName, record.Category);
        Assert.Same(failure, record.Exception);
        Assert.Contains(record.State, kv => kv.Key == "ExceptionType" && Equals(kv.Value, typeof(InvalidOperationException).FullName));

        // Which behaviour failed: the log names the cowns it held, and how.
        string expectedCowns = string.Join(", ", new[] { $"{seats} (write)", $"{prices} (read)" }.OrderBy(c => c, StringComparer.Ordinal));
        var cowns = Assert.Single(record.State, kv => kv.Key == "Cowns").Value as string;
        Assert.Equal(expectedCowns, string.Join(", ", (cowns ?? "").Split(", ").OrderBy(c => c, StringComparer.Ordinal)));
        var monitor = host.Services.GetRequiredService<BocRuntimeMonitor>();
        Assert.Equal(1, monitor.UnhandledExceptionCount);
        Assert.NotNull(monitor.LastUnhandledExceptionAt);
        // The failure was observed by the handler, so a wait does not throw it again.
        await runtime.WaitForQuiescenceAsync().WaitAsync(Limit);
        await host.StopAsync().WaitAsync(Limit);
    }

    [Fact]
    public async Task Stopping_drains_after_every_hosted_service_stopped_whatever_the_registration_order()
    {
        var (builder, logs) = NewBuilder();
        // Registered before AddBoc: hosted services stop in reverse order, so this one stops after Boc's would.
        builder.Services.AddSingleton<SpawnsOnStop>();
        builder.Services.AddHostedService(sp => sp.GetRequiredService<SpawnsOnStop>());
        builder.Services.AddBoc();
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Limit);

        await host.StopAsync().WaitAsync(Limit);

        var spawner = host.Services.GetRequiredService<SpawnsOnStop>();
        Assert.Null(spawner.SpawnError);
        Assert.Equal(SpawnsOnStop.Count, (await ReadAsync(spawner.Counter)).Value);
        Assert.Equal(BocRuntimePhase.Drained, host.Services.GetRequiredService<BocRuntimeMonitor>().Phase);
        Assert.Single(logs.For("Drained"));
        Assert.Throws<ObjectDisposedException>(() => host.Services.GetRequiredService<BocRuntime>().When(() => { }));
    }

    [Fact]
    public async Task A_drain_that_outlasts_the_shutdown_timeout_reports_what_was_pending_and_lets_the_host_stop()
    {
        var (builder, logs) = NewBuilder();
        builder.Services.Configure<HostOptions>(o => o.ShutdownTimeout = TimeSpan.FromMilliseconds(200));
        builder.Services.AddBoc();
        builder.Services.AddHealthChecks().AddCheck<BocHealthCheck>("boc");
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Limit);
        var runtime = host.Services.GetRequiredService<BocRuntime>();
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var cown = new Cown<Counter>(new Counter());
        runtime.When(cown, async c => { await gate.Task; c.Value++; });
        runtime.When(cown, c => c.Value++);   // queued behind the blocked one

        await host.StopAsync().WaitAsync(Limit);

        var monitor = host.Services.GetRequiredService<BocRuntimeMonitor>();
        Assert.Equal(BocRuntimePhase.DrainTimedOut, monitor.Phase);
        Assert.Equal(2, monitor.PendingAtShutdownTimeout);
        var record = Assert.Single(logs.For("DrainTimedOut"));
        Assert.Equal(LogLevel.Warning, record.Level);
        Assert.Contains(record.State, kv => kv.Key == "PendingBehaviours" && Equals(kv.Value, 2L));
        HealthReport health = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync().WaitAsync(Limit);
        Assert.Equal(HealthStatus.Unhealthy, health.Status);
        Assert.Equal(2L, health.Entries["boc"].Data["pendingAtShutdownTimeout"]);

        // The pending behaviours were not dropped: they finish once they can.
        gate.SetResult();
        await runtime.ShutdownAsync(CancellationToken.None).WaitAsync(Limit);
        Assert.Equal(2, (await ReadAsync(cown)).Value);
    }

    [Fact]
    public async Task A_drain_that_outlasts_the_shutdown_timeout_cancels_the_open_scopes_so_their_queued_work_is_withdrawn()
    {
        var (builder, logs) = NewBuilder();
        builder.Services.Configure<HostOptions>(o => o.ShutdownTimeout = TimeSpan.FromMilliseconds(200));
        builder.Services.AddBoc();
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Limit);
        var runtime = host.Services.GetRequiredService<BocRuntime>();
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var cown = new Cown<Counter>(new Counter());

        // Outside every scope: holds the cown past the timeout, and still runs to its end afterwards.
        runtime.When(cown, async c => { await gate.Task; c.Value++; });
        BocScope request = runtime.BeginScope();
        runtime.When(cown, c => c.Value += 100);   // a request's work, queued behind the blocked behaviour
        Task finished = request.FinishAsync();

        await host.StopAsync().WaitAsync(Limit);

        Assert.True(request.IsCancellationRequested);
        var record = Assert.Single(logs.For("ScopesCanceledAtShutdown"));
        Assert.Contains(record.State, kv => kv.Key == "Scopes" && Equals(kv.Value, 1));
        gate.SetResult();
        await Assert.ThrowsAnyAsync<OperationCanceledException>(() => finished.WaitAsync(Limit));
        await runtime.ShutdownAsync(CancellationToken.None).WaitAsync(Limit);
        Assert.Equal(1, (await ReadAsync(cown)).Value);
    }

    [Fact]
    public async Task The_health_check_is_healthy_while_running_and_counts_failures()
    {
        var (builder, _) = NewBuilder();
        var failed = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        builder.Services.AddBoc(o => o.UnhandledExceptionHandler = _ => failed.TrySetResult());
        builder.Services.AddHealthChecks().AddCheck<BocHealthCheck>("boc");
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Limit);
        var health = host.Services.GetRequiredService<HealthCheckService>();

        HealthReport before = await health.CheckHealthAsync().WaitAsync(Limit);
        host.Services.GetRequiredService<BocRuntime>().When(() => throw new InvalidOperationException("one"));
        await failed.Task.WaitAsync(Limit);
        HealthReport after = await health.CheckHealthAsync().WaitAsync(Limit);
        await host.StopAsync().WaitAsync(Limit);
        HealthReport stopped = await health.CheckHealthAsync().WaitAsync(Limit);

        Assert.Equal(HealthStatus.Healthy, before.Status);
        Assert.Equal(0L, before.Entries["boc"].Data["unhandledExceptions"]);
        Assert.Equal(0L, before.Entries["boc"].Data["pendingBehaviours"]);
        Assert.False(before.Entries["boc"].Data.ContainsKey("maxPendingBehaviours"));
        Assert.Equal(HealthStatus.Healthy, after.Status);
        Assert.Equal(1L, after.Entries["boc"].Data["unhandledExceptions"]);
        Assert.Equal(HealthStatus.Unhealthy, stopped.Status);
        Assert.Equal("Drained", stopped.Entries["boc"].Data["phase"]);
    }

    [Fact]
    public async Task The_health_check_reports_the_pending_count_and_the_bound()
    {
        var (builder, _) = NewBuilder();
        builder.Services.AddBoc(o =>
        {
            o.MaxPendingBehaviours = 5;
            o.FullMode = BocFullMode.Throw;
        });
        builder.Services.AddHealthChecks().AddCheck<BocHealthCheck>("boc");
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Limit);
        var runtime = host.Services.GetRequiredService<BocRuntime>();
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var cown = new Cown<Counter>(new Counter());
        runtime.When(cown, async c => { await gate.Task; c.Value++; });
        runtime.When(cown, c => c.Value++);   // queued behind the blocked one

        HealthReport busy = await host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync().WaitAsync(Limit);
        Assert.Equal(2L, busy.Entries["boc"].Data["pendingBehaviours"]);
        Assert.Equal(5, busy.Entries["boc"].Data["maxPendingBehaviours"]);
        Assert.Equal(2L, host.Services.GetRequiredService<BocRuntimeMonitor>().PendingCount);

        // The options reached the runtime: it refuses a sixth pending behaviour.
        for (int i = 0; i < 3; i++)
        {
            runtime.When(cown, c => c.Value++);
        }

        Assert.Throws<BocRuntimeFullException>(() => runtime.When(cown, c => c.Value++));
        gate.SetResult();
        await host.StopAsync().WaitAsync(Limit);
        Assert.Equal(5, (await ReadAsync(cown)).Value);
    }

    [Fact]
    public void Bad_registrations_throw_before_anything_is_registered()
    {
        Assert.Throws<ArgumentNullException>(() => BocServiceCollectionExtensions.AddBoc(null!));
        var services = new ServiceCollection();
        Assert.Throws<ArgumentNullException>(() => services.AddBoc((Action<BocRuntimeOptions>)null!));
        Assert.Throws<ArgumentNullException>(() => services.AddBoc((Action<IServiceProvider, BocRuntimeOptions>)null!));
        Assert.Throws<ArgumentNullException>(() => services.AddBoc((Microsoft.Extensions.Configuration.IConfiguration)null!));
        Assert.Empty(services);

        // Bad option values fail when the host starts, naming the option: ValidationTests.
        services.AddBoc();
        int registered = services.Count;
        var error = Assert.Throws<InvalidOperationException>(() => services.AddBoc(o => o.WorkerCount = 4));
        Assert.Contains("once", error.Message, StringComparison.Ordinal);
        Assert.Equal(registered, services.Count);
    }

    [Fact]
    public async Task A_host_whose_drain_timed_out_is_disposed_without_waiting_for_the_pending_behaviours()
    {
        // The container owns the runtime (AddBoc creates it from the service provider) and disposes it with the host:
        // that disposal must not wait, without a limit, for what the bounded drain gave up on.
        var (builder, _) = NewBuilder();
        builder.Services.Configure<HostOptions>(o => o.ShutdownTimeout = TimeSpan.FromMilliseconds(100));
        builder.Services.AddBoc();
        IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Limit);
        var runtime = host.Services.GetRequiredService<BocRuntime>();
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var cown = new Cown<Counter>(new Counter());
        runtime.When(cown, async c => { await gate.Task; c.Value++; });
        await host.StopAsync().WaitAsync(Limit);

        await Task.Run(host.Dispose).WaitAsync(Limit);

        Assert.False(gate.Task.IsCompleted);
        gate.SetResult();
        await runtime.ShutdownAsync(CancellationToken.None).WaitAsync(Limit);
        Assert.Equal(1, (await ReadAsync(cown)).Value);
    }

    [Fact]
    public async Task A_host_disposed_without_starting_releases_an_idle_runtime()
    {
        var (builder, _) = NewBuilder();
        builder.Services.AddBoc();
        BocRuntime runtime;
        using (IHost host = builder.Build())
        {
            runtime = host.Services.GetRequiredService<BocRuntime>();
            _ = host.Services.GetServices<IHostedService>().ToList();   // the host creates its hosted services on start; do it here
        }

        Assert.Throws<ObjectDisposedException>(() => runtime.When(() => { }));
        await runtime.WaitForQuiescenceAsync().WaitAsync(Limit);
    }

    /// <summary>Reads a cown's state the supported way, through a behaviour, on a runtime of its own (the host's may be drained).</summary>
    private static async Task<Counter> ReadAsync(Cown<Counter> cown)
    {
        await using var reader = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.ThreadPool });
        return await reader.WhenAsync(cown, c => c).AsTask().WaitAsync(Limit);
    }

    /// <summary>A hosted service that spawns behaviours while it stops, as a service finishing its last work would.</summary>
    private sealed class SpawnsOnStop(BocRuntime runtime) : IHostedService
    {
        public const int Count = 500;

        public Cown<Counter> Counter { get; } = new(new Counter());

        public Exception? SpawnError { get; private set; }

        public Task StartAsync(CancellationToken cancellationToken) => Task.CompletedTask;

        public Task StopAsync(CancellationToken cancellationToken)
        {
            try
            {
                for (int i = 0; i < Count; i++)
                {
                    runtime.When(Counter, async c => { await Task.Yield(); c.Value++; });
                }
            }
            catch (ObjectDisposedException error)
            {
                SpawnError = error;
            }

            return Task.CompletedTask;
        }
    }
}
