using Boc;
using Boc.Extensions.Hosting;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection.Extensions;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Options;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Registers a Boc runtime with a .NET host.</summary>
public static class BocServiceCollectionExtensions
{
    /// <summary>
    /// Registers a <see cref="BocRuntime"/> singleton for the host with the host's default options (see
    /// <see cref="AddBoc(IServiceCollection, Action{BocRuntimeOptions})"/>, which this is with nothing configured).
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> is null.</exception>
    /// <exception cref="InvalidOperationException">AddBoc was already called on <paramref name="services"/>.</exception>
    public static IServiceCollection AddBoc(this IServiceCollection services)
    {
        ArgumentNullException.ThrowIfNull(services);
        Register(services, configuration: null);
        return services;
    }

    /// <summary>
    /// Registers a <see cref="BocRuntime"/> singleton for the host: its fire-and-forget failures are logged through
    /// <c>ILogger&lt;BocRuntime&gt;</c>, <see cref="BocHealthCheck"/> reports its state, and the host drains it when it
    /// stops, within the host's shutdown timeout.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configure">
    /// Sets the runtime's options. They start from the defaults of <see cref="BocRuntimeOptions"/> except one:
    /// <see cref="BocRuntimeOptions.Dispatcher"/> is <see cref="BocDispatcher.ThreadPool"/> (see the remarks). An
    /// <see cref="BocRuntimeOptions.UnhandledExceptionHandler"/> set here runs after the failure was logged.
    /// </param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <remarks>
    /// <para>
    /// The options are the options pattern's <see cref="BocRuntimeOptions"/>: <paramref name="configure"/>, and whatever
    /// else configures them (<c>services.Configure&lt;BocRuntimeOptions&gt;(…)</c>,
    /// <c>services.AddOptions&lt;BocRuntimeOptions&gt;().BindConfiguration("Boc")</c>), run in registration order when
    /// the runtime is created, on its first use (at the latest when the host starts). Every option reaches the runtime:
    /// it is created from the options object itself. If they set no <see cref="BocRuntimeOptions.TimeProvider"/>, the
    /// <see cref="TimeProvider"/> registered in the container, if any, is the runtime's. Invalid values fail when the
    /// host starts, with an <see cref="OptionsValidationException"/> that names the option.
    /// </para>
    /// <para>
    /// The host drains the runtime after every hosted service has stopped (so behaviours spawned by those services while
    /// they stop are still accepted), bounded by <c>HostOptions.ShutdownTimeout</c>. If the timeout passes first, the
    /// number of behaviours still pending is logged and they keep running; the host then goes on with its shutdown, and
    /// the container's disposal of the runtime afterwards does not wait for them either.
    /// </para>
    /// <para>
    /// In a host the dispatcher defaults to the .NET thread pool: request handlers, Kestrel's I/O and hosted services
    /// already run there, and a runtime with its own <see cref="BocScheduler"/> workers would compete with them for the
    /// same cores. Set <see cref="BocRuntimeOptions.Dispatcher"/> to <see cref="BocDispatcher.BocScheduler"/> for a
    /// host whose work is mostly behaviours (a compute service fed by a queue, say).
    /// </para>
    /// <para>Register it once: a second call throws, because its options would otherwise be ignored.</para>
    /// </remarks>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> or <paramref name="configure"/> is null.</exception>
    /// <exception cref="InvalidOperationException">AddBoc was already called on <paramref name="services"/>.</exception>
    public static IServiceCollection AddBoc(this IServiceCollection services, Action<BocRuntimeOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configure);
        Register(services, configuration: null);
        services.Configure(configure);
        return services;
    }

    /// <summary>
    /// Registers a <see cref="BocRuntime"/> singleton for the host, as <see cref="AddBoc(IServiceCollection, Action{BocRuntimeOptions})"/>
    /// does, with options set from the application's services: a handler built from a registered service, a name from
    /// the host environment.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configure">
    /// Sets the runtime's options, given the application's service provider; called once, when the runtime is created.
    /// </param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> or <paramref name="configure"/> is null.</exception>
    /// <exception cref="InvalidOperationException">AddBoc was already called on <paramref name="services"/>.</exception>
    public static IServiceCollection AddBoc(this IServiceCollection services, Action<IServiceProvider, BocRuntimeOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configure);
        Register(services, configuration: null);
        services.AddSingleton<IConfigureOptions<BocRuntimeOptions>>(provider => new ConfigureOptions<BocRuntimeOptions>(options => configure(provider, options)));
        return services;
    }

    /// <summary>
    /// Registers a <see cref="BocRuntime"/> singleton for the host, as <see cref="AddBoc(IServiceCollection, Action{BocRuntimeOptions})"/>
    /// does, with its options bound from <paramref name="configuration"/> (for example
    /// <c>builder.Configuration.GetSection("Boc")</c>) and the health check's thresholds from its <c>HealthCheck</c>
    /// section.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configuration">
    /// The section to bind: its keys are the names of <see cref="BocRuntimeOptions"/>' properties (<c>WorkerCount</c>,
    /// <c>MaxPendingBehaviours</c>, <c>Dispatcher</c>: <c>ThreadPool</c> or <c>BocScheduler</c>, …), and its
    /// <c>HealthCheck</c> section those of <see cref="BocHealthCheckOptions"/>.
    /// </param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <remarks>
    /// The section is read when the runtime is created (on its first use, at the latest when the host starts), and not
    /// watched after that. A key that names no option, or a value that does not convert or is out of range, fails the
    /// host's start with the key in the message (<c>Boc:WorkerCount</c>). The binding is source-generated: it needs no
    /// reflection, and the package stays trimmable and Native AOT compatible.
    /// </remarks>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> or <paramref name="configuration"/> is null.</exception>
    /// <exception cref="InvalidOperationException">AddBoc was already called on <paramref name="services"/>.</exception>
    public static IServiceCollection AddBoc(this IServiceCollection services, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(services);
        ArgumentNullException.ThrowIfNull(configuration);
        Register(services, configuration);
        services.AddSingleton(ConfigurationBinding.Runtime(configuration));
        services.AddSingleton(ConfigurationBinding.HealthCheck(configuration));
        return services;
    }

    /// <summary>
    /// Registers a <see cref="BocRuntime"/> singleton for the host with its options bound from
    /// <paramref name="configuration"/>, as <see cref="AddBoc(IServiceCollection, IConfiguration)"/> does, then set by
    /// <paramref name="configure"/>: code that sets what configuration cannot (a handler), or a default
    /// (<c>o.MaxPendingBehaviours ??= 64</c>).
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configuration">The section to bind (see <see cref="AddBoc(IServiceCollection, IConfiguration)"/>).</param>
    /// <param name="configure">Runs after the binding.</param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="services"/>, <paramref name="configuration"/> or <paramref name="configure"/> is null.</exception>
    /// <exception cref="InvalidOperationException">AddBoc was already called on <paramref name="services"/>.</exception>
    public static IServiceCollection AddBoc(this IServiceCollection services, IConfiguration configuration, Action<BocRuntimeOptions> configure)
    {
        ArgumentNullException.ThrowIfNull(configure);
        AddBoc(services, configuration);
        services.Configure(configure);
        return services;
    }

    private static void Register(IServiceCollection services, IConfiguration? configuration)
    {
        if (services.Any(d => d.ServiceType == typeof(BocRuntime)))
        {
            throw new InvalidOperationException("A BocRuntime is already registered: call AddBoc once, with all the options.");
        }

        string prefix = configuration is null ? nameof(BocRuntimeOptions) + "." : ConfigurationBinding.PrefixOf(configuration);
        string healthPrefix = configuration is null
            ? nameof(BocHealthCheckOptions) + "."
            : ConfigurationBinding.PrefixOf(configuration) + ConfigurationBinding.HealthCheckSection + ":";
        services.AddOptions<BocRuntimeOptions>().ValidateOnStart();
        services.AddSingleton<IValidateOptions<BocRuntimeOptions>>(new BocRuntimeOptionsValidator(prefix));
        services.AddTransient<IOptionsFactory<BocRuntimeOptions>, HostedBocRuntimeOptionsFactory>();
        services.AddOptions<BocHealthCheckOptions>().ValidateOnStart();
        services.AddSingleton<IValidateOptions<BocHealthCheckOptions>>(new BocHealthCheckOptionsValidator(healthPrefix));

        services.AddSingleton(provider => new BocRuntimeMonitor(
            provider.GetRequiredService<ILogger<BocRuntime>>(),
            provider.GetRequiredService<IOptions<BocHealthCheckOptions>>().Value.FailureThreshold));

        // A factory, so the options may come from the application's services; the container then owns the runtime and
        // disposes it after the host's drain, which does not wait again for what a timed-out drain gave up on.
        services.AddSingleton(provider => CreateRuntime(provider, prefix));
        services.TryAddSingleton<BocHealthCheck>();
        services.AddHostedService<BocRuntimeLifetime>();
    }

    private static BocRuntime CreateRuntime(IServiceProvider provider, string prefix)
    {
        // A new options object (not IOptions' cached one), handed to the runtime whole: every option reaches it.
        BocRuntimeOptions options = provider.GetRequiredService<IOptionsFactory<BocRuntimeOptions>>().Create(Options.Options.DefaultName);
        var monitor = provider.GetRequiredService<BocRuntimeMonitor>();
        monitor.TakeHandler(options);

        // The host's clock, if it registered one, unless the options chose another: scope deadlines and the health
        // check's failure window then follow the clock the rest of the application uses (a fake one in its tests).
        options.TimeProvider ??= provider.GetService<TimeProvider>();
        BocRuntime runtime;
        try
        {
            runtime = new BocRuntime(options);
        }
        catch (ArgumentException refused)
        {
            // An option the validator does not know of yet: the constructor's parameter name is the option's.
            string key = refused.ParamName is { Length: > 0 } name && name != "options" ? prefix + name : prefix.TrimEnd(':', '.');
            throw new OptionsValidationException(Options.Options.DefaultName, typeof(BocRuntimeOptions), [$"{key}: {refused.Message}"]);
        }

        monitor.Attach(runtime, options);
        return runtime;
    }
}
