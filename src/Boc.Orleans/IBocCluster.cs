namespace Boc.Orleans;

/// <summary>
/// Spawns distributed behaviours: Boc's <c>WhenAsync</c> over cowns kept by grains of an Orleans cluster. Registered
/// by <c>AddBocCowns</c> on silos and clients; inject it into grains, services or client code.
/// </summary>
/// <remarks>
/// A behaviour runs once it holds all its cowns, at the caller, on private copies of their states; its writes are
/// committed all or nothing, and its task completes after the commit. Behaviours spawned from one
/// <see cref="IBocCluster"/> that share a cown run in call order, whether or not the earlier one was awaited. If the body
/// throws, the cowns are released unchanged and the exception surfaces here. A body that returns a value binds to the
/// result-returning overload (an expression lambda such as <c>a =&gt; a.Count++</c> included): await it either way.
/// See docs/distributed.md.
/// </remarks>
public interface IBocCluster
{
    /// <summary>Gets a handle to the cown of type <typeparamref name="T"/> named <paramref name="key"/>.</summary>
    /// <typeparam name="T">The type of the cown's state: a class Orleans can serialize.</typeparam>
    /// <param name="key">The cown's key.</param>
    /// <returns>The handle; every handle with the same type and key names the same cown.</returns>
    /// <exception cref="ArgumentException"><paramref name="key"/> is null or empty.</exception>
    ClusterCown<T> Cown<T>(string key)
        where T : class, new();

    /// <summary>Spawns a behaviour over 1 cown and returns when it has run and committed.</summary>
    /// <typeparam name="T1">The type of the first cown's state.</typeparam>
    /// <param name="c1">The first cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="body">The body: receives the cowns' states, and runs at the caller once every cown is granted.</param>
    /// <returns>A task that completes once the body has run and its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task WhenAsync<T1>(ClusterAcquirable<T1> c1, Action<T1> body)
        where T1 : class, new();

    /// <summary>Spawns a behaviour over 1 cown and returns when it has run and committed.</summary>
    /// <typeparam name="T1">The type of the first cown's state.</typeparam>
    /// <typeparam name="TResult">The type of the body's result.</typeparam>
    /// <param name="c1">The first cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="body">The body: receives the cowns' states, and runs at the caller once every cown is granted.</param>
    /// <returns>The body's result, once its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task<TResult> WhenAsync<T1, TResult>(ClusterAcquirable<T1> c1, Func<T1, TResult> body)
        where T1 : class, new();

    /// <summary>Spawns a behaviour over 1 cown and returns when it has run and committed.</summary>
    /// <typeparam name="T1">The type of the first cown's state.</typeparam>
    /// <param name="c1">The first cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="body">The asynchronous body: receives the cowns' states; the cowns stay held until its task completes.</param>
    /// <returns>A task that completes once the body has run and its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task WhenAsync<T1>(ClusterAcquirable<T1> c1, Func<T1, Task> body)
        where T1 : class, new();

    /// <summary>Spawns a behaviour over 1 cown and returns when it has run and committed.</summary>
    /// <typeparam name="T1">The type of the first cown's state.</typeparam>
    /// <typeparam name="TResult">The type of the body's result.</typeparam>
    /// <param name="c1">The first cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="body">The asynchronous body: receives the cowns' states; the cowns stay held until its task completes.</param>
    /// <returns>The body's result, once its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task<TResult> WhenAsync<T1, TResult>(ClusterAcquirable<T1> c1, Func<T1, Task<TResult>> body)
        where T1 : class, new();

    /// <summary>Spawns a behaviour over 2 cowns and returns when it has run and committed.</summary>
    /// <typeparam name="T1">The type of the first cown's state.</typeparam>
    /// <typeparam name="T2">The type of the second cown's state.</typeparam>
    /// <param name="c1">The first cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="c2">The second cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="body">The body: receives the cowns' states, and runs at the caller once every cown is granted.</param>
    /// <returns>A task that completes once the body has run and its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task WhenAsync<T1, T2>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Action<T1, T2> body)
        where T1 : class, new()
        where T2 : class, new();

