using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Diagnostics.HealthChecks;
using Microsoft.Extensions.Hosting;

namespace Boc.Extensions.Hosting.Tests;

/// <summary><see cref="BocHealthCheck"/> reports Degraded for a full runtime and for a run of failures, on a manual clock.</summary>
public sealed class HealthCheckTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(60);

    private sealed class Counter
    {
        public int Value;
    }

    [Fact]
    public async Task A_runtime_at_the_full_ratio_of_its_bound_is_degraded_and_healthy_again_once_it_drains_below()
    {
        HostApplicationBuilder builder = NewBuilder();
        builder.Services.AddBoc(o =>
        {
            o.MaxPendingBehaviours = 10;
            o.FullMode = BocFullMode.Throw;
        });
        builder.Services.AddHealthChecks().AddCheck<BocHealthCheck>("boc");
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Limit);
        var runtime = host.Services.GetRequiredService<BocRuntime>();
        var gate = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        var cown = new Cown<Counter>(new Counter());
        runtime.When(cown, async c => { await gate.Task; c.Value++; });
        for (int i = 0; i < 7; i++)
        {
            runtime.When(cown, c => c.Value++);
        }

        HealthReport eight = await CheckAsync(host);
        runtime.When(cown, c => c.Value++);
        HealthReport nine = await CheckAsync(host);
        gate.SetResult();
        await runtime.WhenAsync(cown, c => c.Value).AsTask().WaitAsync(Limit);
        await SpinUntil(() => runtime.PendingCount == 0);
        HealthReport drained = await CheckAsync(host);
        await host.StopAsync().WaitAsync(Limit);

        // The default full ratio is 0.9: 8 of 10 is below it, 9 of 10 is at it.
        Assert.Equal(HealthStatus.Healthy, eight.Status);
        Assert.Equal(8L, eight.Entries["boc"].Data["pendingBehaviours"]);
        Assert.Equal(HealthStatus.Degraded, nine.Status);
        Assert.Contains("full", nine.Entries["boc"].Description, StringComparison.Ordinal);
        Assert.Equal(9L, nine.Entries["boc"].Data["pendingBehaviours"]);
        Assert.Equal(HealthStatus.Healthy, drained.Status);
    }

    [Fact]
    public async Task A_run_of_failures_within_the_window_is_degraded_until_the_window_has_passed()
    {
        var clock = new ManualTimeProvider(new DateTimeOffset(2026, 1, 1, 12, 0, 0, TimeSpan.Zero));
        HostApplicationBuilder builder = NewBuilder();
        builder.Services.AddSingleton<TimeProvider>(clock);
        int handled = 0;
        builder.Services.AddBoc(o => o.UnhandledExceptionHandler = _ => Interlocked.Increment(ref handled));
        builder.Services.Configure<BocHealthCheckOptions>(o =>
        {
            o.FailureThreshold = 3;
            o.FailureWindow = TimeSpan.FromMinutes(1);
        });
        builder.Services.AddHealthChecks().AddCheck<BocHealthCheck>("boc");
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Limit);
        var runtime = host.Services.GetRequiredService<BocRuntime>();

        async Task Fail(int times)
        {
            int target = Volatile.Read(ref handled) + times;
            for (int i = 0; i < times; i++)
            {
                runtime.When(() => throw new InvalidOperationException("payment declined"));
            }

            await SpinUntil(() => Volatile.Read(ref handled) >= target);
        }

        await Fail(2);
        HealthReport two = await CheckAsync(host);
        clock.Advance(TimeSpan.FromSeconds(50));
        await Fail(1);
        HealthReport three = await CheckAsync(host);
        clock.Advance(TimeSpan.FromSeconds(11));   // the first two are now 61 s old: one failure left in the window
        HealthReport later = await CheckAsync(host);
        clock.Advance(TimeSpan.FromSeconds(5));
        await Fail(2);                             // 55 s, 0 s and 0 s old: three again
        HealthReport again = await CheckAsync(host);
        await host.StopAsync().WaitAsync(Limit);

        Assert.Equal(HealthStatus.Healthy, two.Status);
        Assert.Equal(2, two.Entries["boc"].Data["recentUnhandledExceptions"]);
        Assert.Equal(HealthStatus.Degraded, three.Status);
        Assert.Equal(3, three.Entries["boc"].Data["recentUnhandledExceptions"]);
        Assert.Contains("3 fire-and-forget behaviours threw", three.Entries["boc"].Description, StringComparison.Ordinal);
        Assert.Equal(HealthStatus.Healthy, later.Status);
        Assert.Equal(1, later.Entries["boc"].Data["recentUnhandledExceptions"]);
        Assert.Equal(HealthStatus.Degraded, again.Status);
        Assert.Equal(5L, again.Entries["boc"].Data["unhandledExceptions"]);
        Assert.Equal(clock.GetUtcNow(), again.Entries["boc"].Data["lastUnhandledExceptionAt"]);
    }

    [Fact]
    public async Task A_zero_failure_threshold_turns_the_failure_check_off()
    {
        HostApplicationBuilder builder = NewBuilder();
        int handled = 0;
        builder.Services.AddBoc(o => o.UnhandledExceptionHandler = _ => Interlocked.Increment(ref handled));
        builder.Services.Configure<BocHealthCheckOptions>(o => o.FailureThreshold = 0);
        builder.Services.AddHealthChecks().AddCheck<BocHealthCheck>("boc");
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Limit);
        var runtime = host.Services.GetRequiredService<BocRuntime>();
        for (int i = 0; i < 20; i++)
        {
            runtime.When(() => throw new InvalidOperationException("ignored by the check"));
        }

        await SpinUntil(() => Volatile.Read(ref handled) == 20);
        HealthReport report = await CheckAsync(host);
        await host.StopAsync().WaitAsync(Limit);

        Assert.Equal(HealthStatus.Healthy, report.Status);
        Assert.Equal(20L, report.Entries["boc"].Data["unhandledExceptions"]);
        Assert.False(report.Entries["boc"].Data.ContainsKey("recentUnhandledExceptions"));
    }

    private static HostApplicationBuilder NewBuilder() =>
        Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });

    private static Task<HealthReport> CheckAsync(IHost host) =>
        host.Services.GetRequiredService<HealthCheckService>().CheckHealthAsync().WaitAsync(Limit);

    private static async Task SpinUntil(Func<bool> condition)
    {
        using var limit = new CancellationTokenSource(Limit);
        while (!condition())
        {
            await Task.Delay(1, limit.Token);
        }
    }
}
