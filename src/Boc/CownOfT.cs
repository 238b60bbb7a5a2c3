using System.Diagnostics;

namespace Boc;

/// <summary>
/// A cown (concurrent owner): a piece of isolated state that only behaviours which acquired it can touch.
/// </summary>
/// <typeparam name="T">
/// The type of the state. It is a reference type so that a behaviour's changes to the state persist: a behaviour
/// receives the state object itself, not a copy. To protect a value, wrap it (for example in
/// <see cref="System.Runtime.CompilerServices.StrongBox{T}"/>).
/// </typeparam>
/// <remarks>
/// <para>
/// A cown exposes no way to read or write its state. The only way in is to spawn a behaviour with
/// <c>When(cown, state =&gt; …)</c>; the behaviour runs when it holds every cown it asked for, and has exclusive
/// access to them (or shared access, for cowns acquired through <see cref="Cown.Read{T}(Cown{T})"/>) until its body
/// returns.
/// </para>
/// <para>
/// Creating a cown transfers ownership of <c>state</c> to it: code that keeps another reference to the state
/// object and uses it outside a behaviour defeats the isolation BoC relies on.
/// </para>
/// </remarks>
[DebuggerDisplay("{DebuggerDisplay,nq}")]
[DebuggerTypeProxy(typeof(Diagnostics.CownDebugView<>))]
public sealed class Cown<T> : Cown, IAcquirable<T>
    where T : class
{
    private ReadOnlyCown<T>? _readOnly;

    /// <summary>Creates a cown that owns <paramref name="state"/>.</summary>
    /// <param name="state">The state to protect. Ownership passes to the cown.</param>
    /// <exception cref="ArgumentNullException"><paramref name="state"/> is null.</exception>
    public Cown(T state)
        : base(state ?? throw new ArgumentNullException(nameof(state)), null)
    {
    }

    /// <summary>Creates a cown that owns <paramref name="state"/>, with a name for logs, spans and traces.</summary>
    /// <param name="state">The state to protect. Ownership passes to the cown.</param>
    /// <param name="name">
    /// The cown's name (<see cref="Cown.Name"/>), or null for none: what logs, exceptions, behaviour spans and Boc.Testing's
    /// traces call it (<c>alice#15</c> instead of <c>Cown#15</c>). It need not be unique. It costs the cown no memory and a
    /// spawn nothing.
    /// </param>
    /// <exception cref="ArgumentNullException"><paramref name="state"/> is null.</exception>
    /// <exception cref="ArgumentException"><paramref name="name"/> is empty or white space.</exception>
    public Cown(T state, string? name)
        : base(state ?? throw new ArgumentNullException(nameof(state)), name)
    {
    }

    internal ReadOnlyCown<T> ReadOnlyView
    {
        get
        {
            // Racing creators may both allocate; CompareExchange keeps the first so every caller sees one view.
            return _readOnly ?? Atomic.CompareExchange(ref _readOnly, new ReadOnlyCown<T>(this), null) ?? _readOnly;
        }
    }

    Cown IAcquirable<T>.Cown => this;

    bool IAcquirable<T>.IsReadOnly => false;
}
