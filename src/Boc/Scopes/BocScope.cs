using System.Diagnostics;

namespace Boc;

/// <summary>
/// A block of structured concurrency (AC's <c>finish</c>, a cancellable block): it waits for every behaviour spawned
/// in it, and for every behaviour those behaviours' bodies spawn, however deep, and cancels them as one. Begin one with
/// <see cref="BocRuntime.BeginScope(CancellationToken)"/> (or <see cref="Behaviours.BeginScope(CancellationToken)"/>)
/// and end it with <c>await using</c>:
/// <code>
/// await using (var scope = runtime.BeginScope(TimeSpan.FromSeconds(2), requestAborted))
/// {
///     foreach (Cown&lt;Seat&gt; seat in seats)
///     {
///         runtime.When(seat, customer, (s, c) =&gt; s.Book(c));   // a member, and so is whatever its body spawns
///     }
/// }   // waits here for all of them; a member's exception is thrown here
/// </code>
/// </summary>
/// <remarks>
/// <para>
/// <b>Members.</b> Until the scope is finished, every behaviour spawned from the code between <c>BeginScope</c> and the
/// end of the <c>await using</c> block, in that flow (<c>When</c>, <c>WhenAsync</c>, <c>TryWhen</c>, batches, on any
/// runtime), is a member: the scope is the flow's ambient scope (an <see cref="AsyncLocal{T}"/>, so it flows across
/// <c>await</c> and into methods the block calls), and the previous one is restored when the block ends. Inside a member's body, membership comes from the behaviour, not from the flow: bodies run in a clean
/// execution context, and every behaviour a member's body spawns is a member too, before or after an <c>await</c>. A
/// scope begun inside a body (or inside another scope's block) is a child of the body's scope (of that scope): the
/// parent waits for it, and cancelling the parent cancels it.
/// </para>
/// <para>
/// <b>Finish.</b> <see cref="FinishAsync"/> and <see cref="DisposeAsync"/> end the block (later spawns from its flow are
/// not members) and complete once every member has finished: released its cowns and delivered its outcome. Exceptions
/// of fire-and-forget members (<c>When</c>, <c>TryWhen</c>, batch members spawned with <c>When</c>) are delivered there,
/// not to <see cref="BocRuntimeOptions.UnhandledExceptionHandler"/>, as one <see cref="AggregateException"/> holding
/// each of them once; a <c>WhenAsync</c> member still delivers its exception through its own awaitable only.
/// </para>
/// <para>
/// <b>Cancel.</b> <see cref="Cancel"/>, the token given to <c>BeginScope</c>, its deadline, the parent's cancellation,
/// and <see cref="BocRuntime.CancelScopes"/> cancel the scope. Every member that does not hold its cowns yet is then
/// withdrawn, as a <c>WhenAsync</c> whose token is canceled is (its body never runs; its place in each cown's queue is
/// passed on in order, so nothing queued behind it waits longer), at once: a withdrawn <c>WhenAsync</c> member's
/// awaitable fails with <see cref="BehaviourWithdrawnException"/> and the finish stops waiting for it, whoever holds its
/// cowns. Running members see the cancellation through <see cref="Behaviours.CurrentCancellationToken"/> and run to
/// their end; the finish waits for them. A spawn into a canceled scope is refused before anything is enqueued:
/// <c>When</c> and <c>TryWhen</c> throw <see cref="OperationCanceledException"/>, and <c>WhenAsync</c> returns a
/// canceled awaitable. An <see cref="OperationCanceledException"/> thrown by a member once the scope is canceled is the
/// member giving up, not a failure. If the deadline or a token fires before the scope has finished, the finish reports it
/// (see <see cref="FinishAsync"/>), whatever each member was doing then: one exception per cause.
/// </para>
/// <para>
/// The guide (docs/guide/scopes.md) has examples; how membership and the finish count work, and why they are
/// correct, is in Scopes/BocScope.Members.cs.
/// </para>
/// </remarks>
[DebuggerDisplay("{DebuggerDisplay,nq}")]
public sealed partial class BocScope : IAsyncDisposable
{
    private readonly BocRuntime _runtime;
    private readonly BocScope? _parent;
    private readonly CancellationToken _userToken;
    private readonly TimeSpan _timeout;

    // The flow's ambient scope when this one was begun: restored when this one ends its block.
    private readonly BocScope? _previousAmbient;

    private CancellationTokenRegistration _userRegistration;
    private ITimer? _deadline;

    // Created on first use of Token (most scopes never need one); see Token.
    private CancellationTokenSource? _tokenSource;

    // 1 once FinishAsync has been called: DisposeAsync then waits without reporting the outcome a second time.
    private int _outcomeClaimed;

