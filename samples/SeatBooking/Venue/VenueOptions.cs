namespace SeatBooking.Venue;

/// <summary>The size of the venue and its prices; section "Venue" of the configuration.</summary>
internal sealed class VenueOptions
{
    /// <summary>Gets or sets the number of seats (numbered from 0).</summary>
    public int Seats { get; set; } = 600;

    /// <summary>Gets or sets the number of customers (numbered from 0).</summary>
    public int Customers { get; set; } = 100;

    /// <summary>Gets or sets what one seat costs.</summary>
    public long SeatPrice { get; set; } = 10;

    /// <summary>Gets or sets what each customer has at the start.</summary>
    public long InitialBalance { get; set; } = 1_000;

    /// <summary>Gets or sets the most seats one booking may take.</summary>
    public int MaxSeatsPerBooking { get; set; } = 8;

    /// <summary>
    /// Gets or sets how long pricing a booking takes, in microseconds of CPU work done while the booking holds its seats
    /// and customer (0, the default: none). The load generator's contended mode sets it.
    /// </summary>
    public int PricingMicroseconds { get; set; }

    /// <summary>
    /// Gets or sets how long a booking or a cancellation may take, in milliseconds (0: no limit). The Boc implementation
    /// bounds each such request with a scope and this deadline: what the request has not started when it passes is
    /// withdrawn, and the request is answered 503.
    /// </summary>
    public int RequestTimeoutMilliseconds { get; set; } = 5_000;

    /// <summary>Gets or sets which implementation serves the requests: boc, lock or channel.</summary>
    public string Implementation { get; set; } = "boc";
}
