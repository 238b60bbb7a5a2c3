using Boc;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace WorkerService;

/// <summary>
/// Reads orders from the buffer and reserves each one's stock in one behaviour over the cowns of its products: all lines
/// or none, with no lock and no deadlock between orders that share products. The runtime's bound
/// (<c>Boc:MaxPendingBehaviours</c>) limits how many orders are in behaviours at once: when that many are pending,
/// <c>TryWhen</c> refuses, the processor waits for room without blocking a thread and reads nothing meanwhile, the
/// buffer fills, and the source waits. When the stream ends, it waits for the last reservations, checks that every unit
/// is either reserved or still in stock, and stops the host.
/// </summary>
internal sealed class OrderProcessor(
    BocRuntime runtime, OrderBuffer buffer, OrderStreamOptions options, ProcessingReport report,
    IHostApplicationLifetime lifetime, ILogger<OrderProcessor> logger) : BackgroundService
{
    private readonly Cown<Stock>[] _stock = Enumerable.Range(0, options.Products).Select(_ => new Cown<Stock>(new Stock(options.InitialStock))).ToArray();

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        await foreach (Order order in buffer.Channel.Reader.ReadAllAsync(stoppingToken))
        {
            // Backpressure: a full runtime refuses the spawn; wait until a reservation finishes, then try again.
            while (!TrySpawnReservation(order))
            {
                await runtime.WaitForRoomAsync(stoppingToken);
            }
        }

        // Every order is spawned; this processor is the runtime's only producer, so quiescence means all are done.
        await runtime.WaitForQuiescenceAsync(stoppingToken);
        await AuditAsync();
        LogDone(logger, report.Fulfilled, report.Rejected, report.MaxPendingSeen, report.Conserved, null);
        lifetime.StopApplication();
    }

    /// <summary>Spawns the order's reservation unless the runtime is full (then nothing is spawned).</summary>
    private bool TrySpawnReservation(Order order)
    {
        // A new state object per attempt, handed over whole to the one behaviour that takes it.
        var reservation = new Reservation(
            order.Lines.Select(l => (IAcquirable<Stock>)_stock[l.Product]).ToArray(), order.Lines.Select(l => l.Quantity).ToArray(), runtime, report);
        return runtime.TryWhen(reservation.Cowns, static (stock, r) => r.Reserve(stock), reservation);
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

    private static readonly Action<ILogger, int, int, long, bool, Exception?> LogDone = LoggerMessage.Define<int, int, long, bool>(
        LogLevel.Information, new EventId(1, "StreamDone"),
        "Stream done: {Fulfilled} orders fulfilled, {Rejected} rejected for lack of stock, at most {MaxPending} behaviours pending; stock conserved: {Conserved}.");

    /// <summary>One order's reservation: the state of its behaviour, whose body is <see cref="Reserve"/>.</summary>
    private sealed record Reservation(IAcquirable<Stock>[] Cowns, int[] Quantities, BocRuntime Runtime, ProcessingReport Report)
    {
        /// <summary>Reserves every line, or none if one product lacks stock; the body holds all the order's products.</summary>
        public void Reserve(IReadOnlyList<Stock> stock)
        {
            bool fulfilled = true;
            for (int i = 0; i < stock.Count && fulfilled; i++)
            {
                fulfilled = stock[i].Available >= Quantities[i];
            }

            if (fulfilled)
            {
                for (int i = 0; i < stock.Count; i++)
                {
                    stock[i].Available -= Quantities[i];
                    stock[i].Reserved += Quantities[i];
                }
            }

            // This behaviour is pending until it returns, so the count includes it: at least 1, at most the bound.
            Report.Finished(fulfilled, Runtime.PendingCount);
        }
    }

    /// <summary>One product's stock.</summary>
    private sealed class Stock(int available)
    {
        public int Available { get; set; } = available;

        public int Reserved { get; set; }
    }
}
