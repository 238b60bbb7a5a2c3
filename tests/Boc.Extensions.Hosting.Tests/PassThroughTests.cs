using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Options;

namespace Boc.Extensions.Hosting.Tests;

/// <summary>
/// Every option given to <c>AddBoc</c> reaches the runtime, whatever the way it was given. The reflection tests set every
/// settable property of <see cref="BocRuntimeOptions"/> to a value other than the host's default, so a property added
/// to the options and lost on the way fails them (and a property of a type they cannot make a value for fails them too,
/// until the test learns that type).
/// </summary>
public sealed class PassThroughTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(60);

    private static readonly Action<Exception> SampleHandler = _ => { };

    private static readonly TimeProvider SampleClock = new ManualTimeProvider(new DateTimeOffset(2030, 1, 1, 0, 0, 0, TimeSpan.Zero));

    public enum Way
    {
        Code,
        ServiceProvider,
        OptionsPattern,
        Configuration,
    }

    [Theory]
    [InlineData(Way.Code)]
    [InlineData(Way.ServiceProvider)]
    [InlineData(Way.OptionsPattern)]
    [InlineData(Way.Configuration)]
    public void Every_option_reaches_the_runtime(Way way)
    {
        BocRuntimeOptions defaults = HostDefaults();
        Dictionary<PropertyInfo, object?> samples = Settable().ToDictionary(p => p, p => SampleFor(p, p.GetValue(defaults)));
        HostApplicationBuilder builder = NewBuilder();
        var fromConfiguration = new Dictionary<string, string?>();
        foreach ((PropertyInfo property, object? value) in samples)
        {
            if (way == Way.Configuration && !CodeOnly(property))
            {
                fromConfiguration["Boc:" + property.Name] = Convert.ToString(value, CultureInfo.InvariantCulture);
            }
        }

        builder.Configuration.AddInMemoryCollection(fromConfiguration);
        void SetAll(BocRuntimeOptions o)
        {
            foreach ((PropertyInfo property, object? value) in samples)
            {
                // Configuration cannot give a delegate or a clock: that way sets those in code, after the binding.
                if (way != Way.Configuration || CodeOnly(property))
                {
                    property.SetValue(o, value);
                }
            }
        }

        switch (way)
        {
            case Way.Code:
                builder.Services.AddBoc(SetAll);
                break;
            case Way.ServiceProvider:
                builder.Services.AddBoc((sp, o) =>
                {
                    Assert.NotNull(sp.GetService<IHostEnvironment>());
                    SetAll(o);
                });
                break;
            case Way.OptionsPattern:
                builder.Services.Configure<BocRuntimeOptions>(SetAll);
                builder.Services.AddBoc();
                break;
            case Way.Configuration:
                builder.Services.AddBoc(builder.Configuration.GetSection("Boc"), SetAll);
                break;
        }

        using IHost host = builder.Build();
        BocRuntime runtime = host.Services.GetRequiredService<BocRuntime>();
        BocRuntimeMonitor monitor = host.Services.GetRequiredService<BocRuntimeMonitor>();
        BocRuntimeOptions given = Assert.IsType<BocRuntimeOptions>(monitor.RuntimeOptions);
        foreach ((PropertyInfo property, object? value) in samples)
        {
            object? actual = property.Name == nameof(BocRuntimeOptions.UnhandledExceptionHandler)
                ? monitor.UserHandler   // the runtime gets the monitor's handler, which calls this one after logging
                : property.GetValue(given);
            Assert.True(Equals(value, actual), $"{way}: {property.Name} is {actual ?? "null"} on the runtime, not {value}.");
        }

        // And what the runtime shows of them.
        Assert.Same(SampleClock, runtime.TimeProvider);
        Assert.Equal(samples[typeof(BocRuntimeOptions).GetProperty(nameof(BocRuntimeOptions.Name))!], runtime.Name);
        Assert.Equal(samples[typeof(BocRuntimeOptions).GetProperty(nameof(BocRuntimeOptions.MaxPendingBehaviours))!], monitor.MaxPendingBehaviours);
    }

    [Fact]
    public async Task A_hosted_runtime_gets_its_name_and_traces_its_behaviours()
    {
        // Issue 59, item 3: AddBoc copied 6 of the 8 options, so a hosted app never got a behaviour span.
        var spans = new List<Activity>();
        using var listener = new ActivityListener
        {
            ShouldListenTo = source => source.Name == "Boc",
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = activity =>
            {
                lock (spans)
                {
                    spans.Add(activity);
                }
            },
        };
        ActivitySource.AddActivityListener(listener);
        string name = "orders-" + Guid.NewGuid().ToString("N");
        HostApplicationBuilder builder = NewBuilder();
        builder.Services.AddBoc(o =>
        {
            o.Name = name;
            o.TraceBehaviours = true;
        });
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Limit);
        BocRuntime runtime = host.Services.GetRequiredService<BocRuntime>();

        Assert.Equal(name, runtime.Name);
        Assert.Equal(7, await runtime.WhenAsync(new Cown<int[]>([7]), a => a[0]).AsTask().WaitAsync(Limit));
        await host.StopAsync().WaitAsync(Limit);
        lock (spans)
        {
            Assert.Contains(spans, s => s.OperationName == "boc.behaviour" && Equals(s.GetTagItem("boc.runtime"), name));
        }
    }

    [Fact]
    public async Task The_service_provider_overload_builds_the_handler_and_name_from_services()
    {
        HostApplicationBuilder builder = NewBuilder();
        builder.Environment.ApplicationName = "billing";
        builder.Services.AddSingleton<Alerts>();
        builder.Services.AddBoc((sp, o) =>
        {
            o.Name = sp.GetRequiredService<IHostEnvironment>().ApplicationName;
            o.UnhandledExceptionHandler = sp.GetRequiredService<Alerts>().Raise;
        });
        using IHost host = builder.Build();
        await host.StartAsync().WaitAsync(Limit);
        BocRuntime runtime = host.Services.GetRequiredService<BocRuntime>();
        var failure = new InvalidOperationException("invoice lost");
        runtime.When(() => throw failure);

        Assert.Same(failure, await host.Services.GetRequiredService<Alerts>().Raised.Task.WaitAsync(Limit));
        Assert.Equal("billing", runtime.Name);
        await host.StopAsync().WaitAsync(Limit);
    }

    [Fact]
    public void Options_configured_elsewhere_apply_in_registration_order_and_code_after_configuration_wins()
    {
        HostApplicationBuilder builder = NewBuilder();
        builder.Configuration.AddInMemoryCollection(new Dictionary<string, string?>
        {
            ["Boc:Name"] = "from-configuration",
            ["Boc:MaxPendingBehaviours"] = "10",
            ["Boc:Dispatcher"] = "BocScheduler",
        });
        builder.Services.AddBoc(builder.Configuration.GetSection("Boc"), o => o.MaxPendingBehaviours ??= 64);
        builder.Services.PostConfigure<BocRuntimeOptions>(o => o.Name += "+post");
        using IHost host = builder.Build();
        BocRuntime runtime = host.Services.GetRequiredService<BocRuntime>();

        Assert.Equal("from-configuration+post", runtime.Name);
        Assert.Equal(10, host.Services.GetRequiredService<BocRuntimeMonitor>().MaxPendingBehaviours);
        Assert.IsType<BocScheduler>(runtime.Scheduler);
        // The options pattern sees the same values (a separate instance: the runtime's holds the monitor's handler).
        Assert.Equal("from-configuration+post", host.Services.GetRequiredService<IOptions<BocRuntimeOptions>>().Value.Name);
    }

    [Fact]
    public void The_hosts_registered_clock_is_the_runtimes_unless_the_options_chose_one()
    {
        var registered = new ManualTimeProvider(DateTimeOffset.UnixEpoch);
        var chosen = new ManualTimeProvider(DateTimeOffset.UnixEpoch);
        Assert.Same(registered, Build(_ => { }).TimeProvider);
        Assert.Same(chosen, Build(o => o.TimeProvider = chosen).TimeProvider);

        BocRuntime Build(Action<BocRuntimeOptions> configure)
        {
            HostApplicationBuilder builder = NewBuilder();
            builder.Services.AddSingleton<TimeProvider>(registered);
            builder.Services.AddBoc(configure);
            IHost host = builder.Build();
            return host.Services.GetRequiredService<BocRuntime>();
        }
    }

    private sealed class Alerts
    {
        public TaskCompletionSource<Exception> Raised { get; } = new(TaskCreationOptions.RunContinuationsAsynchronously);

        public void Raise(Exception error) => Raised.TrySetResult(error);
    }

    private static HostApplicationBuilder NewBuilder() =>
        Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { DisableDefaults = true });

    /// <summary>Options that configuration cannot give: not a scalar (a delegate, a clock).</summary>
    private static bool CodeOnly(PropertyInfo property)
    {
        Type type = Nullable.GetUnderlyingType(property.PropertyType) ?? property.PropertyType;
        return !(type.IsPrimitive || type.IsEnum || type == typeof(string) || type == typeof(TimeSpan));
    }

    private static IEnumerable<PropertyInfo> Settable() =>
        typeof(BocRuntimeOptions).GetProperties(BindingFlags.Public | BindingFlags.Instance).Where(p => p.CanWrite && p.CanRead);

    /// <summary>What <c>AddBoc()</c> gives the runtime when nothing is configured.</summary>
    private static BocRuntimeOptions HostDefaults()
    {
        HostApplicationBuilder builder = NewBuilder();
        builder.Services.AddBoc();
        using IHost host = builder.Build();
        _ = host.Services.GetRequiredService<BocRuntime>();
        return host.Services.GetRequiredService<BocRuntimeMonitor>().RuntimeOptions!;
    }

    private static object? SampleFor(PropertyInfo property, object? hostDefault)
    {
        Type type = Nullable.GetUnderlyingType(property.PropertyType) ?? property.PropertyType;
        if (type == typeof(bool))
        {
            return !(bool)hostDefault!;
        }

        if (type == typeof(int))
        {
            return Equals(hostDefault, 3) ? 4 : 3;
        }

        if (type == typeof(string))
        {
            return "sample-" + property.Name;
        }

        if (type.IsEnum)
        {
            return Enum.GetValues(type).Cast<object>().First(v => !Equals(v, hostDefault));
        }

        if (type == typeof(Action<Exception>))
        {
            return SampleHandler;
        }

        if (type == typeof(TimeProvider))
        {
            return SampleClock;
        }

        throw new Xunit.Sdk.XunitException(
            $"BocRuntimeOptions.{property.Name} is a {property.PropertyType}, for which this test has no sample value: teach SampleFor one, so that the option is checked to reach the runtime.");
    }
}
