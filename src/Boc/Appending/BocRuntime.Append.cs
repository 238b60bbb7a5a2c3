using Boc.Diagnostics;

namespace Boc;

// The spawn side of appending (Behaviour.Appending.cs): a one-cown write or read, or a two-cown write, from a plain
// fire-and-forget When may ride in the behaviour at its cowns' tail instead of enqueuing a behaviour of its own.
public sealed partial class BocRuntime
{
    /// <summary>
    /// The one-cown, synchronous, fire-and-forget spawn (<c>When(c1, body)</c> and <c>When(c1, body, state)</c>, and
    /// their <c>TryWhen</c> forms), already admitted: appended to the behaviour at the cown's tail if it can take it,
    /// else enqueued as a behaviour of its own.
    /// </summary>
    internal void SpawnOne<T1, TState>(IAcquirable<T1> c1, Action<T1, TState> body, TState state)
        where T1 : class
    {
        Cown cown = Acquisition.CownOf(c1, out bool read);
        BocThread thread = BocThread.Current;
        // Null first: an idle cown (a chain hopping between actors) skips the type test, which in this shared generic
        // code is a helper call.
        // A scope's member never rides in another behaviour (Scopes/BocScope.Members.cs): it is counted and withdrawn on its own.
        if (cown.Queue.TailHint is { } last && last is AppendableActionBehaviour<T1, TState> tail && tail.MayTakeAppend && AppendsAllowed
            && (!read || ReadsMayAppend) && !BocScope.MayJoinHere(thread) && TryAppend(tail, cown, read, body, state, thread))
        {
            return;
        }

        AppendableActionBehaviour<T1, TState> behaviour = BehaviourPool<AppendableActionBehaviour<T1, TState>>.Rent(thread);
        behaviour.Init(this, cown, read, body, state);
        SpawnAdmitted(behaviour, thread);
    }

    /// <summary>
    /// The two-cown, synchronous, fire-and-forget spawn (<c>When(c1, c2, body)</c> and <c>When(c1, c2, body, state)</c>,
    /// and their <c>TryWhen</c> forms), already admitted: appended to the behaviour at the tail of both cowns if it is
    /// one behaviour of this class that writes both and can take it (AppendablePairBehaviour.cs), else enqueued
    /// as a behaviour of its own.
    /// </summary>
    internal void SpawnPair<T1, T2, TState>(IAcquirable<T1> c1, IAcquirable<T2> c2, Action<T1, T2, TState> body, TState state)
        where T1 : class
        where T2 : class
    {
        Cown first = Acquisition.CownOf(c1, out bool firstRead);
        Cown second = Acquisition.CownOf(c2, out bool secondRead);
        BocThread thread = BocThread.Current;

        // Last is read on both cowns, and must name the same behaviour on each: then nothing spawned before this call is
        // queued behind it on either cown. Compared before anything is read from the tail: pairs spawned on varying cowns
        // (a bank's transfers) find different tails, and pay only these two reads, which warm the lines their Exchanges
        // need next. Writes only: a pair that reads never takes appends.
        if (!(firstRead | secondRead) && first.Queue.TailHint is { } last && ReferenceEquals(second.Queue.TailHint, last)
            && last is AppendablePairBehaviour<T1, T2, TState> tail && tail.MayTakeAppend && AppendsAllowed
            && !BocScope.MayJoinHere(thread) && TryAppend(tail, first, second, body, state, thread))
        {
            return;
        }

        AppendablePairBehaviour<T1, T2, TState> behaviour = BehaviourPool<AppendablePairBehaviour<T1, T2, TState>>.Rent(thread);
        behaviour.Init(this, first, firstRead, second, secondRead, body, state);
        SpawnAdmitted(behaviour, thread);
    }

    /// <summary>
    /// Whether a spawn may be appended now: never under a spawn hook (Boc.Testing's controlled runtime makes every spawn
    /// a scheduling point), nor while spawns are stamped for the start-delay histogram or traced (both per behaviour).
    /// </summary>
    private bool AppendsAllowed =>
        _spawnHook is null && !BocMetrics.StartDelay.Enabled && !(_traceBehaviours && BocTracing.Source.HasListeners());

