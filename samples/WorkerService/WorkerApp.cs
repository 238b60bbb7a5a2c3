using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace WorkerService;

/// <summary>Builds the worker host; Program.cs runs it, and the tests host it themselves.</summary>
internal static class WorkerApp
{
    public static IHost Create(string[] args)
    {
        HostApplicationBuilder builder = Host.CreateApplicationBuilder(args);
        var options = new OrderStreamOptions();
        builder.Configuration.GetSection("Orders").Bind(options);
        if (options.Count < 0 || options.Products < 1 || options.InitialStock < 0 || options.BufferCapacity < 1 || options.MaxInFlight < 1)
        {
            throw new InvalidOperationException("Orders: Count and InitialStock must not be negative; Products, BufferCapacity and MaxInFlight must be positive.");
        }

        builder.Services.AddSingleton(options);
        builder.Services.AddSingleton<OrderBuffer>();
        builder.Services.AddSingleton<ProcessingReport>();
        builder.Services.AddBoc(boc => builder.Configuration.GetSection("Boc").Bind(boc));
        builder.Services.AddHostedService<OrderSource>();
        builder.Services.AddHostedService<OrderProcessor>();
        return builder.Build();
    }
}