    private BocScope(BocRuntime runtime, BocScope? parent, BocScope? previousAmbient, TimeSpan timeout, CancellationToken cancellationToken)
    {
        _runtime = runtime;
        _parent = parent;
        _timeout = timeout;
        _userToken = cancellationToken;
        _previousAmbient = previousAmbient;
    }

    /// <summary>Gets the runtime this scope was begun on (its members may belong to any runtime).</summary>
    public BocRuntime Runtime => _runtime;

    /// <summary>Gets the scope this one is a child of, or null for a scope begun outside every scope.</summary>
    public BocScope? Parent => _parent;

    /// <summary>
    /// Gets a token that is canceled when the scope is canceled (by <see cref="Cancel"/>, its own token, its deadline,
    /// its parent, or <see cref="BocRuntime.CancelScopes"/>). Members see it as <see cref="Behaviours.CurrentCancellationToken"/>.
    /// </summary>
    public CancellationToken Token
    {
        get
        {
            CancellationTokenSource? source = Atomic.Read(ref _tokenSource);
            if (source is null)
            {
                var created = new CancellationTokenSource();
                source = Atomic.CompareExchange(ref _tokenSource, created, null) ?? created;
                if (!ReferenceEquals(source, created))
                {
                    created.Dispose();
                }

                // Published before this read; Cancel reads the source after setting the reason: one of the two cancels it.
                if (IsCancellationRequested)
                {
                    CancelSource(source);
                }
            }

            return source.Token;
        }
    }

    /// <summary>Gets whether the scope has been canceled.</summary>
    public bool IsCancellationRequested => Atomic.Read(ref _cancelReason) != (int)CancelReason.None;

    /// <summary>Gets whether the scope has finished: its block ended and every member finished.</summary>
    public bool IsFinished => Published;

    /// <summary>
    /// Gets about how many members have not finished yet (queued, running, or in an asynchronous body), child scopes
    /// counting one each while they have not finished. Exact when nothing is spawned into or finishes in the scope
    /// during the read.
    /// </summary>
    public long PendingCount => PendingEstimate();

    private string DebuggerDisplay =>
        $"BocScope: {PendingCount} pending{(IsCancellationRequested ? ", canceled" : "")}{(IsFinished ? ", finished" : "")}";

    /// <summary>
    /// Cancels the scope: withdraws every member that does not hold its cowns yet, cancels <see cref="Token"/> (the
    /// running members see it) and every child scope, and refuses later spawns into the scope. Does nothing on a scope
    /// that is canceled or finished already.
    /// </summary>
    /// <remarks>
    /// A scope canceled by this method finishes normally: <see cref="FinishAsync"/> reports only its members'
    /// exceptions. (Canceled by its token it throws <see cref="OperationCanceledException"/>, by its deadline a
    /// <see cref="TimeoutException"/>.) So a member that found what the others were looking for can stop them with
    /// <c>Behaviours.CurrentScope?.Cancel()</c>.
    /// </remarks>
    public void Cancel() => _ = CancelFor(CancelReason.Cancel);

    /// <summary>
    /// Ends the scope's block and waits until every member has finished. Spawns from the block's flow after this call
    /// are not members.
    /// </summary>
    /// <returns>
    /// A task that completes when the scope has finished, with one outcome per cause:
    /// <list type="bullet">
    /// <item>the deadline passed before the scope finished: it fails with a <see cref="TimeoutException"/>;</item>
    /// <item>the token given to <c>BeginScope</c> was canceled before the scope finished: it is canceled with that token;
    /// by the parent scope or <see cref="BocRuntime.CancelScopes"/>: canceled with <see cref="Token"/>;</item>
    /// <item>otherwise (including <see cref="Cancel"/>): it fails with an <see cref="AggregateException"/> holding
    /// every exception of a fire-and-forget member (at most <see cref="BocRuntime.MaxKeptExceptions"/> of them; its
    /// message counts the rest), or completes if none failed.</item>
    /// </list>
    /// The first two hold whatever each member was doing when the scope was canceled (withdrawn, running and giving up,
    /// or running to its end); if members also failed, the <see cref="TimeoutException"/> or
    /// <see cref="OperationCanceledException"/> carries their <see cref="AggregateException"/> as its
    /// <see cref="Exception.InnerException"/> (the task is then faulted with that exception rather than canceled). A
    /// cancellation after the finish changes nothing. Every call returns the same outcome.
    /// </returns>
    /// <exception cref="InvalidOperationException">
    /// Called from the body of a behaviour that cannot finish before the scope does: a member of this scope (or of a
    /// scope inside it), or a body holding a cown that a member still waiting in this scope needs. The wait would never
    /// end; the returned task fails with it. In the first case the scope is left as it was; in the second its block ends
    /// all the same, so it finishes once the body has ended (a child scope never holds its parent back), and its
    /// failures then go to the enclosing scope, or to the runtime's handler.
    /// </exception>
    public Task FinishAsync()
    {
        if (RefuseSelfWait() is { } selfWait)
        {
            return Task.FromException(selfWait);
        }

        EndBlock();
        Atomic.Write(ref _outcomeClaimed, 1);
        return Completion();
    }

