namespace Boc.Orleans;

/// <summary>
/// The cowns held by the bodies a call runs inside, carried in Orleans' <see cref="RequestContext"/>: it flows through
/// the body's awaits and into the grain calls the body makes, so a spawn from a grain called by a body knows it too.
/// A spawn that needs a cown one of them holds (and where either writes it) would queue behind that body, which cannot
/// end before the spawn's task does if it awaits it: WhenAsync refuses it at once (docs/distributed.md, "Waiting
/// inside a body").
/// </summary>
internal static class HeldCowns
{
    private const string Key = "boc.held";

    /// <summary>Makes <paramref name="entries"/> held for the body about to run; dispose to restore.</summary>
    public static Scope Enter(CownEntry[] entries)
    {
        object? outer = RequestContext.Get(Key);
        var held = new List<string>(outer is string[] o ? o : []);
        foreach (CownEntry entry in entries)
        {
            held.Add((entry.Write ? "w" : "r") + entry.SortKey);
        }

        RequestContext.Set(Key, held.ToArray());
        return new Scope(outer);
    }

    /// <summary>Throws if a body this call runs inside holds a cown of <paramref name="entries"/> that either side writes.</summary>
    public static void ThrowIfHeld(CownEntry[] entries)
    {
        if (RequestContext.Get(Key) is not string[] held)
        {
            return;
        }

        foreach (CownEntry entry in entries)
        {
            foreach (string h in held)
            {
                if (h.AsSpan(1).SequenceEqual(entry.SortKey) && (entry.Write || h[0] == 'w'))
                {
                    throw new InvalidOperationException(
                        $"This behaviour needs {entry.Name}, which a body it is spawned from holds: it would run only after that body ends, so a body that awaits it would wait forever. Spawn it after the body, or outside it.");
                }
            }
        }
    }

    internal readonly struct Scope(object? outer) : IDisposable
    {
        public void Dispose()
        {
            if (outer is null)
            {
                RequestContext.Remove(Key);
            }
            else
            {
                RequestContext.Set(Key, outer);
            }
        }
    }
}
