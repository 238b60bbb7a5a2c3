using System.Diagnostics;

namespace Boc;

/// <summary>
/// Failures kept to be reported together later: the first <see cref="BocRuntime.MaxKeptExceptions"/>, and a count of
/// the rest, so that a program that keeps failing without ever looking does not grow without bound. A mutable struct
/// kept inside its owner (a runtime's <see cref="UnobservedErrors"/>, a <see cref="BocScope"/>), never copied, and used
/// under the owner's lock; its list is created by the first failure, so an owner that never fails allocates nothing.
/// </summary>
internal struct KeptFailures
{
    private List<Exception>? _kept;
    private long _dropped;

    /// <summary>Keeps <paramref name="error"/>, or only counts it once the list is full.</summary>
    public void Add(Exception error)
    {
        _kept ??= [];
        if (_kept.Count < BocRuntime.MaxKeptExceptions)
        {
            _kept.Add(error);
        }
        else
        {
            _dropped++;
        }

        Debug.Assert(_kept.Count <= BocRuntime.MaxKeptExceptions, "Boc error: more failures kept than the bound.");
    }

    /// <summary>
    /// The failures as one exception, or null if there were none: <paramref name="lead"/> (what threw) is its message,
    /// with how many were kept and how many only counted when some were dropped.
    /// </summary>
    public readonly AggregateException? ToException(string lead)
    {
        if (_kept is not { Count: > 0 } kept)
        {
            return null;
        }

        string message = _dropped == 0
            ? $"{lead}."
            : $"{lead}: the first {kept.Count} are kept, and {_dropped} more were counted but not kept.";
        return new AggregateException(message, kept);
    }
}
