using Boc;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace WorkerService;

/// <summary>
/// Reads orders from the buffer and reserves each one's stock in one behaviour over the cowns of its products: all lines
/// or none, with no lock and no deadlock between orders that share products. At most MaxInFlight orders are in
/// behaviours at once; when that many are, the processor stops reading, the buffer fills, and the source waits. When
/// the stream ends, it checks that every unit is either reserved or still in stock, and stops the host.
/// </summary>
internal sealed class OrderProcessor(
    BocRuntime runtime, OrderBuffer buffer, OrderStreamOptions options, ProcessingReport report,
    IHostApplicationLifetime lifetime, ILogger<OrderProcessor> logger) : BackgroundService
{
    private readonly Cown<Stock>[] _stock = Enumerable.Range(0, options.Products).Select(_ => new Cown<Stock>(new Stock(options.InitialStock))).ToArray();

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        using var slots = new SemaphoreSlim(options.MaxInFlight);
        var inFlight = new List<Task>();
        await foreach (Order order in buffer.Channel.Reader.ReadAllAsync(stoppingToken))
        {
            // Backpressure: wait for a free slot before taking more work into behaviours.
            await slots.WaitAsync(stoppingToken);
            report.Started();
            inFlight.Add(ReserveAsync(order, slots));
            if (inFlight.Count >= 4 * options.MaxInFlight)
            {
                inFlight.RemoveAll(t => t.IsCompleted);
            }
        }

        await Task.WhenAll(inFlight);
        await AuditAsync();
        LogDone(logger, report.Fulfilled, report.Rejected, report.MaxInFlightSeen, report.Conserved, null);
        lifetime.StopApplication();
    }

    private async Task ReserveAsync(Order order, SemaphoreSlim slots)
    {
        bool fulfilled = false;
        try
        {
            var cowns = order.Lines.Select(l => (IAcquirable<Stock>)_stock[l.Product]).ToArray();
            int[] quantities = order.Lines.Select(l => l.Quantity).ToArray();
            fulfilled = await runtime.WhenAsync(cowns, static (stock, quantities) =>
            {
                for (int i = 0; i < stock.Count; i++)
                {
                    if (stock[i].Available < quantities[i])
                    {
                        return false;
                    }
                }

                for (int i = 0; i < stock.Count; i++)
                {
                    stock[i].Available -= quantities[i];
                    stock[i].Reserved += quantities[i];
                }

                return true;
            }, quantities);
        }
        finally
        {
            report.Finished(fulfilled);
            slots.Release();
        }
    }

    private async Task AuditAsync()
    {
        // Every product read at one moment, read-only.
        var all = _stock.Select(s => (IAcquirable<Stock>)Cown.Read(s)).ToArray();
        (long reserved, long remaining) = await runtime.WhenAsync(all, static stock => (stock.Sum(s => (long)s.Reserved), stock.Sum(s => (long)s.Available)));
        report.ReservedUnits = reserved;
        report.RemainingUnits = remaining;
        report.InitialUnits = (long)options.Products * options.InitialStock;
        report.Completed = true;
    }

    private static readonly Action<ILogger, int, int, int, bool, Exception?> LogDone = LoggerMessage.Define<int, int, int, bool>(
        LogLevel.Information, new EventId(1, "StreamDone"),
        "Stream done: {Fulfilled} orders fulfilled, {Rejected} rejected for lack of stock, at most {MaxInFlight} in flight; stock conserved: {Conserved}.");

    /// <summary>One product's stock.</summary>
    private sealed class Stock(int available)
    {
        public int Available { get; set; } = available;

        public int Reserved { get; set; }
    }
}
