using System.Runtime.CompilerServices;
using System.Diagnostics;
using Boc.Diagnostics;
using Boc.Scheduling;

namespace Boc;

// =====================================================================================================================
// The worker loop: where a worker takes its next item from, in what order, and the bounds that order keeps.
//
// Batching, and its bounds:
//   * next slot: at most NextSlotRunLimit items in a row from the slot while the queue holds work, then the slot's
//     item goes to the back of the queue (stealable); an inbox turn in between does not restart the count;
//   * inbox: every InboxCheckInterval-th item a worker runs is taken from the inbox if it has one (Ticks counts every
//     item). A worker whose queue is empty when it takes from the inbox (at that turn, or finding nothing else) takes
//     up to InboxBatch more into its queue, where they wait under the next-slot bound;
//   * stealing takes half of a victim's queue, so an idle worker gets a batch, not one item;
//   * one item may be a flood's behaviour of up to 32 bodies. It checks every FloodPolicy.CheckEvery bodies, and hands
//     its worker over between two bodies once it has run for its inbox slice (FloodPolicy.InboxSliceTicks) while the
//     inbox has work, or for its slice (FloodPolicy.SliceMilliseconds) while any other work waits. The rest of its run
//     goes to the back of the inbox (EnqueueYielded; AppendableBehaviour.cs, "Yielding", has why that keeps every
//     guarantee), and the worker, its slot and queue then empty, takes the inbox's waiting work as a batch. So a flood
//     stretches the inbox bound by at most the inbox slice and CheckEvery bodies, not by 32 bodies per item.
// =====================================================================================================================

public sealed partial class BocScheduler
{
    /// <summary>How many items a busy worker runs between two looks at whether busy time is measured (a power of two).</summary>
    private const int BusyTimeRecheck = 64;

    /// <summary>Runs an item; <paramref name="behaviour"/> says it is known to be a behaviour (it came from the next slot).</summary>
    private void Execute(object item, bool behaviour, BocThread thread)
    {
        if (behaviour)
        {
            // The next slot holds behaviours only (Dispatch fills it): no type test.
            Unsafe.As<Behaviour>(item).Run(thread);
            return;
        }

        Execute(item, thread);
    }

    private void Execute(object item, BocThread thread)
    {
        switch (item)
        {
            case Behaviour behaviour:
                behaviour.Run(thread);
                break;
            case Task task:
                TryExecuteTask(task);
                break;
            default:
                Unsafe.As<IThreadPoolWorkItem>(item).Execute();
                break;
        }
    }

    private void WorkerLoop(Worker self)
    {
        // This thread's object, looked up once: every behaviour run here gets it (BocThread says why).
        BocThread thread = BocThread.Current;
        thread.Worker = self;
        SynchronizationContext.SetSynchronizationContext(_context);

        // The thread was started with UnsafeStart: this is the default (empty) context, which every item starts from.
        ExecutionContext? defaultContext = ExecutionContext.Capture();

        // The contexts an item leaves behind are read from this thread's own object where the runtime allows it
        // (ThreadContextFields says why and what it relies on).
        Thread me = Thread.CurrentThread;
        bool ownFields = ThreadContextFields.Available(me);

        // Whether boc.scheduler.busy_time is enabled: looked up when the worker wakes and every BusyTimeRecheck items,
        // not per item (an instrument's Enabled is a call into System.Diagnostics.DiagnosticSource that dynamic PGO
        // does not always inline). A listener that enables it meanwhile sees busy time from the next look on.
        bool measureBusy = BocMetrics.BusyTime.Enabled;
        while (true)
        {
            object? item = NextItem(self, out bool fromNextSlot);
            if (item is null)
            {
                if (!WaitForWork(self, thread))
                {
                    return;
                }

                measureBusy = BocMetrics.BusyTime.Enabled;
                continue;
            }

            // Inside a body from here until the next NextItem: only now may a thief take what the body puts in the next
            // slot. A release store: a thief that sees it also sees this worker's take of the slot (NextItem).
            Atomic.Write(ref self.InBody, 1);
            if (measureBusy)
            {
                // Measured only while a listener wants it: two timestamps per item.
                long start = Stopwatch.GetTimestamp();
                Execute(item, fromNextSlot, thread);
                Atomic.Write(ref self.BusyTicks, self.BusyTicks + (Stopwatch.GetTimestamp() - start));
            }
            else
            {
                Execute(item, fromNextSlot, thread);
            }

            // An item may have set AsyncLocals (or the culture, or Activity.Current) or replaced the synchronization
            // context; the next, unrelated item must not see them. Both checks are reference compares when nothing
            // changed, which is the common case.
            if (ownFields)
            {
                if (ThreadContextFields.ExecutionContextOf(me) is not null)
                {
                    ExecutionContext.Restore(defaultContext!);
                }

                if (!ReferenceEquals(ThreadContextFields.SynchronizationContextOf(me), _context))
                {
                    SynchronizationContext.SetSynchronizationContext(_context);
                }
            }
            else
            {
                if (!ReferenceEquals(ExecutionContext.Capture(), defaultContext))
                {
                    ExecutionContext.Restore(defaultContext!);
                }

                if (!ReferenceEquals(SynchronizationContext.Current, _context))
                {
                    SynchronizationContext.SetSynchronizationContext(_context);
                }
            }

            // Read by idle workers looking for a blocked one; the owner is the only writer.
            long ticks = self.Ticks + 1;
            Atomic.Write(ref self.Ticks, ticks);
            if ((ticks & (BusyTimeRecheck - 1)) == 0)
            {
                measureBusy = BocMetrics.BusyTime.Enabled;
            }
        }
    }

