using System.Runtime.CompilerServices;

namespace Boc;

/// <summary>
/// The behaviour of a plain fire-and-forget <c>When</c> on one cown (a write or a read) with a synchronous body, which
/// takes appended bodies (<c>Appending/Behaviour.Appending.cs</c>). A flood of such spawns on a busy cown becomes a few of these,
/// each carrying up to <see cref="Behaviour.MaxAppended"/> more bodies, run in order before the cown is released.
/// </summary>
internal sealed class AppendableActionBehaviour<T1, TState> : AppendableBehaviour
    where T1 : class
{
    private Action<T1, TState>? _body;
    private TState? _state;

    public void Init(BocRuntime runtime, Cown cown, bool read, Action<T1, TState> body, TState state)
    {
        Prepare(runtime, 1);
        AddRequest(cown, read);

        // Compared first, as in Prepare: a warm spare (BocThread.Spare) still holds the body and state of its last life,
        // and an actor that sends to one partner with a static lambda and itself as the state (a request and its reply)
        // spawns the very same ones, so no write barrier runs. A state of value type is copied whatever it holds.
        if (!ReferenceEquals(_body, body))
        {
            _body = body;
        }

        if (typeof(TState).IsValueType || !ReferenceEquals(_state, state))
        {
            _state = state;
        }
    }

    internal override void ForgetReferences()
    {
        _body = null;
        _state = default;
        base.ForgetReferences();
    }

    // Readers open too: a read may ride in a reader (TryClaimAppend keeps writes out of them).
    protected override void OpenAppends()
    {
        // A scope's member takes no appends: withdrawing it would withdraw them too (Scopes/BocScope.Members.cs).
        if (Scope is null)
        {
            OpenAppends(ref AppendWord);
        }
    }

    /// <summary>
    /// Claims the right to append to this behaviour, found at <paramref name="cown"/>'s tail by a spawn on
    /// <paramref name="runtime"/> that reads the cown if <paramref name="read"/> (see <see cref="Behaviour.TryClaimAppend"/>).
    /// </summary>
    internal bool TryClaimAppend(BocRuntime runtime, Cown cown, bool read, out long claimed) =>
        TryClaimAppend(ref AppendWord, runtime, cown, read, out claimed);

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

    internal override Delegate? Body => _body;

    internal override Delegate? StateAsDelegate => _state as Delegate;

    protected override Task? InvokeBody()
    {
        T1 cownState = Unsafe.As<T1>(OnlyCown.State);
        int appended = CloseAppends();
        if (appended == 0)
        {
            _body!(cownState, _state!);
            return null;
        }

        return RunOwnThenAppended(appended);
    }

    protected override void Recycle(BocThread thread)
    {
        if (thread.Spare is null && thread.Worker is not null)
        {
            // A worker's warm spare (BocThread.Spare): the references stay until the worker rents it again, or parks.
            ClearForPool(keepReferences: true);
            thread.Spare = this;
            return;
        }

        _body = null;
        _state = default;
        ClearForPool();
        BehaviourPool<AppendableActionBehaviour<T1, TState>>.Return(this, thread);
    }

    private protected override void RunOwnBody() => RunBody(_body!, Unsafe.As<T1>(OnlyCown.State), _state!);

    private protected override void RunAppendedBody(int index)
    {
        ref AppendedBody entry = ref Unsafe.As<AppendedBody[]>(AppendedBodies)![index];
        try
        {
            RunBody(entry.Body, Unsafe.As<T1>(OnlyCown.State), entry.State);
        }
        finally
        {
            // Let the pooled object hold no body or state.
            entry = default;
        }
    }

    /// <summary>
    /// Runs one body of a run with appended bodies, in a frame of its own. The loop over the bodies is one compiled copy
    /// for every body of its class and type arguments (all the stages of a pipeline, say), and dynamic PGO may inline the
    /// body that dominated its profile into it. Compiled there, a hot numeric loop in that body kept its accumulator on
    /// the stack, stored and reloaded at every iteration: Filterbank's FIR filter ran several times as long, in most
    /// processes. Moving the loop over the bodies out of the try region did not help; this frame did. The price: small
    /// bodies are no longer inlined into the loop, one call more per body, and a flood of tiny bodies (Radixsort) runs
    /// longer (docs/performance/decisions.md, "Each appended body in its own frame", has the figures).
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void RunBody(Action<T1, TState> body, T1 cownState, TState state) => body(cownState, state);

    /// <summary>One appended body; a struct, so the bodies sit side by side in one array.</summary>
    private readonly struct AppendedBody(Action<T1, TState> body, TState state)
    {
        public readonly Action<T1, TState> Body = body;
        public readonly TState State = state;
    }
}
