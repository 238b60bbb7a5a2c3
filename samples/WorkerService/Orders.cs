using System.Threading.Channels;

namespace WorkerService;

/// <summary>An order: quantities of several products, to be reserved all or none.</summary>
/// <param name="Id">The order's number in the stream.</param>
/// <param name="Lines">Product and quantity, each product at most once.</param>
internal sealed record Order(int Id, (int Product, int Quantity)[] Lines);

/// <summary>The stream's settings; section "Orders" of the configuration.</summary>
internal sealed class OrderStreamOptions
{
    /// <summary>Gets or sets how many orders the stream has.</summary>
    public int Count { get; set; } = 20_000;

    /// <summary>Gets or sets how many products there are.</summary>
    public int Products { get; set; } = 50;

    /// <summary>Gets or sets each product's stock at the start.</summary>
    public int InitialStock { get; set; } = 2_000;

    /// <summary>Gets or sets how many orders may wait between the source and the processor.</summary>
    public int BufferCapacity { get; set; } = 256;

    /// <summary>Gets or sets the seed of the order stream.</summary>
    public int Seed { get; set; } = 7;
}

/// <summary>
/// The bounded buffer between the source and the processor: when it is full, the source's write waits. With the
/// runtime's bound on pending behaviours (Boc:MaxPendingBehaviours), which the processor waits on, that makes the whole
/// pipeline hold at most BufferCapacity + MaxPendingBehaviours orders (and one in the processor's hands), however fast
/// the source is.
/// </summary>
internal sealed class OrderBuffer(OrderStreamOptions options)
{
    public Channel<Order> Channel { get; } = System.Threading.Channels.Channel.CreateBounded<Order>(
        new BoundedChannelOptions(options.BufferCapacity) { FullMode = BoundedChannelFullMode.Wait, SingleReader = true, SingleWriter = true });
}

/// <summary>What the processor did, for the log, the exit code and the tests.</summary>
internal sealed class ProcessingReport
{
    private long _maxPending;
    private int _fulfilled;
    private int _rejected;

    public int Fulfilled => Volatile.Read(ref _fulfilled);

    public int Rejected => Volatile.Read(ref _rejected);

    /// <summary>Gets the highest <see cref="Boc.BocRuntime.PendingCount"/> a reservation saw while it ran.</summary>
    public long MaxPendingSeen => Volatile.Read(ref _maxPending);

    public long ReservedUnits { get; set; }

    public long RemainingUnits { get; set; }

    public long InitialUnits { get; set; }

    public bool Completed { get; set; }

    public bool Conserved => Completed && ReservedUnits + RemainingUnits == InitialUnits;

    /// <summary>Records a reservation's outcome and the runtime's pending count it saw.</summary>
    public void Finished(bool fulfilled, long pending)
    {
        long max;
        while (pending > (max = Volatile.Read(ref _maxPending)) && Interlocked.CompareExchange(ref _maxPending, pending, max) != max)
        {
        }

        Interlocked.Increment(ref fulfilled ? ref _fulfilled : ref _rejected);
    }
}
