namespace Boc;

/// <summary>
/// Static entry points on <see cref="BocRuntime.Default"/>. With <c>using static Boc.Behaviours;</c> a program reads
/// like the BoC paper: <c>When(src, dst, (s, d) =&gt; { s.Balance -= 10; d.Balance += 10; });</c>
/// </summary>
public static partial class Behaviours
{
    /// <summary>
    /// Gets the cancellation token of the behaviour whose body is running in the current flow: the token passed to its
    /// <c>WhenAsync</c>, or, for a member of a <see cref="BocScope"/>, the scope's <see cref="BocScope.Token"/> (for a
    /// member spawned with a token, one that either cancels); <see cref="CancellationToken.None"/> outside bodies and in
    /// bodies spawned with neither.
    /// </summary>
    /// <remarks>
    /// Once the body has started, cancelling the token no longer withdraws the behaviour: it reaches only the body,
    /// which may observe it here (also after an <c>await</c> in an asynchronous body) and end early. The behaviour keeps
    /// its cowns until the body ends.
    /// </remarks>
    public static CancellationToken CurrentCancellationToken => Behaviour.CurrentCancellationToken;

    /// <summary>
    /// Gets the scope a behaviour spawned from the current flow would belong to: in a body, the innermost scope the
    /// body began and has not finished, else the body's own scope; outside bodies, the flow's ambient scope (the
    /// innermost <c>BeginScope</c> block around the caller). Null if none.
    /// </summary>
    /// <remarks>
    /// A member can stop the rest of its scope's work with <c>Behaviours.CurrentScope?.Cancel()</c> (the scope then
    /// still finishes normally; see <see cref="BocScope.Cancel"/>).
    /// </remarks>
    public static BocScope? CurrentScope => BocScope.AnyBegun ? BocScope.CurrentHere(BocThread.Current) : null;

    /// <summary>Begins a scope on <see cref="BocRuntime.Default"/>; see <see cref="BocRuntime.BeginScope()"/>.</summary>
    /// <returns>The scope, which is now the calling flow's ambient scope.</returns>
    /// <exception cref="OperationCanceledException">The scope it would be a child of has been canceled.</exception>
    public static BocScope BeginScope() => BocRuntime.Default.BeginScope();

    /// <summary>
    /// Begins a scope on <see cref="BocRuntime.Default"/> that <paramref name="cancellationToken"/> cancels; see
    /// <see cref="BocRuntime.BeginScope(CancellationToken)"/>.
    /// </summary>
    /// <param name="cancellationToken">Cancels the scope.</param>
    /// <returns>The scope, which is now the calling flow's ambient scope.</returns>
    /// <exception cref="OperationCanceledException">The scope it would be a child of has been canceled.</exception>
    public static BocScope BeginScope(CancellationToken cancellationToken) => BocRuntime.Default.BeginScope(cancellationToken);

    /// <summary>
    /// Begins a scope with a deadline on <see cref="BocRuntime.Default"/>; see <see cref="BocRuntime.BeginScope(TimeSpan)"/>.
    /// </summary>
    /// <param name="timeout">How long the scope's work may take; <see cref="Timeout.InfiniteTimeSpan"/> for no deadline.</param>
    /// <returns>The scope, which is now the calling flow's ambient scope.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="timeout"/> is negative and not <see cref="Timeout.InfiniteTimeSpan"/>.</exception>
    /// <exception cref="OperationCanceledException">The scope it would be a child of has been canceled.</exception>
    public static BocScope BeginScope(TimeSpan timeout) => BocRuntime.Default.BeginScope(timeout);

    /// <summary>
    /// Begins a scope with a deadline on <see cref="BocRuntime.Default"/> that <paramref name="cancellationToken"/> may
    /// cancel earlier; see <see cref="BocRuntime.BeginScope(TimeSpan, CancellationToken)"/>.
    /// </summary>
    /// <param name="timeout">How long the scope's work may take; <see cref="Timeout.InfiniteTimeSpan"/> for no deadline.</param>
    /// <param name="cancellationToken">Cancels the scope earlier.</param>
    /// <returns>The scope, which is now the calling flow's ambient scope.</returns>
    /// <exception cref="ArgumentOutOfRangeException"><paramref name="timeout"/> is negative and not <see cref="Timeout.InfiniteTimeSpan"/>.</exception>
    /// <exception cref="OperationCanceledException">The scope it would be a child of has been canceled.</exception>
    public static BocScope BeginScope(TimeSpan timeout, CancellationToken cancellationToken) => BocRuntime.Default.BeginScope(timeout, cancellationToken);

    /// <summary>
    /// Waits until <see cref="BocRuntime.Default"/> is quiescent: every behaviour spawned on it so far, including
    /// nested ones, has finished.
    /// </summary>
    /// <param name="cancellationToken">Stops waiting; the behaviours are not affected.</param>
    /// <returns>See <see cref="BocRuntime.WaitForQuiescenceAsync(CancellationToken)"/>.</returns>
    public static Task WaitForQuiescenceAsync(CancellationToken cancellationToken = default) =>
        BocRuntime.Default.WaitForQuiescenceAsync(cancellationToken);

    /// <summary>
    /// Spawns several behaviours on <see cref="BocRuntime.Default"/> as one atomic step; see
    /// <see cref="BocRuntime.Batch(Action{BocBatch})"/>.
    /// </summary>
    /// <param name="build">Records the members on the <see cref="BocBatch"/> it receives; they are enqueued together when it returns.</param>
    /// <exception cref="ArgumentNullException"><paramref name="build"/> is null.</exception>
    /// <exception cref="BocRuntimeFullException">The default runtime is bounded, full, and in <see cref="BocFullMode.Throw"/> mode; nothing was enqueued.</exception>
    /// <exception cref="InvalidOperationException">The default runtime is bounded below the batch's size; nothing was enqueued.</exception>
    public static void Batch(Action<BocBatch> build) => BocRuntime.Default.Batch(build);

    /// <summary>Requests read-only access to <paramref name="cown"/>; same as <see cref="Cown.Read{T}(Cown{T})"/>.</summary>
    /// <typeparam name="T">The type of the cown's state.</typeparam>
    /// <param name="cown">The cown to read.</param>
    /// <returns>A read-only view of <paramref name="cown"/> that can be passed to <c>When</c>.</returns>
    /// <exception cref="ArgumentNullException"><paramref name="cown"/> is null.</exception>
    public static ReadOnlyCown<T> Read<T>(Cown<T> cown)
        where T : class => Cown.Read(cown);
}
