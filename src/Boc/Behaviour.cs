using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Boc;

// =====================================================================================================================
// The BoC protocol: how a behaviour is enqueued on its cowns, how it learns it may run, and how it lets the next one in.
// Everything that touches the queue state of a cown (Cown.Last, Cown.ReadState, Cown.PendingWriter) is in this file.
//
// Vocabulary (Cheeseman et al., OOPSLA 2023, section 4):
//   * Behaviour - one `When`: a body, the cowns it needs, and a countdown of the cowns it does not hold yet.
//   * Request   - one behaviour's place in one cown's queue (an edge of the paper's dependency graph).
//   * Each cown's requests form a FIFO queue linked through Request.Next, with Cown.Last pointing at the tail;
//     that is an MCS queue lock whose waiters are behaviours rather than spinning threads.
//
// The turn. Along each cown's queue travels one "turn" (the MCS lock token). A request that receives the turn has
// every earlier writer on that cown finished. Then:
//   * a writer keeps the turn while it runs, and passes it on when its behaviour completes; it may run only once the
//     cown has no active readers either (see "Readers" below);
//   * a reader counts itself in Cown.ReadState and passes the turn on at once, so that a run of consecutive readers
//     all hold the cown together; each one counts itself out when its behaviour completes.
// Receiving the turn resolves one unit of the behaviour's countdown; at zero the behaviour holds all its cowns and is
// dispatched.
//
// Spawn (Behaviour.Enqueue), two-phase as in the paper:
//   0. Requests are sorted by Cown.Id and duplicates merged (write wins): each cown appears once, so a behaviour never
//      waits on its own request, and every spawner visits cowns in the same global order.
//   1. countdown = requests + 1. The extra unit is held by the spawner until step 4, so the behaviour cannot run (and
//      cannot complete and release) while it is still being linked into other queues.
//   2. Phase 1, per request in order: Exchange(cown.Last, request). If the old tail is null the queue was empty and
//      the request receives the turn now. Otherwise wait until the old tail is Scheduled (its own spawner has finished
//      phase 1 for *all* its cowns), then link old tail -> request.
//   3. Phase 2, per request: set Scheduled. If a reader already received the turn, pass it on now (see below).
//   4. Resolve the extra unit.
//
// Completion (Behaviour.Finish): writers pass the turn on (PassOn), readers count themselves out (LeaveRead).
//
// PassOn(r) is the MCS release: if r.Next is linked, give it the turn. Otherwise try CAS(cown.Last, r -> null); if
// that succeeds the queue is empty and the next spawner takes the turn from the empty queue. If the CAS fails, a
// spawner has swapped itself in behind r and will link r.Next as soon as it sees r Scheduled, so wait for the link.
//
// Readers. Cown.ReadState = number of active readers | WriterWaiting. A reader that receives the turn increments the
// count *before* passing the turn on, so any writer later in the queue sees it. A writer that receives the turn:
//   * if the count is zero, it holds the cown (no reader can join: the turn is with the writer);
//   * otherwise it records itself in Cown.PendingWriter and sets WriterWaiting with one CAS on the same word the
//     readers decrement, so "the last reader left" and "a writer is waiting" cannot both be missed (with two separate
//     fields a reader could leave between the writer's check and its flag, and nobody would wake the writer).
//   The reader whose decrement leaves exactly WriterWaiting clears the word and resolves the pending writer.
// A reader passes the turn on only once it is Scheduled. A reader can receive the turn during its own phase 1 (empty
// queue); passing it on then could mean waiting for a successor that is itself waiting for this behaviour's
// Scheduled flag, which is set only in phase 2: a self-deadlock. Request.State arbitrates, with one atomic OR each,
// between the thread that delivers the turn (sets Granted) and the spawner's phase 2 (sets Scheduled): whichever sets
// the second bit does the PassOn. This is the race the Verona runtime once got wrong (a reader still mid-enqueue
// taken for a finished one); here the reader's state word makes the hand-over exactly-once.
//
// Why it is correct:
//   * Ordered. Each cown's queue is in Exchange order. If b1 and b2 share a cown and b1 was spawned first, b1's
//     Exchange on that cown came first (both Exchanges happen inside When, before it returns), so b1's request is
//     ahead of b2's. The turn moves strictly along the queue, so b2 cannot get it before b1 has passed it on: a writer
//     passes it on after its body; a reader passes it on immediately, but a writer behind it also waits for the
//     reader count to drain. Two readers are not ordered, as specified.
//   * Atomic. A behaviour runs only when its countdown hits zero, i.e. it holds the turn (writer, no active readers)
//     or is counted as a reader on every cown; it releases nothing before its body ends. The extra countdown unit
//     stops it running before phase 2 has finished.
//   * Deadlock free. A spawner waits in phase 1 only for a predecessor that is between its Exchange on some cown and
//     its phase 2. Spawners visit cowns in ascending Id, so "waits for" only points from a spawner at cown k to a
//     spawner that already holds its place at k and is moving to higher Ids: no cycle. The other waits (PassOn's wait
//     for a link, including a reader's PassOn in phase 2) wait for a spawner that is past its Exchange on that cown
//     and has seen (or is about to see) the Scheduled flag, which is already set; so it links without waiting on us.
//     Behaviours themselves never wait: the countdown turns waiting into dispatch.
//   * Exactly once. The countdown reaches zero once, so Dispatch runs once; Finish runs once after the body.
//
// Reachability (what a pooled implementation must respect before reusing a Behaviour): a behaviour is reachable from
// its predecessors until its countdown is zero, from a successor until that successor has linked (PassOn waits for
// it), and from a cown while Cown.Last or Cown.PendingWriter points at one of its requests. After Finish has passed
// on or left every request, none of these hold. A reader's PassOn happens before its countdown unit is resolved
// (see Grant), so it is complete before the behaviour can run, let alone finish.
// =====================================================================================================================