    /// <summary>Spawns a behaviour over 2 cowns and returns when it has run and committed.</summary>
    /// <typeparam name="T1">The type of the first cown's state.</typeparam>
    /// <typeparam name="T2">The type of the second cown's state.</typeparam>
    /// <typeparam name="TResult">The type of the body's result.</typeparam>
    /// <param name="c1">The first cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="c2">The second cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="body">The body: receives the cowns' states, and runs at the caller once every cown is granted.</param>
    /// <returns>The body's result, once its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task<TResult> WhenAsync<T1, T2, TResult>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Func<T1, T2, TResult> body)
        where T1 : class, new()
        where T2 : class, new();

    /// <summary>Spawns a behaviour over 2 cowns and returns when it has run and committed.</summary>
    /// <typeparam name="T1">The type of the first cown's state.</typeparam>
    /// <typeparam name="T2">The type of the second cown's state.</typeparam>
    /// <param name="c1">The first cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="c2">The second cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="body">The asynchronous body: receives the cowns' states; the cowns stay held until its task completes.</param>
    /// <returns>A task that completes once the body has run and its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task WhenAsync<T1, T2>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Func<T1, T2, Task> body)
        where T1 : class, new()
        where T2 : class, new();

    /// <summary>Spawns a behaviour over 2 cowns and returns when it has run and committed.</summary>
    /// <typeparam name="T1">The type of the first cown's state.</typeparam>
    /// <typeparam name="T2">The type of the second cown's state.</typeparam>
    /// <typeparam name="TResult">The type of the body's result.</typeparam>
    /// <param name="c1">The first cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="c2">The second cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="body">The asynchronous body: receives the cowns' states; the cowns stay held until its task completes.</param>
    /// <returns>The body's result, once its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task<TResult> WhenAsync<T1, T2, TResult>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, Func<T1, T2, Task<TResult>> body)
        where T1 : class, new()
        where T2 : class, new();

    /// <summary>Spawns a behaviour over 3 cowns and returns when it has run and committed.</summary>
    /// <typeparam name="T1">The type of the first cown's state.</typeparam>
    /// <typeparam name="T2">The type of the second cown's state.</typeparam>
    /// <typeparam name="T3">The type of the third cown's state.</typeparam>
    /// <param name="c1">The first cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="c2">The second cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="c3">The third cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="body">The body: receives the cowns' states, and runs at the caller once every cown is granted.</param>
    /// <returns>A task that completes once the body has run and its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task WhenAsync<T1, T2, T3>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, ClusterAcquirable<T3> c3, Action<T1, T2, T3> body)
        where T1 : class, new()
        where T2 : class, new()
        where T3 : class, new();

    /// <summary>Spawns a behaviour over 3 cowns and returns when it has run and committed.</summary>
    /// <typeparam name="T1">The type of the first cown's state.</typeparam>
    /// <typeparam name="T2">The type of the second cown's state.</typeparam>
    /// <typeparam name="T3">The type of the third cown's state.</typeparam>
    /// <typeparam name="TResult">The type of the body's result.</typeparam>
    /// <param name="c1">The first cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="c2">The second cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="c3">The third cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="body">The body: receives the cowns' states, and runs at the caller once every cown is granted.</param>
    /// <returns>The body's result, once its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task<TResult> WhenAsync<T1, T2, T3, TResult>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, ClusterAcquirable<T3> c3, Func<T1, T2, T3, TResult> body)
        where T1 : class, new()
        where T2 : class, new()
        where T3 : class, new();

    /// <summary>Spawns a behaviour over 3 cowns and returns when it has run and committed.</summary>
    /// <typeparam name="T1">The type of the first cown's state.</typeparam>
    /// <typeparam name="T2">The type of the second cown's state.</typeparam>
    /// <typeparam name="T3">The type of the third cown's state.</typeparam>
    /// <param name="c1">The first cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="c2">The second cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="c3">The third cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="body">The asynchronous body: receives the cowns' states; the cowns stay held until its task completes.</param>
    /// <returns>A task that completes once the body has run and its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task WhenAsync<T1, T2, T3>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, ClusterAcquirable<T3> c3, Func<T1, T2, T3, Task> body)
        where T1 : class, new()
        where T2 : class, new()
        where T3 : class, new();

