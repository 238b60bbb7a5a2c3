using System.Buffers;
using System.Runtime.CompilerServices;

namespace Boc.Benchmarks.Savina.Parallel;

/// <summary>
/// A growable run of <see cref="long"/> values whose storage comes from <see cref="ArrayPool{T}.Shared"/> and goes back
/// to it on <see cref="Release"/>: Quicksort's fragment, in the role of the reference runtime's <c>std::vector</c>.
/// </summary>
/// <remarks>
/// <para>
/// Why pooled: the C++ kernel allocates and frees a vector per fragment, and its allocator hands freed memory straight
/// back. The same kernel over <see cref="List{T}"/> left every fragment to the garbage collector: about 620 MB per run
/// at Paper size, much of it in arrays above the large-object threshold (10,600 values), which cost several gen2
/// collections per run (docs/performance/decisions.md, "Quicksort: the input is not the gap, the garbage is"). Here a
/// fragment's array is returned the moment its values have been copied on, as the C++ kernel frees its vector.
/// </para>
/// <para>
/// The work is the C++ kernel's: values are appended one at a time, growth doubles the capacity and copies (as
/// <c>push_back</c> does), and concatenation copies. Owned by one behaviour or actor at a time, like the cown state it is
/// kept in; not thread-safe.
/// </para>
/// </remarks>
internal sealed class LongBuffer
{
    private const int FirstCapacity = 16;

    private long[] _items;
    private int _count;

    /// <summary>An empty buffer; it rents storage on its first append.</summary>
    public LongBuffer()
    {
        _items = [];
    }

    /// <summary>An empty buffer with room for <paramref name="capacity"/> values.</summary>
    public LongBuffer(int capacity)
    {
        ArgumentOutOfRangeException.ThrowIfNegative(capacity);
        _items = capacity == 0 ? [] : ArrayPool<long>.Shared.Rent(capacity);
    }

    /// <summary>The number of values.</summary>
    public int Count => _count;

    /// <summary>The value at <paramref name="index"/>.</summary>
    public long this[int index]
    {
        get
        {
            ArgumentOutOfRangeException.ThrowIfGreaterThanOrEqual((uint)index, (uint)_count, nameof(index));
            return _items[index];
        }
    }

    /// <summary>The values, valid until the next append or <see cref="Release"/>.</summary>
    public ReadOnlySpan<long> Span => _items.AsSpan(0, _count);

    /// <summary>A buffer holding <paramref name="values"/>.</summary>
    public static LongBuffer From(ReadOnlySpan<long> values)
    {
        var buffer = new LongBuffer(values.Length);
        buffer.AddRange(values);
        return buffer;
    }

    /// <summary>Appends <paramref name="value"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Add(long value)
    {
        long[] items = _items;
        int count = _count;
        if ((uint)count < (uint)items.Length)
        {
            items[count] = value;
            _count = count + 1;
            return;
        }

        AddWithGrowth(value);
    }

    /// <summary>Appends <paramref name="values"/>.</summary>
    public void AddRange(ReadOnlySpan<long> values)
    {
        if (values.IsEmpty)
        {
            return;
        }

        if (_items.Length - _count < values.Length)
        {
            Grow(_count + values.Length);
        }

        values.CopyTo(_items.AsSpan(_count));
        _count += values.Length;
    }

    /// <summary>
    /// Returns the storage to the pool and leaves the buffer empty. The owner calls it once the values have been copied
    /// on; nothing may read a span taken before it.
    /// </summary>
    public void Release()
    {
        long[] items = _items;
        _items = [];
        _count = 0;
        if (items.Length > 0)
        {
            ArrayPool<long>.Shared.Return(items);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void AddWithGrowth(long value)
    {
        Grow(_count + 1);
        _items[_count++] = value;
    }

    private void Grow(int needed)
    {
        int capacity = Math.Max(needed, Math.Max(FirstCapacity, _items.Length * 2));
        long[] larger = ArrayPool<long>.Shared.Rent(capacity);
        long[] old = _items;
        old.AsSpan(0, _count).CopyTo(larger);
        _items = larger;
        if (old.Length > 0)
        {
            ArrayPool<long>.Shared.Return(old);
        }
    }
}
