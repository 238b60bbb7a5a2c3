namespace Boc;

/// <summary>
/// Something a behaviour can acquire: a <see cref="Cown{T}"/> (for reading and writing) or a
/// <see cref="ReadOnlyCown{T}"/> (for reading only).
/// </summary>
/// <typeparam name="T">The type of state the behaviour's body receives.</typeparam>
/// <remarks>
/// Only the Boc library implements this interface: its members are internal, so other assemblies cannot implement
/// it. It exists so that read and write acquisitions can be mixed freely in one <c>When</c>.
/// </remarks>
public interface IAcquirable<out T>
    where T : class
{
    /// <summary>Gets the cown to acquire.</summary>
    internal Cown Cown { get; }

    /// <summary>Gets whether the behaviour only reads the cown.</summary>
    internal bool IsReadOnly { get; }
}