/// <summary>One behaviour's place in one cown's queue.</summary>
internal sealed class Request
{
    /// <summary>Set in phase 2: the spawner has finished phase 1, so a successor may link to this request.</summary>
    internal const int Scheduled = 1;

    /// <summary>A reader has received the turn (it still has to pass it on, if not done yet).</summary>
    internal const int Granted = 2;

    /// <summary>Flag in <see cref="Cown.ReadState"/>: <see cref="Cown.PendingWriter"/> waits for the readers to leave.</summary>
    internal const int WriterWaiting = 1 << 30;

    internal readonly Behaviour Owner;
    internal readonly Cown Target;
    internal bool IsRead;

    /// <summary>The next request in the cown's queue; written once, by the successor's spawner.</summary>
    internal Request? Next;

    /// <summary><see cref="Scheduled"/> and <see cref="Granted"/> bits.</summary>
    internal int State;

    internal Request(Behaviour owner, Cown target, bool isRead)
    {
        Owner = owner;
        Target = target;
        IsRead = isRead;
    }

    /// <summary>Phase 1 for this request.</summary>
    internal void StartEnqueue()
    {
        // Exchange is a full fence: everything this spawner wrote before (the request's fields, the countdown) is
        // visible to whoever reads Last and finds this request.
        Request? previous = Interlocked.Exchange(ref Target.Last, this);
        if (previous is null)
        {
            // The queue was empty: no earlier behaviour holds or waits for the turn, so it is ours.
            Grant(this);
            return;
        }

        // Link only after the predecessor's spawner has finished phase 1 everywhere. Linking earlier could let the
        // predecessor pass the turn to us before it is enqueued on its other cowns, breaking atomicity of the spawn.
        if ((Volatile.Read(ref previous.State) & Scheduled) == 0)
        {
            var spin = default(SpinWait);
            while ((Volatile.Read(ref previous.State) & Scheduled) == 0)
            {
                spin.SpinOnce(sleep1Threshold: -1);
            }
        }

        // Release semantics: the predecessor's PassOn reads Next and then touches this request.
        Volatile.Write(ref previous.Next, this);
    }

    /// <summary>Phase 2 for this request.</summary>
    internal void FinishEnqueue()
    {
        int old = Interlocked.Or(ref State, Scheduled);
        if ((old & Granted) != 0)
        {
            // A reader got the turn before it was Scheduled (during our phase 1, or from a predecessor meanwhile); the
            // deliverer left passing it on to us. Doing it here, before the spawner's final ResolveOne, keeps the
            // invariant that a reader has passed the turn on before its behaviour can run.
            Debug.Assert(IsRead, "Only readers set Granted.");
            Request? next = PassOn(this);
            if (next is not null)
            {
                Grant(next);
            }
        }
    }

    /// <summary>Completion for this request: writers pass the turn on, readers count themselves out.</summary>
    internal void Release()
    {
        if (IsRead)
        {
            LeaveRead(Target);
            return;
        }

        Request? next = PassOn(this);
        if (next is not null)
        {
            Grant(next);
        }
    }

    /// <summary>
    /// Gives the turn to <paramref name="request"/>, then along any run of readers that are already Scheduled.
    /// Iterative, so that a long run of readers does not grow the stack.
    /// </summary>
    private static void Grant(Request request)
    {
        while (true)
        {
            Cown cown = request.Target;
            if (!request.IsRead)
            {
                GrantWrite(request, cown);
                return;
            }

            // Count ourselves in before the turn moves on, so a writer behind us sees an active reader.
            Interlocked.Increment(ref cown.ReadState);

            Request? next = null;
            int old = Interlocked.Or(ref request.State, Granted);
            if ((old & Scheduled) != 0)
            {
                // Our spawner is done with phase 1, so successors can link: pass the turn on now, before resolving
                // (the behaviour must not run, finish, and be reused while we still read its request).
                next = PassOn(request);
            }

            // Otherwise the spawner's phase 2 passes the turn on (FinishEnqueue); its final ResolveOne comes after.
            request.Owner.ResolveOne();

            if (next is null)
            {
                return;
            }

            request = next;
        }
    }