    /// <summary>
    /// The item this worker runs next, or null if it found none anywhere; <paramref name="fromNextSlot"/> says it is the
    /// behaviour of the next slot.
    /// </summary>
    private object? NextItem(Worker self, out bool fromNextSlot)
    {
        object? item;
        fromNextSlot = false;

        // Out of the body: a thief now leaves the next slot alone (TakeNext's pair with TakeStuckWork).
        Atomic.Write(ref self.InBody, 0);

        // Fairness for outside work: however the worker is kept busy (a chain in its next slot, a queue that refills
        // itself), once every InboxCheckInterval items the next one comes from the inbox if the inbox has any.
        if (self.Ticks >= self.InboxDue)
        {
            self.InboxDue = self.Ticks + InboxCheckInterval;

            // With its own queue empty (a flood that just yielded, a chain between two hops), the worker takes a batch
            // as an idle one would: the requests that arrived together then run one after another, instead of one per
            // InboxCheckInterval bodies; the batch waits in its queue under the next-slot bound.
            item = self.Queue.IsEmpty ? TakeFromInbox(self) : !_inbox.IsEmpty && _inbox.TryDequeue(out object? one) ? one : null;
            if (item is not null)
            {
                // The next-slot run goes on counting: the inbox's turn is not the queue's. (Restarting it here let a
                // worker that takes from the inbox every InboxCheckInterval bodies never reach NextSlotRunLimit, so what
                // a batch had put in its queue waited for the whole chain.)
                return item;
            }
        }

        if (TakeNext(self) is { } next)
        {
            if (self.Ticks - self.NextRunFrom < NextSlotRunLimit)
            {
                fromNextSlot = true;
                return next;
            }

            // Fairness for local work: after a long run from the slot, it queues behind the others (and may be stolen).
            // Only if there are others: behind an empty queue it would be taken straight back, and the wake-up would
            // only cost a futex call and send a peer to steal a chain onto a cold core (every 100 hops of a message
            // chain such as Thread Ring). The count stays past the limit, so the first item queued here later is not
            // made to wait for another full run.
            if (self.Queue.IsEmpty)
            {
                fromNextSlot = true;
                return next;
            }

            PushLocal(self, next);
            WakeOne();
        }

        self.NextRunFrom = self.Ticks;
        return self.Queue.TryTake() ?? TakeFromInbox(self) ?? Steal(self);
    }

    /// <summary>Takes one inbox item to run now and moves a batch more to the worker's (empty) queue.</summary>
    private object? TakeFromInbox(Worker self)
    {
        if (_inbox.IsEmpty || !_inbox.TryDequeue(out object? run))
        {
            return null;
        }

        // A batch, so that a flood from a producer thread does not cost every worker an inbox dequeue per item; the
        // share is bounded so the other workers still find some (and can steal from our queue).
        int batch = Math.Min(InboxBatch, (_inbox.Count / _workers.Length) + 1);
        for (int i = 0; i < batch && _inbox.TryDequeue(out object? more); i++)
        {
            if (!self.Queue.TryPush(more))
            {
                _inbox.Enqueue(more);
                break;
            }
        }

        if (!self.Queue.IsEmpty)
        {
            // Others may be parked while we hold a batch they could share.
            WakeOne();
        }

        return run;
    }

