namespace Boc;

/// <summary>
/// A request for read-only access to a cown, made with <see cref="Cown.Read{T}(Cown{T})"/>. Pass it to <c>When</c>
/// wherever a cown is accepted.
/// </summary>
/// <typeparam name="T">The type of the cown's state.</typeparam>
/// <remarks>
/// Behaviours that acquire a cown read-only may run concurrently with each other, so their bodies must not mutate
/// the state (the Boc analyzer reports writes through a read-only acquisition). A behaviour that acquires the same cown
/// for writing is ordered with the readers by spawn order, and runs alone.
/// </remarks>
public sealed class ReadOnlyCown<T> : IAcquirable<T>, IReadOnlyRequest
    where T : class
{
    internal ReadOnlyCown(Cown<T> cown) => Target = cown;

    /// <summary>Gets the cown this request reads.</summary>
    public Cown<T> Target { get; }

    Cown IAcquirable<T>.Cown => Target;

    Cown IReadOnlyRequest.Cown => Target;

    bool IAcquirable<T>.IsReadOnly => true;

    /// <inheritdoc/>
    public override string ToString() => $"Read({Target})";
}