    /// <summary>
    /// Whether a read may be appended now. Appending a write costs no parallelism (writes to one cown run one at a time
    /// anyway), but an appended read runs after the tail's body on the tail's worker, where as a behaviour of its own it
    /// could have run beside it on another. So reads ride only while every <see cref="BocScheduler"/> worker is busy
    /// (no core is free to run them beside it), and never on the thread pool, whose idle threads are not known.
    /// </summary>
    private bool ReadsMayAppend => _bocScheduler is { HasIdleWorker: false };

    /// <summary>
    /// Appends the spawn to <paramref name="tail"/>, found at <paramref name="cown"/>'s tail; false (having done nothing)
    /// if it cannot take it.
    /// </summary>
    private bool TryAppend<T1, TState>(AppendableActionBehaviour<T1, TState> tail, Cown cown, bool read, Action<T1, TState> body, TState state, BocThread thread)
        where T1 : class
    {
        int worker = BeforeClaim(thread, cown);
        if (!tail.TryClaimAppend(this, cown, read, out long claimed))
        {
            return false;
        }

        CountInAppend(tail, claimed, worker, thread);
        tail.WriteAppended(claimed, body, state);
        PublishAppend(tail, claimed);
        return true;
    }

    /// <summary>
    /// Appends the spawn to <paramref name="tail"/>, found at the tail of both <paramref name="first"/> and
    /// <paramref name="second"/>; false (having done nothing) if it cannot take it.
    /// </summary>
    private bool TryAppend<T1, T2, TState>(AppendablePairBehaviour<T1, T2, TState> tail, Cown first, Cown second, Action<T1, T2, TState> body, TState state, BocThread thread)
        where T1 : class
        where T2 : class
    {
        int worker = BeforeClaim(thread, target: null);
        if (!tail.TryClaimAppend(this, first, second, out long claimed))
        {
            return false;
        }

        CountInAppend(tail, claimed, worker, thread);
        tail.WriteAppended(claimed, body, state);
        PublishAppend(tail, claimed);
        return true;
    }

    /// <summary>
    /// Before an append's claim (the runner waits while it is held): may move the worker's next behaviour to its queue
    /// and wake a peer (SpawnAdmitted explains why); <paramref name="target"/> is the append's cown if it has one only.
    /// Returns the calling worker's index, or -1.
    /// </summary>
    private int BeforeClaim(BocThread thread, Cown? target) => _bocScheduler?.OnSpawn(thread, target) ?? -1;

    /// <summary>
    /// Counts a claimed append in as a behaviour of its own, between the claim and the publication, so that its run can
    /// never be counted out before it was counted in; refuses it (ending the claim unpublished) if the runtime is disposed.
    /// </summary>
    private void CountInAppend(AppendableBehaviour tail, long claimed, int worker, BocThread thread)
    {
        // The Dekker pair with disposal, as in SpawnAdmitted.
        _pending.Spawned(worker, thread);
        if (Atomic.Read(ref _disposed) != 0)
        {
            tail.ReleaseAppend(claimed, published: false);
            OnBehaviourFinished();
            throw ShutDown();
        }
    }

    /// <summary>Publishes an appended body written under <paramref name="claimed"/>.</summary>
    private void PublishAppend(AppendableBehaviour tail, long claimed)
    {
        tail.ReleaseAppend(claimed, published: true);
        if (BocMetrics.Spawned.Enabled)
        {
            BocMetrics.Add(BocMetrics.Spawned, Name);
        }
    }

    /// <summary>The runner of a behaviour ran <paramref name="count"/> appended bodies, <paramref name="failed"/> of which threw.</summary>
    internal void OnAppendedFinished(int count, int failed)
    {
        if (BocMetrics.Completed.Enabled && count > failed)
        {
            BocMetrics.Add(BocMetrics.Completed, Name, count - failed);
        }

        if (BocMetrics.Faulted.Enabled && failed > 0)
        {
            BocMetrics.Add(BocMetrics.Faulted, Name, failed);
        }

        OnBehaviourFinished(count);
    }
}
