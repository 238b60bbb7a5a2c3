using Microsoft.Extensions.Hosting;

namespace WorkerService;

/// <summary>
/// Produces the order stream (a seeded stand-in for a queue or a socket) into the bounded buffer, as fast as the buffer
/// takes it: a full buffer makes <c>WriteAsync</c> wait, which is the backpressure.
/// </summary>
internal sealed class OrderSource(OrderBuffer buffer, OrderStreamOptions options) : BackgroundService
{
    /// <summary>The stream: the same orders for the same options, whoever asks.</summary>
    public static IEnumerable<Order> Generate(OrderStreamOptions options)
    {
        var random = new Random(options.Seed);
        for (int id = 0; id < options.Count; id++)
        {
            int lines = Math.Min(random.Next(1, 4), options.Products);
            var products = new HashSet<int>();
            while (products.Count < lines)
            {
                products.Add(random.Next(options.Products));
            }

            yield return new Order(id, products.Select(p => (p, random.Next(1, 6))).ToArray());
        }
    }

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        try
        {
            foreach (Order order in Generate(options))
            {
                await buffer.Channel.Writer.WriteAsync(order, stoppingToken);
            }
        }
        finally
        {
            buffer.Channel.Writer.TryComplete();
        }
    }
}