    /// <summary>
    /// Ends the scope's block and waits until every member has finished, as <see cref="FinishAsync"/> does, with its
    /// outcome, unless <see cref="FinishAsync"/> was called already (it reported the outcome; this only waits).
    /// </summary>
    /// <returns>A task that completes when the scope has finished.</returns>
    /// <exception cref="InvalidOperationException">See <see cref="FinishAsync"/>.</exception>
    public ValueTask DisposeAsync()
    {
        if (RefuseSelfWait() is { } selfWait)
        {
            return ValueTask.FromException(selfWait);
        }

        EndBlock();
        if (Atomic.Exchange(ref _outcomeClaimed, 1) == 0)
        {
            // Finished already and completed normally (a request whose member was awaited in the block): nothing to allocate.
            return Published && _outcome is null ? default : new ValueTask(Completion());
        }

        return Published ? default : new ValueTask(WaitQuietlyAsync());
    }

    /// <summary>
    /// Begins a scope on <paramref name="runtime"/>: a child of the scope the calling flow is in, if any. The new scope
    /// becomes the flow's ambient scope.
    /// </summary>
    internal static BocScope Begin(BocRuntime runtime, TimeSpan timeout, CancellationToken cancellationToken)
    {
        if (timeout < TimeSpan.Zero && timeout != Timeout.InfiniteTimeSpan)
        {
            throw new ArgumentOutOfRangeException(nameof(timeout), timeout, "The timeout must be zero or more, or Timeout.InfiniteTimeSpan.");
        }

        runtime.ThrowIfDisposed();
        if (!Atomic.Read(ref s_anyBegun))
        {
            Atomic.Write(ref s_anyBegun, true);
        }

        // A child scope is one member of its parent until it finishes: it joins the parent as a spawn would.
        BocScope? parent = JoinFromHere(BocThread.Current, out BocScope? canceled);
        if (canceled is not null)
        {
            throw new OperationCanceledException("The scope this one would be begun in has been canceled.", canceled.Token);
        }

        BocScope? previous = s_ambient.Value;
        var scope = new BocScope(runtime, parent, previous, timeout, cancellationToken);
        scope.Start();
        s_ambient.Value = scope;
        return scope;
    }

    /// <summary>Links the scope to its parent (or runtime), its token and its deadline; after construction.</summary>
    private void Start()
    {
        if (_parent is { } parent)
        {
            parent.AddChild(this);
        }
        else
        {
            _runtime.AddScope(this);
        }

        // Before the scope is the flow's ambient one: the timer captures the flow's context, which should not hold it.
        if (_timeout != Timeout.InfiniteTimeSpan)
        {
            _deadline = _runtime.TimeProvider.CreateTimer(static s => _ = ((BocScope)s!).CancelFor(CancelReason.Deadline), this, _timeout, Timeout.InfiniteTimeSpan);
        }

        if (_userToken.CanBeCanceled)
        {
            // Runs at once if the token is canceled already: the scope starts canceled, and refuses every spawn.
            _userRegistration = _userToken.UnsafeRegister(static s => _ = ((BocScope)s!).CancelFor(CancelReason.Token), this);
        }

        // Register, then check: a parent canceled meanwhile either saw this child in its list or is seen here.
        if (_parent is { IsCancellationRequested: true })
        {
            _ = CancelFor(CancelReason.Parent);
        }
    }

    /// <summary>Restores the flow's previous ambient scope if this one is it, then ends the block (once).</summary>
    private void EndBlock()
    {
        // In the caller's flow, before any await: FinishAsync and DisposeAsync are not async methods, so the change is
        // seen by the code that follows the call.
        if (ReferenceEquals(s_ambient.Value, this))
        {
            s_ambient.Value = _previousAmbient;
        }

        Close();
    }

    private async Task WaitQuietlyAsync()
    {
        ConfigureAwaitOptions options = ConfigureAwaitOptions.SuppressThrowing
            | (_runtime.ContinuesOnCapturedContext ? ConfigureAwaitOptions.ContinueOnCapturedContext : ConfigureAwaitOptions.None);
        await Completion().ConfigureAwait(options);
    }
}
