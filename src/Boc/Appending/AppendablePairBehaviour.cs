using System.Runtime.CompilerServices;

namespace Boc;

// =====================================================================================================================
// Pairs (BocRuntime.SpawnPair; AppendablePairBehaviour). A flood on one pair of cowns (an outside producer feeding each
// worker cown together with its partner, as Logistic Map's full variant does) pays a whole two-cown spawn per message
// otherwise: a sort, two Exchanges and two links on the spawner's core, two countdown decrements on the runner's. So a
// plain fire-and-forget `When(c1, c2, body)` that writes both cowns may be appended, with the same word and the same
// steps, to a behaviour of its class that is at the tail of both queues and writes exactly c1 and c2, named in that
// order (an appended body takes the states in the order its spawn named them).
//   * Opening. The general Enqueue opens a pair's word after its phase 1, before it resolves its extra countdown unit (so
//     before anything can run it), and only if phase 1 found one behaviour as the predecessor on both cowns: a flood on
//     this pair is under way. Behind two different behaviours no spawn could append (both tails must be one behaviour),
//     and a pair that found its queues empty runs at once; neither pays the close. Not behind the body running on the
//     spawning thread, as for one cown. A pair that reads a cown, or names one cown twice, never opens.
//   * Appending. The appender reads the cown's tail on c1, then on c2, and must find the same behaviour on both; then
//     the claim, as for one cown, checking (after the word) that the behaviour's two slots are writes of c1 and c2 in
//     argument order, on its runtime.
//   * Order. On each cown, the argument for one cown holds as it stands: the appender found the tail on that cown's
//     Last, so every spawn that happens-before the append is queued ahead of the tail there, and every spawn the append
//     happens-before is queued behind it (or appended later). The appended body takes the tail's place on both queues at
//     once, and the tail's places are consistent (phase 1 put it on both in id order, behind its predecessors), so no two
//     behaviours end up ordered one way on c1 and the other on c2. If the tail ran and its object was reused between the
//     appender's reads of Last and its CAS, the generation fails the CAS, or the new life is a pair on exactly c1 and c2
//     whose word opened after its phase 1: then every spawn that happens-before the append is still ahead of it (its
//     Exchanges came before the appender's reads), and the spawns after the appender's reads are concurrent with it.
// =====================================================================================================================

/// <summary>
/// The behaviour of a plain fire-and-forget <c>When</c> on two cowns with a synchronous body, which takes appended
/// bodies when both cowns are written (the top of this file, and <c>Behaviour.Appending.cs</c>): a flood of such spawns on one busy pair
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
        // A scope's member takes no appends: withdrawing it would withdraw them too (Scopes/BocScope.Members.cs).
        if (IsWritePair && Scope is null)
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

    internal override Delegate? Body => _body;

    internal override Delegate? StateAsDelegate => _state as Delegate;

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

        return RunOwnThenAppended(appended);
    }

    protected override void Recycle(BocThread thread)
    {
        _body = null;
        _state = default;
        ClearForPool();
        BehaviourPool<AppendablePairBehaviour<T1, T2, TState>>.Return(this, thread);
    }

    private protected override void RunOwnBody() => RunBody(_body!, Unsafe.As<T1>(PairCown(second: false).State), Unsafe.As<T2>(PairCown(second: true).State), _state!);

    private protected override void RunAppendedBody(int index)
    {
        ref AppendedBody entry = ref Unsafe.As<AppendedBody[]>(AppendedBodies)![index];
        try
        {
            RunBody(entry.Body, Unsafe.As<T1>(PairCown(second: false).State), Unsafe.As<T2>(PairCown(second: true).State), entry.State);
        }
        finally
        {
            // Let the pooled object hold no body or state.
            entry = default;
        }
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