    private static void GrantWrite(Request writer, Cown cown)
    {
        while (true)
        {
            int readers = Volatile.Read(ref cown.ReadState);
            if (readers == 0)
            {
                // No reader is active, and none can join: the turn is ours until our behaviour finishes.
                writer.Owner.ResolveOne();
                return;
            }

            Debug.Assert((readers & WriterWaiting) == 0, "Only the holder of the turn waits for readers.");

            // Publish who waits before the flag that makes a leaving reader look for it (the CAS is a full fence).
            Volatile.Write(ref cown.PendingWriter, writer);
            if (Interlocked.CompareExchange(ref cown.ReadState, readers | WriterWaiting, readers) == readers)
            {
                return;
            }

            // A reader left between our read and the CAS; look again (we may now see zero).
        }
    }

    private static void LeaveRead(Cown cown)
    {
        int remaining = Interlocked.Decrement(ref cown.ReadState);
        if (remaining != WriterWaiting)
        {
            return;
        }

        // We were the last active reader and a writer holds the turn, waiting for us. Nobody else can change the word
        // now (no reader can join while the writer holds the turn), so plain writes suffice; clear PendingWriter
        // first so the next waiting writer's store is never overwritten.
        Request writer = Volatile.Read(ref cown.PendingWriter)!;
        Volatile.Write(ref cown.PendingWriter, null);
        Volatile.Write(ref cown.ReadState, 0);
        writer.Owner.ResolveOne();
    }

    /// <summary>
    /// MCS release: returns the successor that should get the turn, or null if the queue became empty.
    /// </summary>
    private static Request? PassOn(Request request)
    {
        Request? next = Volatile.Read(ref request.Next);
        if (next is not null)
        {
            return next;
        }

        if (Interlocked.CompareExchange(ref request.Target.Last, null, request) == request)
        {
            return null;
        }

        // A spawner swapped itself in behind us; it links as soon as it sees us Scheduled, which we are.
        var spin = default(SpinWait);
        while ((next = Volatile.Read(ref request.Next)) is null)
        {
            spin.SpinOnce(sleep1Threshold: -1);
        }

        return next;
    }
}

/// <summary>
/// A spawned behaviour: its requests, its countdown, and (in derived classes) its body. Derived classes are generated
/// per arity and body shape (<c>Behaviours.g.cs</c>); all queue logic is here and in <see cref="Request"/>.
/// </summary>
internal abstract class Behaviour : IThreadPoolWorkItem
{
    private const int InsertionSortLimit = 16;

    [ThreadStatic]
    private static BocRuntime? t_running;

    private readonly BocRuntime _runtime;
    private Request[] _requests;
    private int _requestCount;
    private int _countdown;
    private Task? _bodyTask;

    protected Behaviour(BocRuntime runtime, int capacity)
    {
        _runtime = runtime;
        _requests = capacity == 0 ? [] : new Request[capacity];
    }

    /// <summary>Gets the runtime whose body is executing on this thread (synchronous part only), if any.</summary>
    internal static BocRuntime? RunningOn => t_running;

    /// <summary>Adds a request; called by derived constructors, in argument order.</summary>
    protected void AddRequest(Cown cown, bool isRead) => _requests[_requestCount++] = new Request(this, cown, isRead);

    /// <summary>Runs the body. Returns the task of an asynchronous body, or null for a synchronous one.</summary>
    protected abstract Task? InvokeBody();

    /// <summary>
    /// Delivers the outcome after the cowns are released: to a result awaitable, or (the default) to the runtime's
    /// handler for exceptions of fire-and-forget behaviours.
    /// </summary>
    /// <param name="error">The body's exception, or null if it succeeded.</param>
    /// <param name="bodyTask">The completed task of an asynchronous body, or null.</param>
    protected virtual void Deliver(Exception? error, Task? bodyTask)
    {
        if (error is not null)
        {
            _runtime.ReportUnhandled(error);
        }
    }

    /// <summary>Enqueues on every cown (steps 0-4 of the protocol). Must not throw once phase 1 has started.</summary>
    internal void Enqueue()
    {
        SortAndMerge();
        Request[] requests = _requests;
        int count = _requestCount;

        // Plain write: the first Exchange in phase 1 is a full fence that publishes it.
        _countdown = count + 1;

        for (int i = 0; i < count; i++)
        {
            requests[i].StartEnqueue();
        }

        for (int i = 0; i < count; i++)
        {
            requests[i].FinishEnqueue();
        }

        ResolveOne();
    }

