using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace WorkerService;

/// <summary>Builds the worker host; Program.cs runs it, and the tests host it themselves.</summary>
internal static class WorkerApp
{
    /// <summary>How many orders may be in behaviours at once unless <c>Boc:MaxPendingBehaviours</c> says otherwise.</summary>
    public const int DefaultMaxPendingBehaviours = 64;

    public static IHost Create(string[] args)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(args);
        var options = new OrderStreamOptions();
        builder.Configuration.GetSection("Orders").Bind(options);
        if (options.Count < 0 || options.Products < 1 || options.InitialStock < 0 || options.BufferCapacity < 1)
        {
            throw new InvalidOperationException("Orders: Count and InitialStock must not be negative; Products and BufferCapacity must be positive.");
        }

        builder.Services.AddSingleton(options);
        builder.Services.AddSingleton<OrderBuffer>();
        builder.Services.AddSingleton<ProcessingReport>();
        // The runtime's options come from the Boc section (appsettings.json, environment, command line); a key that names
        // no option or a bad value (Boc:MaxPendingBehaviours 0) fails the start with the key in the message. The
        // processor's backpressure is the runtime's bound, so the sample always has one: the default below applies only
        // when the configuration gives none.
        builder.Services.AddBoc(builder.Configuration.GetSection("Boc"), boc => boc.MaxPendingBehaviours ??= DefaultMaxPendingBehaviours);
        builder.Services.AddHostedService<OrderSource>();
        builder.Services.AddHostedService<OrderProcessor>();
        return builder.Build();
    }
}
