using System.Runtime.CompilerServices;
using System.Runtime.ExceptionServices;

namespace Boc;

/// <summary>
/// The behaviour of a plain fire-and-forget <c>When</c> on one cown (a write or a read) with a synchronous body: the one kind that takes
/// appended bodies ("Appending" in <c>Behaviour.cs</c>). A flood of such spawns on a busy cown becomes a few of these,
/// each carrying up to <see cref="Behaviour.MaxAppended"/> more bodies, run in order before the cown is released.
/// </summary>
internal sealed class AppendableActionBehaviour<T1, TState> : FireAndForgetBehaviour
    where T1 : class
{
    private Action<T1, TState>? _body;
    private TState? _state;
    private long _appendState;

    public void Init(BocRuntime runtime, Cown cown, bool read, Action<T1, TState> body, TState state)
    {
        Prepare(runtime, 1);
        AddRequest(cown, read);
        _body = body;
        _state = state;
    }

    private protected override int QueuedAppendedCount => OpenAppendedCount(Volatile.Read(ref _appendState));

    // Readers open too: a read may ride in a reader (TryClaimAppend keeps writes out of them).
    protected override void OpenAppends() => OpenAppends(ref _appendState);

    /// <summary>Gets whether this behaviour looks able to take an appended body now (a hint; see <see cref="Behaviour.LooksAppendable"/>).</summary>
    internal bool MayTakeAppend => LooksAppendable(Volatile.Read(ref _appendState));

    /// <summary>
    /// Claims the right to append to this behaviour, found at <paramref name="cown"/>'s tail by a spawn on
    /// <paramref name="runtime"/> that reads the cown if <paramref name="read"/> (see <see cref="Behaviour.TryClaimAppend"/>).
    /// </summary>
    internal bool TryClaimAppend(BocRuntime runtime, Cown cown, bool read, out long claimed) =>
        TryClaimAppend(ref _appendState, runtime, cown, read, out claimed);

    /// <summary>Ends a claim, publishing the body written under it if <paramref name="published"/>.</summary>
    internal void ReleaseAppend(long claimed, bool published) => ReleaseAppend(ref _appendState, claimed, published);

    /// <summary>Writes an appended body at the index of <paramref name="claimed"/> (the caller holds the claim).</summary>
    internal void WriteAppended(long claimed, Action<T1, TState> body, TState state)
    {
        var bodies = Unsafe.As<AppendedBody[]?>(AppendedBodies);
        if (bodies is null)
        {
            // Kept with the pooled object, so a flood allocates this once per object, not per message.
            bodies = new AppendedBody[MaxAppended];
            AppendedBodies = bodies;
        }

        bodies[AppendIndex(claimed)] = new AppendedBody(body, state);
    }

    protected override Task? InvokeBody()
    {
        T1 cownState = Unsafe.As<T1>(OnlyCown.State);
        int appended = CloseAppends(ref _appendState);
        if (appended == 0)
        {
            _body!(cownState, _state!);
            return null;
        }

        RunWithAppended(cownState, appended);
        return null;
    }

    protected override bool Deliver(Exception? error, Task? bodyTask)
    {
        _ = base.Deliver(error, bodyTask);
        if (TakeAppendedFailures() is { } failures)
        {
            foreach (Exception failure in failures)
            {
                _ = base.Deliver(failure, null);
            }
        }

        return false;
    }

    protected override void Recycle(BocThread thread)
    {
        _body = null;
        _state = default;
        ClearForPool();
        BehaviourPool<AppendableActionBehaviour<T1, TState>>.Return(this, thread);
    }

    /// <summary>
    /// Runs the behaviour's own body, then the <paramref name="appended"/> appended ones in order. A failing body does
    /// not stop the others (each was a spawn of its own); the own body's failure is rethrown for the usual path, the
    /// appended ones' are kept and reported after the release.
    /// </summary>
    private void RunWithAppended(T1 cownState, int appended)
    {
        Exception? own = null;
        try
        {
            _body!(cownState, _state!);
        }
#pragma warning disable CA1031 // Reported: rethrown below, after the appended bodies ran.
        catch (Exception e)
#pragma warning restore CA1031
        {
            own = e;
        }

        AppendedBody[] bodies = Unsafe.As<AppendedBody[]>(AppendedBodies)!;
        int failed = 0;
        for (int i = 0; i < appended; i++)
        {
            ref AppendedBody entry = ref bodies[i];
            try
            {
                entry.Body(cownState, entry.State);
            }
#pragma warning disable CA1031 // Reported after the release (Deliver), as a fire-and-forget failure is.
            catch (Exception e)
#pragma warning restore CA1031
            {
                KeepAppendedFailure(e);
                failed++;
            }

            // Let the pooled object hold no body or state.
            entry = default;
        }

        Runtime.OnAppendedFinished(appended, failed);
        if (own is not null)
        {
            ExceptionDispatchInfo.Throw(own);
        }
    }

    /// <summary>One appended body; a struct, so the bodies sit side by side in one array.</summary>
    private readonly struct AppendedBody(Action<T1, TState> body, TState state)
    {
        public readonly Action<T1, TState> Body = body;
        public readonly TState State = state;
    }
}