    /// <summary>One dependency resolved; the last one dispatches the behaviour.</summary>
    internal void ResolveOne()
    {
        if (Interlocked.Decrement(ref _countdown) == 0)
        {
            _runtime.Dispatcher.Dispatch(this);
        }
    }

    void IThreadPoolWorkItem.Execute() => Run();

    /// <summary>Runs the body on the current thread, then completes (now, or when an asynchronous body finishes).</summary>
    internal void Run()
    {
        Task? task;
        BocRuntime? outer = t_running;
        t_running = _runtime;
        try
        {
            task = InvokeBody();
        }
        catch (Exception e)
        {
            t_running = outer;
            Finish(e, null);
            return;
        }

        t_running = outer;
        if (task is null || task.IsCompleted)
        {
            Finish(ErrorOf(task), task);
            return;
        }

        // Asynchronous body: keep the cowns until its task completes. ConfigureAwait(false): the release work must
        // not be posted to a captured context (it may be a single-threaded one the caller is blocking).
        _bodyTask = task;
        task.ConfigureAwait(false).GetAwaiter().UnsafeOnCompleted(OnBodyTaskCompleted);
    }

    private void OnBodyTaskCompleted()
    {
        Task task = _bodyTask!;
        _bodyTask = null;
        Finish(ErrorOf(task), task);
    }

    private void Finish(Exception? error, Task? bodyTask)
    {
        // Release first, so the awaiter of a result never observes the cowns still held. Release never runs user
        // code inline: it only resolves countdowns, and a ready behaviour goes to the dispatcher.
        for (int i = 0; i < _requestCount; i++)
        {
            _requests[i].Release();
        }

        try
        {
            Deliver(error, bodyTask);
        }
        finally
        {
            _runtime.OnBehaviourFinished();
        }
    }

    /// <summary>The states of a dynamic set, in the caller's order.</summary>
    protected static IReadOnlyList<T> StatesOf<T>(Cown[] cowns)
        where T : class
    {
        var states = new T[cowns.Length];
        for (int i = 0; i < cowns.Length; i++)
        {
            // Every state in a dynamic set was stored by a cown whose state type is assignable to T (the list's static
            // type says so), so the cast check would only cost time.
            states[i] = Unsafe.As<T>(cowns[i].State);
        }

        return states;
    }

    protected static InvalidOperationException NullTask() =>
        new("The asynchronous body of a behaviour returned a null Task.");

    private static Exception? ErrorOf(Task? task)
    {
        if (task is null || task.IsCompletedSuccessfully)
        {
            return null;
        }

        if (task.IsCanceled)
        {
            return new TaskCanceledException(task);
        }

        AggregateException aggregate = task.Exception!;
        return aggregate.InnerExceptions.Count == 1 ? aggregate.InnerExceptions[0] : aggregate;
    }

    /// <summary>
    /// Step 0: sort by cown id and merge duplicates (write wins), so every spawner visits cowns in one global order
    /// and no behaviour is ever queued twice on one cown (it would wait on itself forever).
    /// </summary>
    private void SortAndMerge()
    {
        Request[] requests = _requests;
        int count = _requestCount;

        if (count > InsertionSortLimit)
        {
            // Large dynamic sets: O(n log n). Ids are unique per cown, so equal keys are the same cown.
            Array.Sort(requests, 0, count, RequestOrder.Instance);
        }
        else
        {
            SortSmall(requests, count);
        }

        int kept = 0;
        for (int i = 0; i < count; i++)
        {
            if (kept > 0 && ReferenceEquals(requests[kept - 1].Target, requests[i].Target))
            {
                requests[kept - 1].IsRead &= requests[i].IsRead;
                continue;
            }

            requests[kept++] = requests[i];
        }

        for (int i = kept; i < count; i++)
        {
            requests[i] = null!;
        }

        _requestCount = kept;
    }

    private static void SortSmall(Request[] requests, int count)
    {
        // Insertion sort: arities are small, and this allocates nothing.
        for (int i = 1; i < count; i++)
        {
            Request current = requests[i];
            long id = current.Target.Id;
            int j = i - 1;
            while (j >= 0 && requests[j].Target.Id > id)
            {
                requests[j + 1] = requests[j];
                j--;
            }

            requests[j + 1] = current;
        }
    }

    private sealed class RequestOrder : IComparer<Request>
    {
        public static readonly RequestOrder Instance = new();

        public int Compare(Request? x, Request? y) => x!.Target.Id.CompareTo(y!.Target.Id);
    }
}
