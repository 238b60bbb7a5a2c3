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
        builder.Services.AddBoc(boc =>
        {
            // The processor's backpressure is the runtime's bound, so the sample always has one; Boc:MaxPendingBehaviours
            // overrides it (the runtime refuses a value below 1).
            boc.MaxPendingBehaviours = DefaultMaxPendingBehaviours;
            builder.Configuration.GetSection("Boc").Bind(boc);
        });
        builder.Services.AddHostedService<OrderSource>();
        builder.Services.AddHostedService<OrderProcessor>();
        return builder.Build();
    }
}
