using Boc.Orleans;
using Boc.Orleans.Grains;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.DependencyInjection.Extensions;

namespace Orleans.Hosting;

/// <summary>Registers distributed Boc (<see cref="IBocCluster"/> and the cown grains) on silos and clients.</summary>
public static class BocOrleansExtensions
{
    /// <summary>
    /// Registers <see cref="IBocCluster"/> on a silo with the default options (the cown grains come with this
    /// assembly). Also register a grain storage provider named <see cref="BocCluster.StorageName"/>.
    /// </summary>
    /// <param name="builder">The silo builder.</param>
    /// <returns><paramref name="builder"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="builder"/> is null.</exception>
    public static ISiloBuilder AddBocCowns(this ISiloBuilder builder) => AddBocCowns(builder, null);

    /// <summary>
    /// Registers <see cref="IBocCluster"/> on a silo (the cown grains come with this assembly). Also register a grain
    /// storage provider named <see cref="BocCluster.StorageName"/>.
    /// </summary>
    /// <param name="builder">The silo builder.</param>
    /// <param name="configure">Sets leases, polling and retries; use the same lease on every silo and client.</param>
    /// <returns><paramref name="builder"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="builder"/> is null.</exception>
    public static ISiloBuilder AddBocCowns(this ISiloBuilder builder, Action<BocClusterOptions>? configure)
    {
        ArgumentNullException.ThrowIfNull(builder);
        Register(builder.Services, configure);
        return builder;
    }

    /// <summary>Registers <see cref="IBocCluster"/> on a cluster client with the default options.</summary>
    /// <param name="builder">The client builder.</param>
    /// <returns><paramref name="builder"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="builder"/> is null.</exception>
    public static IClientBuilder AddBocCowns(this IClientBuilder builder) => AddBocCowns(builder, null);

    /// <summary>Registers <see cref="IBocCluster"/> on a cluster client, so that client code can spawn behaviours.</summary>
    /// <param name="builder">The client builder.</param>
    /// <param name="configure">Sets leases, polling and retries; use the same lease as the silos.</param>
    /// <returns><paramref name="builder"/>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="builder"/> is null.</exception>
    public static IClientBuilder AddBocCowns(this IClientBuilder builder, Action<BocClusterOptions>? configure)
    {
        ArgumentNullException.ThrowIfNull(builder);
        Register(builder.Services, configure);
        return builder;
    }

    private static void Register(IServiceCollection services, Action<BocClusterOptions>? configure)
    {
        var options = services.AddOptions<BocClusterOptions>();
        if (configure is not null)
        {
            options.Configure(configure);
        }

        services.AddSingleton<IBocCluster, BocCluster>();
        services.TryAddSingleton(CownClock.System);
    }
}