    /// <summary>Steals half of another worker's queue, trying each once, starting after this one.</summary>
    private object? Steal(Worker self)
    {
        RunQueue[] queues = _queues;
        for (int i = 1; i < queues.Length; i++)
        {
            RunQueue victim = queues[(self.Index + i) % queues.Length];
            if (victim.StealHalfInto(self.Queue) is { } item)
            {
                return item;
            }
        }

        return null;
    }

    /// <summary>
    /// Whether work from outside the workers waits in the inbox: a run of appended bodies that has lasted its inbox slice
    /// then hands its worker over at its next check (<c>AppendableBehaviour.cs</c>, "Yielding"). A hint, read without a
    /// fence, as in <see cref="HasOtherWork"/>: work queued a moment later waits for the next check.
    /// </summary>
    internal bool HasInboxWork => !_inbox.IsEmpty;

    /// <summary>
    /// Whether anything other than <paramref name="self"/>'s current item is waiting to run in this scheduler: its next
    /// slot, any worker's queue, or the inbox. A hint, read without fences: it ends a runner's hold on a filling tail
    /// (<c>Behaviour.Appending.cs</c>, "Holding a filling tail") as soon as some core could be given other work, and a wrong
    /// answer costs only one poll interval of that hold, or the hold.
    /// </summary>
    internal bool HasOtherWork(Worker self) => Atomic.Read(ref self.Next) is not null || HasQueuedWork();

    /// <summary>
    /// Whether some worker other than <paramref name="self"/> is outside a body (between items, looking for work, or
    /// parked), and so can take what waits in <paramref name="self"/>'s queue, which it steals from; if one is parked,
    /// one is woken. A hint, read without a fence (<see cref="Worker.InBody"/> is its owner's release store): a run of
    /// appended bodies that finds a peer free leaves its queued work to that peer instead of yielding to it
    /// (<c>AppendableBehaviour.cs</c>, "Yielding"), and a wrong answer costs one check interval, after which it asks again.
    /// </summary>
    internal bool PeerCanTakeQueuedWork(Worker self)
    {
        foreach (Worker other in _workers)
        {
            if (other != self && Atomic.Read(ref other.InBody) == 0)
            {
                // It may be asleep: the queued work's own wake-up can have gone to a spinner that has since parked.
                WakeOne();
                return true;
            }
        }

        return false;
    }

    private bool HasQueuedWork()
    {
        if (!_inbox.IsEmpty)
        {
            return true;
        }

        foreach (RunQueue queue in _queues)
        {
            if (!queue.IsEmpty)
            {
                return true;
            }
        }

        return false;
    }

    internal sealed class Worker
    {
        public Worker(BocScheduler scheduler, int index)
        {
            Scheduler = scheduler;
            Index = index;
            LastSeenTicks = new long[scheduler._workers.Length];
            Thread = new Thread(static w => ((Worker)w!).Scheduler.WorkerLoop((Worker)w!))
            {
                IsBackground = true,
                Name = $"Boc worker {index}",
            };
        }

        public BocScheduler Scheduler { get; }

        public int Index { get; }

        public Thread Thread { get; }

        public RunQueue Queue { get; } = new();

        /// <summary>Buffer for moving half a full queue to the inbox (owner only).</summary>
        public object?[] Spill { get; } = new object?[RunQueue.Capacity / 2];

        public long[] LastSeenTicks { get; }

        /// <summary>The behaviour to run next on this worker; taken by the owner, or by an idle worker if stuck.</summary>
        public Behaviour? Next;

        /// <summary>1 while the owner runs an item (set before it, cleared in NextItem): only then may a thief take <see cref="Next"/>.</summary>
        public int InBody;

        /// <summary>1 while a thief decides whether to take <see cref="Next"/> (TakeStuckWork; one thief at a time).</summary>
        public int Stealing;

        /// <summary>
        /// Items run by this worker: the inbox-check clock, and read by idle workers to spot a blocked body. Owner
        /// writes, with release stores.
        /// </summary>
        public long Ticks;

        /// <summary>The tick at or after which the worker next owes the inbox its turn (owner only).</summary>
        public long InboxDue;

        /// <summary>Time spent running items while <c>boc.scheduler.busy_time</c> is enabled (Stopwatch ticks; owner writes).</summary>
        public long BusyTicks;

        /// <summary>
        /// The tick (<see cref="Ticks"/>) at which the current run of items from <see cref="Next"/> began: the items run
        /// since then are what the next-slot bound counts (owner only).
        /// </summary>
        public long NextRunFrom;
    }
}
