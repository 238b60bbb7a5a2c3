using Boc;
using Boc.Extensions.Hosting;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using WorkerService;

namespace Samples.Tests;

/// <summary>The worker-service sample end to end, in the real generic host, with a small stream and tight bounds.</summary>
public sealed class WorkerServiceTests
{
    private static readonly TimeSpan Limit = TimeSpan.FromSeconds(120);

    private static string[] Args(int count, int products, int stock, int buffer, int maxPending) =>
    [
        "--Orders:Count", $"{count}", "--Orders:Products", $"{products}", "--Orders:InitialStock", $"{stock}",
        "--Orders:BufferCapacity", $"{buffer}", "--Boc:MaxPendingBehaviours", $"{maxPending}", "--Orders:Seed", "11",
        "--Logging:LogLevel:Default", "Warning", "--Boc:Name", "orders-under-test",
    ];

    [Fact]
    public async Task With_enough_stock_every_order_is_reserved_exactly_once_within_the_runtime_bound()
    {
        string[] args = Args(count: 3_000, products: 6, stock: 1_000_000, buffer: 4, maxPending: 3);
        (ProcessingReport report, BocRuntimeMonitor monitor, OrderStreamOptions options, BocRuntime runtime) = await RunAsync(args);

        long expectedUnits = OrderSource.Generate(options).Sum(o => o.Lines.Sum(l => (long)l.Quantity));
        Assert.True(report.Completed);
        Assert.Equal(3_000, report.Fulfilled);
        Assert.Equal(0, report.Rejected);
        Assert.Equal(expectedUnits, report.ReservedUnits);
        Assert.True(report.Conserved);
        Assert.InRange(report.MaxPendingSeen, 1, 3);
        Assert.Equal(3, monitor.MaxPendingBehaviours);
        Assert.Equal(BocRuntimePhase.Drained, monitor.Phase);
        Assert.Equal("orders-under-test", runtime.Name);   // the Boc section binds every option
    }

    [Fact]
    public async Task With_scarce_stock_orders_are_refused_whole_and_stock_is_conserved()
    {
        string[] args = Args(count: 2_000, products: 4, stock: 300, buffer: 8, maxPending: 16);
        (ProcessingReport report, _, _, _) = await RunAsync(args);

        Assert.True(report.Completed);
        Assert.Equal(2_000, report.Fulfilled + report.Rejected);
        Assert.True(report.Rejected > 0, "the stock was meant to run out");
        Assert.True(report.Conserved, $"reserved {report.ReservedUnits} + remaining {report.RemainingUnits} != {report.InitialUnits}");
        Assert.True(report.RemainingUnits >= 0);
        Assert.InRange(report.MaxPendingSeen, 1, 16);
    }

    private static async Task<(ProcessingReport, BocRuntimeMonitor, OrderStreamOptions, BocRuntime)> RunAsync(string[] args)
    {
        IHost host = WorkerApp.Create(args);
        var report = host.Services.GetRequiredService<ProcessingReport>();
        var monitor = host.Services.GetRequiredService<BocRuntimeMonitor>();
        var options = host.Services.GetRequiredService<OrderStreamOptions>();
        var runtime = host.Services.GetRequiredService<BocRuntime>();
        // The processor stops the host when the stream is done; RunAsync then returns (and disposes the host).
        await host.RunAsync().WaitAsync(Limit);
        return (report, monitor, options, runtime);
    }
}
