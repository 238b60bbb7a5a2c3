namespace SeatBooking.Venue;

/// <summary>
/// The venue's operations. Three implementations keep the same state with different concurrency: cowns
/// (<see cref="BocBookingService"/>), ordered locks (<see cref="LockBookingService"/>) and one Channel actor per seat
/// and customer (<see cref="ChannelActorBookingService"/>). Requests are validated before they get here.
/// </summary>
internal interface IBookingService
{
    /// <summary>
    /// Books every seat of the request for its customer, or none of them. <paramref name="cancellationToken"/> is the
    /// request's (the client went away); the Boc implementation also bounds the request with a deadline and then throws
    /// <see cref="TimeoutException"/>, having booked nothing. The other implementations do not stop early.
    /// </summary>
    Task<BookingOutcome> BookAsync(BookingRequest request, CancellationToken cancellationToken);

    /// <summary>
    /// Cancels a booking of a customer: frees its seats and refunds it. False if there is no such booking. The token and
    /// the deadline as for <see cref="BookAsync"/>.
    /// </summary>
    Task<bool> CancelAsync(int customer, long bookingId, CancellationToken cancellationToken);

    /// <summary>Reads the seats from <paramref name="first"/>, <paramref name="count"/> of them.</summary>
    Task<IReadOnlyList<SeatView>> GetSeatsAsync(int first, int count);

    /// <summary>Reads a customer.</summary>
    Task<CustomerView> GetCustomerAsync(int customer);

    /// <summary>Checks the whole venue.</summary>
    Task<Audit> AuditAsync();
}
