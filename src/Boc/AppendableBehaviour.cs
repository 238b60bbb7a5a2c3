using System.Runtime.ExceptionServices;

namespace Boc;

/// <summary>
/// Base of the behaviour classes that take appended bodies ("Appending" in <c>Behaviour.cs</c>): the plain
/// fire-and-forget <c>When</c> on one cown (<see cref="AppendableActionBehaviour{T1, TState}"/>) and on two
/// (<see cref="AppendablePairBehaviour{T1, T2, TState}"/>). It holds the append word, which no other behaviour pays for
/// (every step on the word is in <c>Behaviour.cs</c>, next to the argument for it).
/// </summary>
internal abstract class AppendableBehaviour : FireAndForgetBehaviour
{
    private long _appendState;

    /// <summary>Gets whether this behaviour looks able to take an appended body now (a hint; see <see cref="Behaviour.LooksAppendable"/>).</summary>
    internal bool MayTakeAppend => LooksAppendable(Volatile.Read(ref _appendState));

    private protected override int QueuedAppendedCount => OpenAppendedCount(Volatile.Read(ref _appendState));

    /// <summary>Gets the append word, for the derived class's open and claim.</summary>
    protected ref long AppendWord => ref _appendState;

    /// <summary>Ends a claim, publishing the body written under it if <paramref name="published"/>.</summary>
    internal void ReleaseAppend(long claimed, bool published) => ReleaseAppend(ref _appendState, claimed, published);

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

    /// <summary>Run, before the body: closes the word and returns how many bodies were appended (see <see cref="Behaviour.CloseAppends(ref long)"/>).</summary>
    protected int CloseAppends() => CloseAppends(ref _appendState);

    /// <summary>
    /// The runner, after the appended bodies ran, <paramref name="failed"/> of the <paramref name="appended"/> with an
    /// exception: counts them out; then rethrows the own body's failure <paramref name="own"/>, if any, for the usual
    /// path (the appended ones' are kept and reported after the release).
    /// </summary>
    protected void FinishAppended(int appended, int failed, Exception? own)
    {
        Runtime.OnAppendedFinished(appended, failed);
        if (own is not null)
        {
            ExceptionDispatchInfo.Throw(own);
        }
    }
}