    /// <summary>Spawns a behaviour over 3 cowns and returns when it has run and committed.</summary>
    /// <typeparam name="T1">The type of the first cown's state.</typeparam>
    /// <typeparam name="T2">The type of the second cown's state.</typeparam>
    /// <typeparam name="T3">The type of the third cown's state.</typeparam>
    /// <typeparam name="TResult">The type of the body's result.</typeparam>
    /// <param name="c1">The first cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="c2">The second cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="c3">The third cown, or a <see cref="BocCluster.Read{T}(ClusterCown{T})"/> request.</param>
    /// <param name="body">The asynchronous body: receives the cowns' states; the cowns stay held until its task completes.</param>
    /// <returns>The body's result, once its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task<TResult> WhenAsync<T1, T2, T3, TResult>(ClusterAcquirable<T1> c1, ClusterAcquirable<T2> c2, ClusterAcquirable<T3> c3, Func<T1, T2, T3, Task<TResult>> body)
        where T1 : class, new()
        where T2 : class, new()
        where T3 : class, new();

    /// <summary>Spawns a behaviour over a list of cowns (duplicates acquired once) and returns when it has run and committed.</summary>
    /// <typeparam name="T">The type of the cowns' states.</typeparam>
    /// <param name="cowns">The cowns (or <see cref="BocCluster.Read{T}(ClusterCown{T})"/> requests); at least one.</param>
    /// <param name="body">The body: receives their states, in the order of <paramref name="cowns"/>, and runs at the caller once every cown is granted.</param>
    /// <returns>A task that completes once the body has run and its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection, or the list is empty or holds null.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task WhenAsync<T>(IReadOnlyList<ClusterAcquirable<T>> cowns, Action<IReadOnlyList<T>> body)
        where T : class, new();

    /// <summary>Spawns a behaviour over a list of cowns (duplicates acquired once) and returns when it has run and committed.</summary>
    /// <typeparam name="T">The type of the cowns' states.</typeparam>
    /// <typeparam name="TResult">The type of the body's result.</typeparam>
    /// <param name="cowns">The cowns (or <see cref="BocCluster.Read{T}(ClusterCown{T})"/> requests); at least one.</param>
    /// <param name="body">The body: receives their states, in the order of <paramref name="cowns"/>, and runs at the caller once every cown is granted.</param>
    /// <returns>The body's result, once its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection, or the list is empty or holds null.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task<TResult> WhenAsync<T, TResult>(IReadOnlyList<ClusterAcquirable<T>> cowns, Func<IReadOnlyList<T>, TResult> body)
        where T : class, new();

    /// <summary>Spawns a behaviour over a list of cowns (duplicates acquired once) and returns when it has run and committed.</summary>
    /// <typeparam name="T">The type of the cowns' states.</typeparam>
    /// <param name="cowns">The cowns (or <see cref="BocCluster.Read{T}(ClusterCown{T})"/> requests); at least one.</param>
    /// <param name="body">The asynchronous body: receives their states, in the order of <paramref name="cowns"/>; the cowns stay held until its task completes.</param>
    /// <returns>A task that completes once the body has run and its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection, or the list is empty or holds null.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task WhenAsync<T>(IReadOnlyList<ClusterAcquirable<T>> cowns, Func<IReadOnlyList<T>, Task> body)
        where T : class, new();

    /// <summary>Spawns a behaviour over a list of cowns (duplicates acquired once) and returns when it has run and committed.</summary>
    /// <typeparam name="T">The type of the cowns' states.</typeparam>
    /// <typeparam name="TResult">The type of the body's result.</typeparam>
    /// <param name="cowns">The cowns (or <see cref="BocCluster.Read{T}(ClusterCown{T})"/> requests); at least one.</param>
    /// <param name="body">The asynchronous body: receives their states, in the order of <paramref name="cowns"/>; the cowns stay held until its task completes.</param>
    /// <returns>The body's result, once its writes are committed.</returns>
    /// <exception cref="ArgumentNullException">A cown or the body is null.</exception>
    /// <exception cref="ArgumentException">A cown belongs to another cluster connection, or the list is empty or holds null.</exception>
    /// <exception cref="BocClusterException">Cowns were unavailable for every attempt; nothing was written.</exception>
    Task<TResult> WhenAsync<T, TResult>(IReadOnlyList<ClusterAcquirable<T>> cowns, Func<IReadOnlyList<T>, Task<TResult>> body)
        where T : class, new();
}
