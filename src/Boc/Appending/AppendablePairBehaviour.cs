using System.Runtime.CompilerServices;

namespace Boc;

/// <summary>
/// The behaviour of a plain fire-and-forget <c>When</c> on two cowns with a synchronous body, which takes appended
/// bodies when both cowns are written ("Appending" in <c>Behaviour.cs</c>, pairs): a flood of such spawns on one busy pair
/// (an outside producer feeding a worker and its partner) becomes a few of these, each carrying up to
/// <see cref="Behaviour.MaxAppended"/> more bodies, run in order before the cowns are released.
/// </summary>
internal sealed class AppendablePairBehaviour<T1, T2, TState> : AppendableBehaviour
    where T1 : class
    where T2 : class
{
    private Slot _second;
    private Action<T1, T2, TState>? _body;
    private TState? _state;

    public void Init(BocRuntime runtime, Cown first, bool firstRead, Cown second, bool secondRead, Action<T1, T2, TState> body, TState state)
    {
        Prepare(runtime, 2, pair: true);
        AddRequest(first, firstRead);
        AddRequest(second, secondRead);
        _body = body;
        _state = state;
    }

    protected override ref Slot SecondSlot => ref _second;

    // Only a write pair opens (TryClaimPairAppend takes nothing else): a pair that reads a cown, or names one cown twice
    // (merged into one slot, enqueued by EnqueueOne), pays no CAS to close a word nobody may claim.
    protected override void OpenAppends()
    {
        if (IsWritePair)
        {
            OpenAppends(ref AppendWord);
        }
    }

    /// <summary>
    /// Claims the right to append to this behaviour, found at the tail of both <paramref name="first"/> and
    /// <paramref name="second"/> by a spawn on <paramref name="runtime"/> that writes both, named in that order.
    /// </summary>
    internal bool TryClaimAppend(BocRuntime runtime, Cown first, Cown second, out long claimed) =>
        TryClaimPairAppend(ref AppendWord, runtime, first, second, out claimed);

    /// <summary>Writes an appended body at the index of <paramref name="claimed"/> (the caller holds the claim).</summary>
    internal void WriteAppended(long claimed, Action<T1, T2, TState> body, TState state)
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
        T1 firstState = Unsafe.As<T1>(PairCown(second: false).State);
        T2 secondState = Unsafe.As<T2>(PairCown(second: true).State);
        int appended = CloseAppends();
        if (appended == 0)
        {
            _body!(firstState, secondState, _state!);
            return null;
        }

        return RunWithAppended(firstState, secondState, appended);
    }

    protected override void Recycle(BocThread thread)
    {
        _body = null;
        _state = default;
        ClearForPool();
        BehaviourPool<AppendablePairBehaviour<T1, T2, TState>>.Return(this, thread);
    }

    /// <summary>
    /// Runs the behaviour's own body, then the <paramref name="appended"/> appended ones in order. A failing body does
    /// not stop the others (each was a spawn of its own). Returns null, or, if the run yielded ("Yielding" in
    /// <c>Behaviour.cs</c>), the task that completes when the rest has run.
    /// </summary>
    private Task? RunWithAppended(T1 firstState, T2 secondState, int appended)
    {
        Exception? own = null;
        try
        {
            RunBody(_body!, firstState, secondState, _state!);
        }
#pragma warning disable CA1031 // Reported: rethrown by FinishAppended, after the appended bodies ran.
        catch (Exception e)
#pragma warning restore CA1031
        {
            own = e;
        }

        return RunAppended(0, appended, 0, own);
    }

    private protected override Task? RunAppended(int from, int appended, int failed, Exception? own)
    {
        T1 firstState = Unsafe.As<T1>(PairCown(second: false).State);
        T2 secondState = Unsafe.As<T2>(PairCown(second: true).State);
        AppendedBody[] bodies = Unsafe.As<AppendedBody[]>(AppendedBodies)!;
        long start = StartAppendedRun(from, appended);
        for (int i = from; i < appended; i++)
        {
            ref AppendedBody entry = ref bodies[i];
            try
            {
                RunBody(entry.Body, firstState, secondState, entry.State);
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
            if (start != NeverYield && IsYieldCheck(i, appended) && TryYield(ref start, i + 1, appended, failed, own) is { } rest)
            {
                return rest;
            }
        }

        FinishAppended(appended, failed, own);
        return null;
    }

    /// <summary>Runs one body in a frame of its own (see <c>AppendableActionBehaviour.RunBody</c> for why).</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void RunBody(Action<T1, T2, TState> body, T1 firstState, T2 secondState, TState state) => body(firstState, secondState, state);

    /// <summary>One appended body; a struct, so the bodies sit side by side in one array.</summary>
    private readonly struct AppendedBody(Action<T1, T2, TState> body, TState state)
    {
        public readonly Action<T1, T2, TState> Body = body;
        public readonly TState State = state;
    }
}
