using System.Buffers;

namespace Boc.Benchmarks.Savina.Concurrency;

/// <summary>
/// A first-in first-out queue whose storage comes from <see cref="ArrayPool{T}.Shared"/> and goes back to it when the
/// queue grows and on <see cref="Release"/>: a stash, in the role of the reference runtime's <c>std::deque</c>.
/// </summary>
/// <remarks>
/// <para>
/// Why pooled: the C++ kernels stash into a <c>std::deque</c>, whose blocks their allocator recycles at once. A
/// <see cref="Queue{T}"/> per actor per run left every grown array to the garbage collector: Logistic Map's workers stash
/// up to 25,000 messages each, and the doubling arrays (up to 512 KB, above the large-object threshold) cost 1.5 to 2
/// gen2 collections per run (docs/performance/decisions.md, "Logistic Map: the stash's garbage").
/// </para>
/// <para>
/// The work is a growable ring's: an enqueue stores one value, growth doubles the capacity and copies in order, as
/// <see cref="Queue{T}"/> does. Owned by one behaviour or actor at a time, like the state it is kept in; not thread-safe.
/// </para>
/// </remarks>
/// <typeparam name="T">The element type (unmanaged values: the pool's arrays are not cleared).</typeparam>
internal sealed class PooledQueue<T>
    where T : unmanaged
{
    private const int FirstCapacity = 16;

    private T[] _items = [];
    private int _head;
    private int _count;

    /// <summary>The number of values queued.</summary>
    public int Count => _count;

    /// <summary>Adds <paramref name="value"/> at the back.</summary>
    public void Enqueue(T value)
    {
        if (_count == _items.Length)
        {
            Grow();
        }

        int tail = _head + _count;
        if (tail >= _items.Length)
        {
            tail -= _items.Length;
        }

        _items[tail] = value;
        _count++;
    }

    /// <summary>Removes and returns the value at the front.</summary>
    /// <exception cref="InvalidOperationException">The queue is empty.</exception>
    public T Dequeue()
    {
        if (_count == 0)
        {
            throw new InvalidOperationException("The queue is empty.");
        }

        T value = _items[_head];
        _head = _head + 1 == _items.Length ? 0 : _head + 1;
        _count--;
        return value;
    }

    /// <summary>Returns the storage to the pool; the queue is empty afterwards and may be used again.</summary>
    public void Release()
    {
        if (_items.Length > 0)
        {
            ArrayPool<T>.Shared.Return(_items);
        }

        _items = [];
        _head = 0;
        _count = 0;
    }

    private void Grow()
    {
        // A rented array may be longer than asked for: the ring uses all of it.
        T[] larger = ArrayPool<T>.Shared.Rent(Math.Max(FirstCapacity, _items.Length * 2));
        int firstPart = Math.Min(_count, _items.Length - _head);
        Array.Copy(_items, _head, larger, 0, firstPart);
        Array.Copy(_items, 0, larger, firstPart, _count - firstPart);
        if (_items.Length > 0)
        {
            ArrayPool<T>.Shared.Return(_items);
        }

        _items = larger;
        _head = 0;
    }
}
