using System.Runtime.CompilerServices;

namespace Boc;

/// <summary>
/// What a <c>When</c> argument (<see cref="IAcquirable{T}"/>) requests: which cown, and whether read-only.
/// </summary>
/// <remarks>
/// Asking the argument itself is two interface calls, and in the spawn path's shared generic code (every cown state type
/// is a reference type) neither is devirtualized: each goes through a virtual stub dispatch, a visible share of a
/// flood's samples (docs/performance/decisions.md, "Cown and mode read without interface calls"). Only <see
/// cref="Cown{T}"/> and <see cref="ReadOnlyCown{T}"/> implement the interface (its members are internal), so a class
/// test on the non-generic <see cref="Boc.Cown"/> answers the common case with no dispatch, and needs no generic
/// context (which, in shared code, is a runtime lookup too).
/// </remarks>
internal static class Acquisition
{
    /// <summary>Gets the cown that <paramref name="acquirable"/> (an <see cref="IAcquirable{T}"/>) names, and whether it reads.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal static Cown CownOf(object acquirable, out bool read)
    {
        if (acquirable is Cown cown)
        {
            read = false;
            return cown;
        }

        // A checked cast (the read path only): a third implementation would fail here loudly, not dispatch wrongly.
        read = true;
        return ((IReadOnlyRequest)acquirable).Cown;
    }
}

/// <summary>A read-only request (<see cref="ReadOnlyCown{T}"/>), seen without its type argument.</summary>
internal interface IReadOnlyRequest
{
    /// <summary>Gets the cown read.</summary>
    Cown Cown { get; }
}
