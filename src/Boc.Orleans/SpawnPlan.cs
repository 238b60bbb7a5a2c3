namespace Boc.Orleans;

/// <summary>
/// The cowns of one spawn: each argument's entry, duplicates merged (acquired once, as a write if any occurrence
/// writes) and the distinct entries sorted in the global order. Built and validated before anything is sent.
/// </summary>
internal sealed class SpawnPlan
{
    private readonly BocCluster _cluster;
    private readonly List<CownEntry> _arguments = [];
    private readonly Dictionary<string, CownEntry> _distinct = new(StringComparer.Ordinal);

    public SpawnPlan(BocCluster cluster) => _cluster = cluster;

    /// <summary>The distinct cowns in the global order (by <see cref="CownEntry.SortKey"/>, ordinal).</summary>
    public CownEntry[] Entries { get; private set; } = [];

    /// <summary>The first written cown in the global order, which keeps the commit decision; null if nothing is written.</summary>
    public CownEntry? Coordinator { get; private set; }

    public void Add<T>(ClusterAcquirable<T>? cown, string parameterName)
        where T : class, new()
    {
        ArgumentNullException.ThrowIfNull(cown, parameterName);
        ClusterCown<T> target = cown.Target;
        _cluster.CheckOwner(target, parameterName);

        if (_distinct.TryGetValue(target.SortKey, out CownEntry? entry))
        {
            entry.Write |= !cown.IsReadOnly;
        }
        else
        {
            entry = new CownEntry<T>(target, !cown.IsReadOnly);
            _distinct.Add(target.SortKey, entry);
        }

        _arguments.Add(entry);
    }

    public void AddAll<T>(IReadOnlyList<ClusterAcquirable<T>>? cowns, string parameterName)
        where T : class, new()
    {
        ArgumentNullException.ThrowIfNull(cowns, parameterName);
        if (cowns.Count == 0)
        {
            throw new ArgumentException("A behaviour needs at least one cown.", parameterName);
        }

        for (int i = 0; i < cowns.Count; i++)
        {
            if (cowns[i] is null)
            {
                throw new ArgumentException($"The cown at index {i} is null.", parameterName);
            }

            Add(cowns[i], parameterName);
        }
    }

    public SpawnPlan Build()
    {
        CownEntry[] entries = [.. _distinct.Values];
        Array.Sort(entries, static (x, y) => string.CompareOrdinal(x.SortKey, y.SortKey));
        Entries = entries;
        Coordinator = Array.Find(entries, e => e.Write);

        // Before anything is sent: a spawn that would queue behind a body it runs inside is refused.
        HeldCowns.ThrowIfHeld(entries);
        return this;
    }

    /// <summary>The cowns, as messages and logs name them.</summary>
    public string Describe() => string.Join(", ", Entries.Select(e => e.Name));

    /// <summary>The state the current attempt was granted for the argument at <paramref name="index"/>.</summary>
    public T Arg<T>(int index) => (T)_arguments[index].State!;

    public IReadOnlyList<T> Args<T>()
    {
        var states = new T[_arguments.Count];
        for (int i = 0; i < states.Length; i++)
        {
            states[i] = Arg<T>(i);
        }

        return states;
    }
}
