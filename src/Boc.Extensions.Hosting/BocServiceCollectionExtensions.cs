using Boc;
using Boc.Extensions.Hosting;
using Microsoft.Extensions.DependencyInjection.Extensions;

namespace Microsoft.Extensions.DependencyInjection;

/// <summary>Registers a Boc runtime with a .NET host.</summary>
public static class BocServiceCollectionExtensions
{
    /// <summary>
    /// Registers a <see cref="BocRuntime"/> singleton for the host: its fire-and-forget failures are logged through
    /// <c>ILogger&lt;BocRuntime&gt;</c>, <see cref="BocHealthCheck"/> reports its state, and the host drains it when it
    /// stops, within the host's shutdown timeout.
    /// </summary>
    /// <param name="services">The service collection.</param>
    /// <param name="configure">
    /// Sets the runtime's options (workers, dispatcher, fail-fast). It starts from the defaults of
    /// <see cref="BocRuntimeOptions"/> except one: <see cref="BocRuntimeOptions.Dispatcher"/> is
    /// <see cref="BocDispatcher.ThreadPool"/> (see the remarks). An
    /// <see cref="BocRuntimeOptions.UnhandledExceptionHandler"/> set here runs after the failure was logged.
    /// </param>
    /// <returns><paramref name="services"/>, for chaining.</returns>
    /// <remarks>
    /// <para>
    /// The runtime is created here, from <paramref name="configure"/>, and registered as an instance, so the container
    /// does not dispose it: disposing a runtime waits for every pending behaviour, and a container would do that
    /// without a time limit. The host drains it instead, after every hosted service has stopped (so behaviours spawned
    /// by those services while they stop are still accepted), bounded by <c>HostOptions.ShutdownTimeout</c>. If the
    /// timeout passes first, the number of behaviours still pending is logged and they keep running; the host then
    /// goes on with its shutdown.
    /// </para>
    /// <para>
    /// In a host the dispatcher defaults to the .NET thread pool: request handlers, Kestrel's I/O and hosted services
    /// already run there, and a runtime with its own <see cref="BocScheduler"/> workers would compete with them for the
    /// same cores. Set <see cref="BocRuntimeOptions.Dispatcher"/> to <see cref="BocDispatcher.BocScheduler"/> for a
    /// host whose work is mostly behaviours (a compute service fed by a queue, say).
    /// </para>
    /// <para>Register it once: a second call throws, because its options would otherwise be ignored.</para>
    /// </remarks>
    /// <exception cref="ArgumentNullException"><paramref name="services"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException">
    /// The configured <see cref="BocRuntimeOptions.WorkerCount"/> or <see cref="BocRuntimeOptions.MaxPendingBehaviours"/>
    /// is less than 1, or <see cref="BocRuntimeOptions.FullMode"/> is not a defined value.
    /// </exception>
    /// <exception cref="InvalidOperationException"><see cref="AddBoc"/> was already called on <paramref name="services"/>.</exception>
    public static IServiceCollection AddBoc(this IServiceCollection services, Action<BocRuntimeOptions>? configure = null)
    {
        ArgumentNullException.ThrowIfNull(services);
        if (services.Any(d => d.ServiceType == typeof(BocRuntime)))
        {
            throw new InvalidOperationException("A BocRuntime is already registered: call AddBoc once, with all the options.");
        }

        // The host's default dispatcher is the thread pool (see the remarks); configure may still choose BocScheduler.
        var options = new BocRuntimeOptions { Dispatcher = BocDispatcher.ThreadPool };
        configure?.Invoke(options);
        var monitor = new BocRuntimeMonitor(options.UnhandledExceptionHandler);

        // The constructor validates the options and throws before anything is registered.
        var runtime = new BocRuntime(new BocRuntimeOptions
        {
            Dispatcher = options.Dispatcher,
            WorkerCount = options.WorkerCount,
            MaxPendingBehaviours = options.MaxPendingBehaviours,
            FullMode = options.FullMode,
            FailFastOnUnhandledException = options.FailFastOnUnhandledException,
            UnhandledExceptionHandler = monitor.Report,
        });

        monitor.Attach(runtime, options.MaxPendingBehaviours);
        services.AddSingleton(runtime);
        services.AddSingleton(monitor);
        services.TryAddSingleton<BocHealthCheck>();
        services.AddHostedService<BocRuntimeLifetime>();
        return services;
    }
}
