using System.Diagnostics;
using System.Diagnostics.CodeAnalysis;
using System.Runtime.CompilerServices;
using Boc.Dispatch;

namespace Boc;

// =====================================================================================================================
// The BoC protocol: how a behaviour is enqueued on its cowns, how it learns it may run, and how it lets the next one in.
// Everything that touches the queue state of a cown (Cown.Last, Cown.ReadState, Cown.PendingWriter) or a behaviour's
// request slots is in this file. (Diagnostics/Behaviour.Diagnostics.cs only reads that state, racily, for the
// debugging dump Cown.DescribeQueue; its metrics and tracing hooks in Run and Finish touch only the behaviour's own
// diagnostics fields, so nothing below depends on them.)
//
// Vocabulary (Cheeseman et al., OOPSLA 2023, section 4):
//   * Behaviour - one `When`: a body, the cowns it needs, and a countdown of the cowns it does not hold yet.
//   * Request   - one behaviour's place in one cown's queue (an edge of the paper's dependency graph). Requests live
//                 *inside* the behaviour as Slot structs (inline for one or two cowns, which is most spawns; an
//                 array kept with the pooled behaviour beyond that), so a spawn allocates no request objects. A
//                 request is named by (behaviour, cown): each cown appears in a behaviour at most once, so Cown.Last
//                 and Slot.Next point at behaviours, and the slot for a cown is found by looking the cown up in the
//                 behaviour (slots are sorted by Cown.Id).
//   * Each cown's requests form a FIFO queue linked through Slot.Next, with Cown.Last pointing at the tail's
//     behaviour; that is an MCS queue lock whose waiters are behaviours rather than spinning threads.
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
// Spawn (Behaviour.Enqueue), two-phase as in the paper. A bounded runtime admits the spawn first, before the behaviour
// object is even rented (BocRuntime.Admit: it may wait, refuse, or, for a cancellable spawn, give up when the token is
// canceled while it waits); a refused spawn never reaches these steps, so no queue ever holds half a behaviour. A spawn
// that finds the runtime disposed after admission (BocRuntime.SpawnAdmitted) returns its behaviour unenqueued (Discard).
//   0. Slots are sorted by Cown.Id and duplicates merged (write wins): each cown appears once, so a behaviour never
//      waits on its own request, and every spawner visits cowns in the same global order.
//   1. countdown = slots + 1. The extra unit is held by the spawner until step 4, so the behaviour cannot run (and
//      cannot complete and release) while it is still being linked into other queues.
//   2. Phase 1, per slot in order: Exchange(cown.Last, this). If the old tail is null the queue was empty and the
//      request receives the turn now. Otherwise wait until the old tail's slot for this cown is Scheduled (its own
//      spawner has finished phase 1 for *all* its cowns), then link old tail -> this. The wait is two-phase locking
//      across cowns: once we are past it, the predecessor's Exchange on every cown it needs has happened, so on any
//      later cown we share (higher Id, still ahead of us in phase 1) it is queued ahead of us too. Without it we could
//      Exchange on such a cown first: ahead of it there, behind it here, each waiting for the other (or, with
//      readers, an order that is not the spawn order). Atomicity is not what it protects: a writer predecessor passes
//      the turn on only after its body, which cannot start before step 4, and a reader only once it is Scheduled.
//   3. Phase 2, per slot: set Scheduled. If a reader already received the turn, pass it on now (see below).
//   4. Resolve the extra unit, together with the units of the cowns this spawner found free in phase 1 (one atomic
//      add; none at all when every cown was free, since then no other thread can reach the countdown).
//   Note what "Scheduled" therefore promises a successor: not only that its predecessor has exchanged on all its cowns,
//   but, because the predecessor waited in turn before linking, that so has everything queued ahead of it. A spawner
//   that links behind P on one cown and then moves on to another relies on that: whatever is ahead of P there has
//   already taken its place.
//
// One cown (Behaviour.EnqueueOne, the reference runtime's schedule_one). With a single request there is nothing to sort
// or merge and no other queue to be linked into, so phases 1 and 2 collapse: Exchange; if there is a predecessor, wait
// for it to be Scheduled (the promise above must hold for us too, so we may not set our flag before that), set our
// own flag, and only then link. The countdown is 1 and there is no extra unit: from the link on, the predecessor may
// give us the turn and we may run, so the spawner touches the behaviour no more; before the link no one can reach the
// countdown. Exactly one party resolves it: the spawner (empty queue, no active readers), a predecessor's release
// (Grant), or the last reader leaving (the pending writer of GrantWrite). A reader that takes the turn from an empty
// queue counts itself in and passes the turn on before it is dispatched, as every reader does.
//   (A first version set the flag before the Exchange, so that the Exchange would publish it. That breaks the promise:
//   a two-cown spawner could link behind the one-cown behaviour, move on, and overtake on its second cown the
//   two-cown behaviour queued just ahead of the one-cown one: opposite orders on two cowns, a deadlock. The oracle
//   stress tests found it.)
//
// Completion (Behaviour.Finish): writers pass the turn on (PassOn), readers count themselves out (LeaveRead).
//
// PassOn is the MCS release: if Next is linked, give it the turn. Otherwise try CAS(cown.Last, this -> null); if that
// succeeds the queue is empty and the next spawner takes the turn from the empty queue. If the CAS fails, a spawner
// has swapped itself in behind us and will link Next as soon as it sees us Scheduled, so wait for the link.
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
// Scheduled flag, which is set only in phase 2: a self-deadlock. Slot.State arbitrates, with one atomic OR each,
// between the thread that delivers the turn (sets Granted) and the spawner's phase 2 (sets Scheduled): whichever sets
// the second bit does the PassOn. This is the race the Verona runtime once got wrong (a reader still mid-enqueue
// taken for a finished one); here the reader's state word makes the hand-over exactly-once.
//
// Cancellation (WhenAsync(..., CancellationToken); BehaviourCancellation.cs, CancellationRequest.cs). A spawn whose
// token can be canceled gets a CancellationRequest (Behaviour.Cancellation; null otherwise, and then no step below
// does more than read that field). Its state word goes Pending -> Started (CAS in Run, before the body) or Pending ->
// Withdrawn (CAS by the token callback, "the canceller"); exactly one wins, so a behaviour either runs entirely or is
// withdrawn, and its awaitable says which (a BehaviourWithdrawnException, an OperationCanceledException with the
// token). A Started behaviour is plain from then on: the canceller touches nothing but the request, and the body can
// read the token (Behaviours.CurrentCancellationToken). A token canceled already, or canceled while the spawn waits for
// room on a full runtime (BocRuntime.Admit(CancellationToken) then returns false having counted nothing), completes the
// awaitable at once (CompleteUnspawned) and enqueues nothing: there is no queue state to undo. Otherwise the callback is registered only after Enqueue has returned, so the canceller never meets
// a spawner in phase 1 or 2: every slot is Scheduled and the spawner's own countdown unit is resolved.
//   A withdrawn behaviour keeps its place in every queue, and the turn still travels through it, so the order among
// the other behaviours is the one they would have had with it. What changes is what it does with a turn. Per slot, one
// more pair of bits arbitrates who passes it on, like Granted/Scheduled for readers: the canceller sets Withdrawn on
// each slot (after winning the state word); the deliverer sets a bit when the turn has become the behaviour's:
//   * a writer: Held, set where it would resolve its unit, i.e. holding the turn with no active readers (Hold: from
//     GrantWrite, from the last leaving reader, and, as plain writes, by the spawner when it took the turn from an
//     empty queue; no canceller exists then). A writer still waiting for readers (registered as Cown.PendingWriter with
//     WriterWaiting set) has not set Held, so the canceller leaves it alone and it keeps waiting: passing the turn on
//     from there would let a successor writer take the turn while GrantWrite's invariant says the holder waits. If the
//     turn arrives after Withdrawn is set (GrantWrite sees the bit first), the writer does not wait for readers at all:
//     it needs no exclusivity, and a writer behind it still waits for them through ReadState.
//     Whoever sets the second of {Held, Withdrawn} passes the turn on (PassOn + Grant): exactly once.
//   * a reader: Granted, set after it counted itself in, as before; its turn is passed on by the Granted/Scheduled
//     hand-over as always (Scheduled is set, so the deliverer passes it on at once). What is left to arbitrate is its
//     count in ReadState: whoever sets the second of {Granted, Withdrawn} counts it out (LeaveRead), exactly once. The
//     deliverer counts in before setting Granted, so the canceller never counts out a reader that is not counted in.
//     (The one-cown path sets Granted too when it counts a reader in from an empty queue.)
// The deliverer resolves the slot's countdown unit whether or not the behaviour was withdrawn, after passing the turn
// on if it was (once resolved, the behaviour may complete and be pooled, so the slot is read before). So the countdown
// still reaches zero exactly once, when every slot has received the turn; by then every slot has been passed on or
// is held and will be passed on by the canceller. The behaviour is dispatched; Run loses the CAS and joins.
// Completion of a withdrawal is a join of two: the canceller, once it has marked every slot (passing on the turns
// already held), and Run, reached when every slot has received the turn. The second completes it: the awaitable fails
// with BehaviourWithdrawnException, the pending count counts it finished, and the behaviour goes back to the pool.
//   Why it is correct:
//   * Exactly one pass per slot: the bit pairs above; a writer slot whose turn never arrives has no pass to make.
//   * No use of a pooled behaviour: the canceller touches the behaviour only after winning Pending -> Withdrawn, and
//     then the body never runs, so the behaviour completes only through the join, which waits for the canceller. A
//     deliverer touches a slot only before resolving its unit, and the join waits for the countdown. A callback that
//     fires late (the behaviour ran and was pooled, even reused) finds the request's state decided and stops: the
//     request is a fresh object per spawn, never pooled, and is unregistered when the behaviour completes (the
//     spawner or the completer unregisters, whichever is later, through one Exchange). The spawner touches only the
//     request after Enqueue; the behaviour cannot be pooled before that, since the awaiter holds half of it and gets
//     its awaitable only when WhenAsync returns.
//   * Order among the rest: the queues are unchanged, and a withdrawn request passes the turn on only after it
//     arrives, i.e. after every earlier writer on that cown has finished; readers ahead that still run keep their
//     count, so a later writer still waits for them. So whatever the turn could reach before, it reaches in the same
//     order, only sooner.
//   * Deadlock freedom: the canceller waits only in PassOn, for a spawner linking behind a Scheduled slot, as Finish
//     does; a withdrawn writer waiting for readers waits for bodies that are running. A withdrawn slot never waits for
//     the behaviour's other cowns, so it adds no waits-for edge between cowns.
//
// Batches (BocRuntime.Batch; Behaviour.EnqueueBatch). A batch spawns several behaviours ("members") as one step, as the
// reference runtime's schedule_many does: no other behaviour is queued between two members on any cown they share,
// and on each cown the members are queued in batch order. The members are ordinary behaviours (slots, countdown,
// Finish); only the spawn differs, and it is the general spawn above done once for the whole batch:
//   0. Each member sorts and merges its slots (step 0) and sets countdown = slots + 1 (step 1), the extra unit held by
//      the batch's spawner. Then every request of the batch is sorted by (cown id, member index); the keys are unique,
//      so on each cown the members' requests stay in batch order.
//   1. Phase 1, per distinct cown in ascending id: link the batch's requests on that cown to each other first (slot
//      Next = the following member; plain writes), then ONE Exchange(cown.Last, last member of the run). If the queue
//      was empty, the run's head takes the turn exactly as a single spawner does (TakeTurnFromEmptyQueue; its unit is
//      resolved with an atomic decrement, which cannot reach zero while the extra unit is held); otherwise wait for the
//      old tail to be Scheduled and link it to the head (LinkBehind), as a single spawner does.
//   2. Phase 2 and step 4, member by member in batch order: Scheduled on every slot (a reader granted meanwhile passes
//      the turn on here, FinishEnqueue as always), then resolve the member's extra unit.
// Why it is correct:
//   * Nothing comes between. A foreign request enters a cown's queue only by its own Exchange on Last, which adds it
//     after the current tail. The batch's whole run on that cown enters with one Exchange, already linked inside, so
//     no foreign Exchange can fall between two of its requests: the run is contiguous in the queue, and the turn
//     moves strictly along the queue (including its reader rules), so no foreign behaviour gets the turn between two
//     members either. A foreign writer behind the run waits for the run's readers through ReadState, as for any readers.
//   * Order within the batch: the run is in member order (the sort), so on each cown member i's request is ahead of
//     member j's for i < j, with everything "Ordered" below says about a queue.
//   * Two-phase locking over the whole batch: no slot of any member is Scheduled before the batch has exchanged on all
//     its cowns, and the batch waits for each predecessor's Scheduled before linking. So the batch behaves, towards
//     every other spawner, like one behaviour that requests the union of its members' cowns: the promise "Scheduled"
//     makes above holds for each member's slots (everything ahead of the run, and the whole batch, has taken its
//     place on every cown), and the order of spawns (the batch as one) is the same on every cown they share.
//   * Deadlock free: the batch's spawner visits cowns in ascending id and waits only as a single spawner does (for a
//     predecessor's Scheduled, then in phase 2 only in PassOn for a spawner already past its Exchange), so the
//     argument under "Deadlock free" holds with the batch as one spawner. Inside the batch, member i waits for member
//     j on a shared cown only if i > j: no cycle. Between the batch and others, the queues agree with one total order
//     of spawns (previous point), so the waits-for graph of behaviours follows it: no cycle.
//   * Reader hand-over: within a run a reader's turn is passed on by the same Granted/Scheduled arbitration. During
//     phase 1 only a run's head can receive the turn (a writer head holds it until its body ends, which cannot start
//     before step 4; a reader head passes it on only once Scheduled, in phase 2), so pre-linked successors are first
//     reached in phase 2 or later, when their own flags are about to be set or set.
//   * Nothing half-enqueued: the batch is validated while it is built (each b.When checks its arguments before it
//     records anything), admitted whole (BocRuntime.AdmitBatch: room for every member, or none), and counted in and
//     checked for disposal before EnqueueBatch starts; from phase 1 on nothing throws. A batch that fails before (the
//     builder throws, admission or disposal refuses it) enqueued nothing: its members were never published, so they
//     are abandoned (Behaviour.Abandon: an awaitable fails as canceled, the object returns to its pool).
//   * Cancellation: members have no cancellation request (no token is offered inside a batch), so FinishEnqueue's
//     plain Scheduled store on writers stays sound (only readers' state words are written by other threads).
//   * One-cown members take the general path (countdown with the extra unit, phase 2), not EnqueueOne: a pre-linked
//     successor may be reached before the batch's spawner is done, and the extra unit is what keeps it from running.
//
// Appending (BocRuntime.SpawnOne; AppendableActionBehaviour). A flood (one body spawning thousands of one-cown
// behaviours on a cown that is still busy with the earlier ones) would pay a whole behaviour per message: an object
// written on the spawner's core and read, written and recycled on the runner's, two or three cache-line transfers
// and a dispatch each. So a one-cown spawn from a plain fire-and-forget `When` may instead be *appended* to the
// behaviour at its cown's tail, if that behaviour is of the same class, on the same runtime, and has not started, and
// if the spawn only reads or the tail writes (a write never rides in a reader):
// its body is stored in that behaviour's list of appended bodies (up to MaxAppended), and the tail behaviour runs
// them, in append order, right after its own body and before it releases the cown. A message then costs one
// uncontended CAS and a 16-byte entry, and the runner reads several entries per cache line, as a mailbox does.
//   The append word (AppendableBehaviour's _appendState, one long): Open | Writing | count of appended bodies,
// and a generation in the high 32 bits.
//   * Opening. EnqueueOne opens the word (new generation, count 0, Open) right after its Exchange on Cown.Last, so
//     the word is open only while the behaviour is queued and has not started: never before it is at the tail (an
//     append to a behaviour not yet enqueued would run the appended body at a place in the queue decided later, after
//     spawns that returned before it), and before anything can run it (the link comes after). It opens only if the
//     Exchange found a predecessor: a behaviour that found its queue empty is dispatched at once, leaving no time worth
//     appending in, and its run then closes nothing (a chain from cown to cown, each body spawning the next message
//     on an idle cown, pays no CAS). Nor does it open behind the body running on the spawning thread: a body that
//     spawns the next message on its own cown (a chain on one cown) would otherwise pay a CAS at every run to close a
//     word nobody appends to; a body that floods its own cown loses only its first spawn's chance to take appends.
//   * Appending (TryClaimAppend, then ReleaseAppend). The appender read Cown.Last and found the behaviour. It reads
//     the word: Open, not Writing, below MaxAppended, else it spawns normally. It checks that the behaviour's cown and
//     runtime are its own. Then one CAS sets Writing on exactly the word it read; it writes the entry; and a release
//     store publishes count + 1 and clears Writing. The generation makes the CAS fail if the behaviour ran, went back
//     to the pool and was reused meanwhile (its word now carries another generation), so everything read between the
//     word and the CAS belongs to the life that was open; and while Writing is set, the runner cannot close the word,
//     so the object cannot finish and be reused under the entry being written.
//   * Closing (CloseAppends). Run closes the word before the body starts: it waits while Writing is set, then one CAS
//     clears Open. The count it read is final: every appended body was written before its count was published, and
//     no append can succeed after the close. They run after the behaviour's own body, in index order; each failure is
//     kept and reported after the release, as a fire-and-forget failure is. Each appended body counts as a spawned
//     and a finished behaviour (pending count, bound, metrics), so quiescence and backpressure see each one.
//   * Holding a filling tail (HoldWhileFilling, before the close). A runner that reaches a behaviour whose word is
//     open, with some bodies appended and room for more, while the behaviour is still its cown's tail, has most likely
//     caught up with a spawner that is appending to it right now. Closing at once would cut the batch short: the
//     spawner's next spawn finds the word closed and pays a behaviour of its own, which the runner reaches as soon as
//     it is linked, and so on, one short batch after another, with the two cores trading the tail's cache lines at
//     every spawn. (Count, one body flooding a counter with a million spawns: besides the one spawn in 32 that finds
//     the tail full, 3-10% found it started or lost the claim to the close, and a run took 1.5 to 1.6 times as long as
//     with the hold.) So on a BocScheduler worker, while nothing else is queued anywhere in its scheduler (no core has
//     other work to give this one), the runner first waits one poll interval at a time (BocScheduler.FloodPollSpins),
//     as long as each interval brings at least one more appended body; it stops when one does not, when the word is
//     full, or when work is queued.
//     It changes nothing that the argument relies on: the hold comes before the close, so the word, the claims and the
//     close are as described, and it only starts the behaviour later, which a busy scheduler may do anyway. Its reads
//     (the word, the tail, the queues) are hints without fences: a wrong guess costs one interval or one short batch.
//     Bounded: an interval that lets the hold go on has seen the count grow, and the count stops at MaxAppended, so the
//     hold lasts at most MaxAppended intervals; it waits for no other thread's step, so it cannot deadlock. Not on the
//     thread pool, whose idle threads are not known; and no hold without appends, so none under a spawn hook.
//   * Yielding (AppendableBehaviour.TryYield and RunRest). A run of up to 32 bodies holds its worker for all of them,
//     which is what a flood of cheap messages wants, but not a flood of long ones: Savina's Recursive Matrix
//     Multiplication appends 8 ms leaves, 32 to a run, onto five chains, and with two workers the chains took turns
//     only every quarter second, so one chain ran on alone at the end (benchmarks/README.md, "Long floods take
//     turns"). So on a BocScheduler worker, after every 8th appended body, the runner looks at the coarse clock
//     (Environment.TickCount64): once the run has lasted the scheduler's AppendedRunSliceMilliseconds (10 ms) and other
//     work waits anywhere in the scheduler (HasOtherWork, a hint), it records where it stopped (next body, count,
//     failures so far, the own body's failure) in a record kept with the pooled object, queues the record at the back
//     of the inbox (BocScheduler.EnqueueYielded), and returns to Run an unfinished task instead of finishing. Run
//     treats it as an asynchronous body: the cowns stay held until the task completes. Whichever worker takes the
//     record runs the remaining bodies (and may yield again), counts them out, and completes the task; its
//     continuation finishes the behaviour (release, failures, count) as for any asynchronous body.
//     Why it keeps the guarantees: the behaviour holds every cown from its first body to its release, with or without
//     yields, so nothing else runs on its cowns in between, and the remaining bodies run in index order after the
//     earlier ones (the inbox's enqueue is a release of the record and of everything the bodies so far wrote, and the
//     taking worker's dequeue an acquire, so its bodies see all of it, on ARM64 as on x64). Nothing
//     is lost or run twice: the record is queued exactly once per yield and taken exactly once, the word was closed
//     before the first body, and each body's entry is cleared after it runs. The counts are as without a yield (each
//     appended body counted out once, in FinishAppended, before the release). A yield only delays the rest of a run
//     behind work that waited, so no bound in items gets longer: the rest is one more item, queued behind the others.
//     Cost: two clock reads per run of short bodies (the check after the 8th body turns the later ones off when the
//     clock has not moved since the run started), and nothing on runs too short to reach a check. Not on the thread
//     pool (no queue of the runtime's to yield to), nor on a thread that is not one of the scheduler's workers.
// Why appending keeps the protocol's guarantees:
//   * Order. An appended body runs exactly where the tail behaviour is in its cown's queue: after everything queued
//     before the tail, and before everything queued after it (the tail releases only after its appended bodies). An
//     append succeeds only if its spawner read Cown.Last and found the tail, and the CAS finds the tail still open. A
//     spawn X that happens-before the append made its Exchange before the appender's read of Last, so the appender
//     would have found X or a later tail, not this one; so X is queued ahead of the tail, and runs first. A spawn that
//     the append happens-before comes after the CAS, so it is queued after the tail, or appended after this entry:
//     it runs later. A spawn concurrent with the append (an Exchange between the appender's read and its CAS) may
//     end up behind the appended body: with no happens-before between them, either order is allowed, and the appended
//     body names only this cown, so no other queue has to agree with this one.
//   * Atomicity and exclusivity. The appended bodies run inside the tail behaviour's run, and with its access: a
//     writer's holds the cown exclusively, and TryClaimAppend (which checks the mode after the word, so it is the
//     open life's) lets only reads into a reader, so what runs beside a reader's run is other readers only. A read in
//     a writer runs alone, which a read may. A reader releases (drops the reader count that a writer behind it waits
//     for) only after its appended bodies, though it passed the turn on when it was granted, so a writer queued after
//     the tail still runs after every read appended to it. Appending a read trades parallelism for cost: it runs
//     after the tail's body on the tail's worker, where as a reader of its own it could have run beside it. So reads
//     ride only while no BocScheduler worker is idle (spinning or parked), when no core is free to run them beside it
//     anyway, and never on the thread pool (BocRuntime.ReadsMayAppend). That is a hint read without a fence: a wrong
//     guess costs parallelism or a behaviour, never correctness.
//   * Nothing lost, nothing twice. An entry is published under Writing with the word Open; the runner's close waits
//     for Writing to clear, so it reads a count that includes every published entry and no unpublished one, and runs
//     each once. A failed claim (word closed, full, Writing, or of another generation) writes nothing; the spawn then
//     enqueues a behaviour of its own.
//   * Deadlock freedom. The only wait is the runner's for an appender that holds Writing, which writes one entry and
//     releases it without waiting for anything.
//   * Bounds. A behaviour runs at most 1 + MaxAppended bodies, so the scheduler's latency bounds (counted in items, one
//     behaviour per item) stretch by that factor at most, and only for floods: a chain (each body spawning the next
//     on its own cown) never appends, since the tail it finds is its own behaviour, which is running and closed.
//   * Not under the controlled runtime of Boc.Testing (a spawn hook): there, every spawn is a scheduling point of its
//     own. Not while the start-delay histogram or behaviour tracing is on: those are per behaviour.
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
//   * Appending. The appender reads Cown.Last on c1, then on c2, and must find the same behaviour on both; then the
//     claim, as for one cown, checking (after the word) that the behaviour's two slots are writes of c1 and c2 in
//     argument order, on its runtime.
//   * Order. On each cown, the argument for one cown holds as it stands: the appender found the tail on that cown's
//     Last, so every spawn that happens-before the append is queued ahead of the tail there, and every spawn the append
//     happens-before is queued behind it (or appended later). The appended body takes the tail's place on both queues at
//     once, and the tail's places are consistent (phase 1 put it on both in id order, behind its predecessors), so no two
//     behaviours end up ordered one way on c1 and the other on c2. If the tail ran and its object was reused between the
//     appender's reads of Last and its CAS, the generation fails the CAS, or the new life is a pair on exactly c1 and c2
//     whose word opened after its phase 1: then every spawn that happens-before the append is still ahead of it (its
//     Exchanges came before the appender's reads), and the spawns after the appender's reads are concurrent with it.
//   * Atomicity, exclusivity, nothing lost or twice, deadlock freedom, bounds and reuse: as for one cown. The body runs
//     inside the tail's run, which holds both cowns; only writes of both are taken, so no reader is involved.
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
// Reuse (behaviours are pooled; see BehaviourPool). A behaviour may go back to the pool only when nothing can reach it:
//   * predecessors: they reach it through the countdown, which is zero once it runs, so none touches it again;
//   * successors: a successor's spawner reads our slot (Scheduled) and writes our slot's Next; PassOn waits for that
//     write before returning, and every PassOn of ours happens before we return to the pool (a writer's in Finish; a
//     reader's before its countdown unit is resolved, so before the behaviour can even run);
//   * cowns: Cown.Last points at us until PassOn's CAS clears it or a successor replaces it; Cown.PendingWriter points
//     at us only while we wait for readers, and is cleared before we are resolved (by the last reader, or by
//     GrantWrite itself when its CAS loses to a leaving reader and it looks again).
//   * appenders ("Appending"): an appender writes to a behaviour only while it holds the Writing bit of an open word,
//     and the runner closes the word (waiting for Writing to clear) before the body starts, so before Finish; what an
//     appender reads before its CAS may belong to a later life, but then the generation makes the CAS fail.
// So after Finish has passed on or left every slot, nothing points at the behaviour. A spawn refused after renting (a
// runtime disposed between admission and Enqueue) returns its behaviour before Enqueue, while its awaitable is still a
// local of the spawning method that is never handed out: nothing has pointed at it (Discard). A behaviour awaited through a
// ValueTask returns to the pool only when both the delivering thread has finished setting the outcome and the awaiter
// has taken it (GetResult), whichever is last; the reset then moves the ValueTask's token (the completion core's
// version) on, so a second use of the ValueTask is detected. Debug builds also stamp links with a generation number
// and check it (Slot.NextGeneration), and refuse any protocol step on a behaviour that sits in the pool.
// =====================================================================================================================

/// <summary>One behaviour's request on one cown: its place in that cown's queue.</summary>
internal struct Slot
{
    /// <summary>Set in phase 2: the spawner has finished phase 1, so a successor may link to this request.</summary>
    internal const int Scheduled = 1;

    /// <summary>A reader has received the turn (it still has to pass it on, if not done yet).</summary>
    internal const int Granted = 2;

    /// <summary>
    /// A writer of a cancellable behaviour holds the turn with no active readers (where it resolves its countdown); set
    /// only on cancellable behaviours' writer slots, as the deliverer's half of the withdrawal arbitration.
    /// </summary>
    internal const int Held = 4;

    /// <summary>The behaviour was withdrawn (set by the canceller, after it won the behaviour's state; see "Cancellation").</summary>
    internal const int Withdrawn = 8;

    /// <summary>Flag in <see cref="Cown.ReadState"/>: <see cref="Cown.PendingWriter"/> waits for the readers to leave.</summary>
    internal const int WriterWaiting = 1 << 30;

    internal Cown Target;

    /// <summary>The behaviour queued after this one on <see cref="Target"/>; written once, by its spawner.</summary>
    internal Behaviour? Next;

    /// <summary><see cref="Scheduled"/>, <see cref="Granted"/>, <see cref="Held"/> and <see cref="Withdrawn"/> bits.</summary>
    internal int State;

    internal bool IsRead;

#if DEBUG
    internal int NextGeneration;
#endif
}

/// <summary>One request of a batch while it is enqueued: the cown's id, the member's index, the slot's index in it.</summary>
internal readonly record struct BatchRequest(long CownId, int Member, int Slot);

/// <summary>Where a behaviour keeps its slots (see "Slot storage" on <see cref="Behaviour"/>).</summary>
internal enum SlotLayout : byte
{
    /// <summary>One slot, the base class's inline one.</summary>
    One,

    /// <summary>Two slots: the base class's inline one, and the second that two-cown behaviour classes declare.</summary>
    Pair,

    /// <summary>Every slot in the array kept with the pooled object (three or more cowns, or a dynamic cown list).</summary>
    Overflow,
}

/// <summary>
/// A spawned behaviour: its request slots, its countdown, and (in derived classes) its body. Derived classes are
/// generated per arity and body shape (<c>Generated/BehaviourKinds.g.cs</c>); all queue logic is in this class.
/// </summary>
internal abstract partial class Behaviour : IThreadPoolWorkItem
{
    // Slot storage. A slot is 24 bytes, and every byte of a behaviour is paid per pending behaviour: a flood (one body
    // spawning a million one-cown behaviours that another worker runs) keeps hundreds of thousands pending, and its time
    // goes mostly to the GC copying them and to cache misses on them. So the base class carries exactly one inline slot
    // (what one-cown behaviours, the most common kind, need); the generated two-cown classes declare the second
    // (SecondSlot), so a pair costs no array and no slot is carried by a behaviour that does not use it; three or more
    // cowns, or a dynamic list, use an array kept with the pooled object, so steady-state reuse allocates nothing. The
    // same reasoning moved the rarely used fields (that array, an async body's continuation, a cancellation) into one
    // side object (_extras), and lets one- and two-cown classes find their cowns in their slots instead of keeping a
    // second reference. A pending one-cown behaviour went from 144 bytes to 88 (96 since the append word of
    // "Appending"), a two-cown one from 152 to 112.

    // Cross-thread waits in the protocol (for a predecessor's Scheduled flag, for a successor's link) last nanoseconds
    // unless the other thread was preempted mid-spawn. SpinWait yields the core after its first few iterations; it
    // sleeps for a millisecond only after this many, which bounds the cost of many spawner threads on few cores without
    // turning a brief wait into a 1 ms stall, as SpinWait's default threshold of 20 can (one noisy measurement hinted
    // at that; the threshold is not tuned).
    private const int LongWaitSleepThreshold = 100;
    private const int InsertionSortLimit = 16;

    private Slot _first;
    private SlotLayout _layout;

    /// <summary>Set by <see cref="SortAndMergePair"/> when the cowns' order by id is the reverse of the arguments'.</summary>
    private bool _pairSwapped;
    private int _slotCount;
    private int _countdown;
    private BocRuntime? _runtime;

    /// <summary>
    /// What only some behaviours need (a slot array, an asynchronous body's continuation, a cancellation), off the
    /// common object because every byte of a behaviour is paid per pending behaviour in a flood. Created when first
    /// needed and kept with the pooled object, so steady-state reuse allocates nothing.
    /// </summary>
    private BehaviourExtras? _extras;

#if DEBUG
    /// <summary>Incremented each time the behaviour returns to its pool (debug builds check links against it).</summary>
    private int _generation;
#endif

    /// <summary>Set when the body starts (see <see cref="WaitsFor"/>); cleared when the behaviour returns to its pool.</summary>
    private bool _started;

    /// <summary>
    /// Gets the spawn's cancellation (a <c>WhenAsync</c> given a token that can be canceled), or null: the common case,
    /// in which no step of the protocol does anything for cancellation beyond reading this. Set before Enqueue.
    /// </summary>
    private CancellationRequest? Cancellation => _extras?.Cancellation;

    /// <summary>Gets the slot array of the <see cref="SlotLayout.Overflow"/> layout.</summary>
    private Slot[]? Overflow => _extras?.Overflow;

#if DEBUG
    private bool _pooled;
#endif

    /// <summary>Gets the runtime this behaviour was spawned on.</summary>
    protected BocRuntime Runtime => _runtime!;

    /// <summary>
    /// Gets the cown of a behaviour spawned on exactly one cown: its only request, which stays in inline slot 0 (one
    /// request is neither sorted nor merged) until the behaviour returns to the pool.
    /// </summary>
    protected Cown OnlyCown => _first.Target;

    /// <summary>
    /// The cown a two-cown behaviour's first or <paramref name="second"/> argument named, found in its slots once
    /// <see cref="SortAndMergePair"/> has ordered them (both arguments name the one merged slot if they were the same cown).
    /// </summary>
    protected Cown PairCown(bool second)
    {
        if (_slotCount == 1)
        {
            return _first.Target;
        }

        return second != _pairSwapped ? SecondSlot.Target : _first.Target;
    }

    /// <summary>
    /// Gets the second slot of a two-cown behaviour class (its <see cref="SlotLayout.Pair"/> storage). Only classes that
    /// pass <c>pair: true</c> to <see cref="Prepare"/> override it; the base is never reached otherwise.
    /// </summary>
    protected virtual ref Slot SecondSlot => throw new InvalidOperationException("Boc protocol error: this behaviour has no inline second slot.");

    // ---------------------------------------------------------------------------------------------------------------
    // Set-up: the generated Init methods call Prepare, then AddRequest per cown, on a behaviour fresh from the pool.
    // ---------------------------------------------------------------------------------------------------------------

    /// <summary>
    /// Prepares the behaviour for a spawn that names <paramref name="capacity"/> cowns (duplicates included);
    /// <paramref name="pair"/> says the derived class declares <see cref="SecondSlot"/> (two-cown classes).
    /// </summary>
    protected void Prepare(BocRuntime runtime, int capacity, bool pair = false)
    {
        AssertLive();
        _runtime = runtime;
        _slotCount = 0;
        _layout = capacity == 1 ? SlotLayout.One : capacity == 2 && pair ? SlotLayout.Pair : SlotLayout.Overflow;
        _pairSwapped = false;
        if (_layout == SlotLayout.Overflow)
        {
            BehaviourExtras extras = _extras ??= new BehaviourExtras();
            if (extras.Overflow is null || extras.Overflow.Length < capacity)
            {
                // Kept with the pooled behaviour, so steady-state reuse at the same size allocates nothing.
                extras.Overflow = new Slot[capacity];
            }
        }
    }

    /// <summary>
    /// Adds the request that a <c>When</c> argument (an <see cref="IAcquirable{T}"/>) makes, without an interface call
    /// (<see cref="Acquisition"/>); called by derived Init methods, in argument order. Returns the cown.
    /// </summary>
    protected Cown AddRequest(object acquirable)
    {
        Cown cown = Acquisition.CownOf(acquirable, out bool isRead);
        AddRequest(cown, isRead);
        return cown;
    }

    /// <summary>Adds a request; called by derived Init methods, in argument order.</summary>
    protected void AddRequest(Cown cown, bool isRead)
    {
        ref Slot slot = ref SlotAt(_slotCount);
        _slotCount++;
        slot.Target = cown;
        slot.IsRead = isRead;
        slot.Next = null;
        slot.State = 0;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Spawn
    // ---------------------------------------------------------------------------------------------------------------

    /// <summary>Enqueues on every cown (steps 0-4 of the protocol). Must not throw once phase 1 has started.</summary>
    internal void Enqueue() => Enqueue(null);

    /// <summary>
    /// <see cref="Enqueue()"/> for a spawner that holds the calling thread's <see cref="BocThread"/> (null to look it
    /// up only if needed): a behaviour ready at once goes to the worker's next slot without another thread-static
    /// lookup.
    /// </summary>
    internal void Enqueue(BocThread? thread)
    {
        AssertLive();
        int count = _slotCount;
        if (count == 1)
        {
            EnqueueOne(thread);
            return;
        }

        SortAndMerge();
        count = _slotCount;

        // Plain write: the first Exchange in phase 1 is a full fence that publishes it (and the slots).
        _countdown = count + 1;

        // Turns this thread takes from empty queues are counted here rather than decremented one by one.
        int ownGrants = 0;
        Behaviour? firstPrevious = null;
        for (int i = 0; i < count; i++)
        {
            if (StartEnqueue(ref SlotAt(i), out Behaviour? previous))
            {
                ownGrants++;
            }

            if (i == 0)
            {
                firstPrevious = previous;
            }
            else if (count == 2 && previous is not null && ReferenceEquals(previous, firstPrevious))
            {
                // A pair queued behind one behaviour on both cowns (a flood on one pair), which nothing can run before
                // our extra countdown unit is resolved below: an appendable pair opens for appends now ("Appending",
                // pairs); for every other class this does nothing. Not behind the body running on this thread, as in
                // EnqueueOne. Behind different behaviours no spawn could append, since both cowns' tails must be one.
                if (!ReferenceEquals(previous, thread?.Running))
                {
                    OpenAppends();
                }
            }
        }

        for (int i = 0; i < count; i++)
        {
            FinishEnqueue(ref SlotAt(i));
        }

        if (ownGrants == count)
        {
            // Fast path (every cown was free): every unit of the countdown is ours, and no other thread can reach it
            // (no predecessor will grant us anything, and we wait for no reader), so no atomic decrement is needed.
            _runtime!.Dispatch(this, thread);
            return;
        }

        // Resolve our own units, plus the extra one, in one step; whoever brings the count to zero dispatches.
        if (Interlocked.Add(ref _countdown, -(ownGrants + 1)) == 0)
        {
            _runtime!.Dispatch(this, thread);
        }
    }

    /// <summary>
    /// Phase 1 for one slot. Returns true if this thread took the turn from an empty queue and the cown is ready for
    /// this request (the caller then resolves that unit of the countdown itself).
    /// </summary>
    /// <remarks><paramref name="previous"/> is the predecessor it linked behind, or null.</remarks>
    private bool StartEnqueue(ref Slot slot, out Behaviour? previous)
    {
        Cown cown = slot.Target;

        // Exchange is a full fence: everything this spawner wrote before (the slots, the countdown) is visible to
        // whoever reads Last and finds this behaviour.
        previous = Interlocked.Exchange(ref cown.Last, this);
        if (previous is null)
        {
            return TakeTurnFromEmptyQueue(ref slot);
        }

        LinkBehind(previous, cown);
        return false;
    }

    /// <summary>
    /// Phase 1 on a cown whose queue this spawner found empty: the turn is this request's. Returns true if the cown is
    /// ready for it (the caller resolves that unit of the countdown itself); false if a writer waits for active readers.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TakeTurnFromEmptyQueue(ref Slot slot)
    {
        Cown cown = slot.Target;

        // The queue was empty: no earlier behaviour holds or waits for the turn, so it is ours.
        if (slot.IsRead)
        {
            // Count in as a reader; passing the turn on waits for phase 2 (FinishEnqueue), as for any reader
            // granted before it is Scheduled. Nobody else writes this slot's state yet: no predecessor exists.
            Interlocked.Increment(ref cown.ReadState);
            slot.State = Slot.Granted;
            return true;
        }

        // A writer also needs the readers that already left the queue (but still run) to finish. With the turn
        // ours no reader can join, so a zero seen here stays zero.
        if (Volatile.Read(ref cown.ReadState) == 0)
        {
            // Held: the turn is ours with no readers. Plain write: no predecessor exists, and a canceller is
            // registered only after Enqueue ("Cancellation").
            slot.State = Slot.Held;
            return true;
        }

        // Nothing to pass on: no canceller exists before Enqueue returns, so the slot cannot be Withdrawn yet.
        _ = GrantWrite(this, cown);
        return false;
    }

    /// <summary>Phase 1's link: makes this behaviour the successor of <paramref name="previous"/> on <paramref name="cown"/>.</summary>
    private void LinkBehind(Behaviour previous, Cown cown) => Link(ref WaitUntilScheduled(previous, cown));

    /// <summary>Waits until <paramref name="previous"/>'s request on <paramref name="cown"/> is Scheduled; returns that slot.</summary>
    private static ref Slot WaitUntilScheduled(Behaviour previous, Cown cown)
    {
        previous.AssertLive();
        ref Slot previousSlot = ref previous.SlotFor(cown);

        // Link only after the predecessor's spawner has finished phase 1 everywhere: two-phase locking for our later
        // cowns. Until then it may still have to Exchange on a cown we are about to reach; waiting here keeps it
        // ahead of us on every cown we share, so no two behaviours are queued in opposite orders on two cowns.
        // (Atomicity is not what this protects: a predecessor passes the turn on only after step 4 or, a reader, once
        // Scheduled.)
        // The predecessor's spawner may be descheduled mid phase 1, so bound the spin and then yield (SpinWait's
        // default): with more spawners than cores, a pure spin takes the core the awaited spawner needs.
        if ((Volatile.Read(ref previousSlot.State) & Slot.Scheduled) == 0)
        {
            var spin = default(SpinWait);
            while ((Volatile.Read(ref previousSlot.State) & Slot.Scheduled) == 0)
            {
                spin.SpinOnce(LongWaitSleepThreshold);
            }
        }

        return ref previousSlot;
    }

    /// <summary>Links this behaviour behind the (Scheduled) request <paramref name="previousSlot"/>.</summary>
    private void Link(ref Slot previousSlot)
    {
#if DEBUG
        previousSlot.NextGeneration = _generation;
#endif

        // Release semantics: the predecessor's PassOn reads Next and then touches this behaviour.
        Volatile.Write(ref previousSlot.Next, this);
    }

    /// <summary>
    /// The one-cown spawn (the reference runtime's <c>schedule_one</c>): no sort, no merge, no phase 2, no extra
    /// countdown unit. See "One cown" in the protocol comment for why each step may be skipped.
    /// </summary>
    private void EnqueueOne(BocThread? thread)
    {
        ref Slot slot = ref SlotAt(0);
        Cown cown = slot.Target;

        // Plain write: the Exchange below is a full fence that publishes it (and the slot).
        _countdown = 1;
        Behaviour? previous = Interlocked.Exchange(ref cown.Last, this);
        if (previous is not null)
        {
            // At the tail of a busy queue, and nothing can run it before the link below: an appendable behaviour opens
            // for appends now ("Appending"); for every other class this does nothing. Not behind the body running on
            // this thread: that is a chain on one cown (each body spawning the next), which would pay a CAS to close
            // a word nobody appends to.
            if (!ReferenceEquals(previous, (thread ?? BocThread.CurrentOrNull)?.Running))
            {
                OpenAppends();
            }

            // Wait for the predecessor to be Scheduled before we say we are ("One cown" above), then link. From the link
            // on the predecessor may give us the turn and we may run: the spawner must not touch the behaviour again.
            ref Slot previousSlot = ref WaitUntilScheduled(previous, cown);
            Volatile.Write(ref slot.State, Slot.Scheduled);
            Link(ref previousSlot);
            return;
        }

        // The queue was empty: nothing is ahead of us, so a successor may link at once.
        if (slot.IsRead)
        {
            // Count in as a reader, then pass the turn on before the body can run, as Grant does for every reader.
            // Granted too: a canceller (registered after Enqueue) must see that this reader counted itself in.
            Interlocked.Increment(ref cown.ReadState);
            Volatile.Write(ref slot.State, Slot.Scheduled | Slot.Granted);
            Behaviour? next = PassOn(ref slot);
            if (next is not null)
            {
                Grant(next, cown);
            }

            _runtime!.Dispatch(this, thread);
            return;
        }

        Volatile.Write(ref slot.State, Slot.Scheduled);

        // A writer with the turn still waits for readers that left the queue but still run; with the turn ours none
        // can join, so a zero seen here stays zero.
        if (Volatile.Read(ref cown.ReadState) == 0)
        {
            // Held, for a canceller registered after Enqueue ("Cancellation"). Plain write: nobody else writes the slot
            // now (no predecessor, no canceller yet; a successor's spawner only reads it).
            slot.State = Slot.Scheduled | Slot.Held;
            _runtime!.Dispatch(this, thread);
            return;
        }

        _ = GrantWrite(this, cown);
    }

    /// <summary>
    /// Enqueues the first <paramref name="count"/> of <paramref name="members"/> as one batch ("Batches" in the protocol
    /// comment): every request of every member in one two-phase step, with the members' requests on each cown linked to
    /// each other in batch order before one Exchange puts the whole run at that cown's tail. Must not throw once phase 1
    /// has started; the members are fresh from Init, and none is cancellable.
    /// </summary>
    internal static void EnqueueBatch(Behaviour[] members, int count)
    {
        // Step 0 and step 1 per member; then the batch's requests, sorted by (cown id, member index). Keys are unique
        // (a member names each cown once after the merge), so the sort keeps batch order on each cown.
        int total = 0;
        for (int m = 0; m < count; m++)
        {
            Behaviour member = members[m];
            member.AssertLive();
            Debug.Assert(member.Cancellation is null, "Batch members are never cancellable.");
            member.SortAndMerge();

            // Plain write: the first Exchange below is a full fence that publishes it (and the slots).
            member._countdown = member._slotCount + 1;
            total += member._slotCount;
        }

        var requests = new BatchRequest[total];
        int next = 0;
        for (int m = 0; m < count; m++)
        {
            Behaviour member = members[m];
            for (int i = 0; i < member._slotCount; i++)
            {
                requests[next++] = new BatchRequest(member.SlotAt(i).Target.Id, m, i);
            }
        }

        requests.AsSpan().Sort(static (x, y) => x.CownId != y.CownId ? x.CownId.CompareTo(y.CownId) : x.Member.CompareTo(y.Member));

        // Phase 1, per cown in ascending id: link the batch's run on the cown, then place it with one Exchange.
        int start = 0;
        while (start < total)
        {
            int end = start + 1;
            while (end < total && requests[end].CownId == requests[start].CownId)
            {
                end++;
            }

            for (int k = start; k < end - 1; k++)
            {
                // Plain writes: nobody reaches these slots before the Exchange below publishes them.
                Behaviour successor = members[requests[k + 1].Member];
                ref Slot slot = ref members[requests[k].Member].SlotAt(requests[k].Slot);
#if DEBUG
                slot.NextGeneration = successor._generation;
#endif
                slot.Next = successor;
            }

            Behaviour head = members[requests[start].Member];
            ref Slot headSlot = ref head.SlotAt(requests[start].Slot);
            Cown cown = headSlot.Target;
            Behaviour? previous = Interlocked.Exchange(ref cown.Last, members[requests[end - 1].Member]);
            if (previous is null)
            {
                if (head.TakeTurnFromEmptyQueue(ref headSlot))
                {
                    // Never the last unit: the member's extra unit is still held (step 4 below).
                    Interlocked.Decrement(ref head._countdown);
                }
            }
            else
            {
                head.LinkBehind(previous, cown);
            }

            start = end;
        }

        // Phase 2 and step 4, member by member in batch order. A member released here may run and finish while later
        // members are still in phase 2; it then gives the turn to a batch successor as it would to any successor.
        for (int m = 0; m < count; m++)
        {
            Behaviour member = members[m];
            for (int i = 0; i < member._slotCount; i++)
            {
                member.FinishEnqueue(ref member.SlotAt(i));
            }

            member.ResolveOne();
        }
    }

    /// <summary>Phase 2 for one slot.</summary>
    private void FinishEnqueue(ref Slot slot)
    {
        if (!slot.IsRead)
        {
            if (Cancellation is not null)
            {
                // A predecessor's release may be setting Held on this slot right now ("Cancellation"): keep both bits.
                Interlocked.Or(ref slot.State, Slot.Scheduled);
                return;
            }

            // Otherwise only readers ever have another thread write their state (Granted), so a writer's flag can be a
            // plain release store (keeping the Held bit this thread may have set): a successor spinning on it then sees
            // everything phase 1 wrote.
            Volatile.Write(ref slot.State, slot.State | Slot.Scheduled);
            return;
        }

        int old = Interlocked.Or(ref slot.State, Slot.Scheduled);
        if ((old & Slot.Granted) != 0)
        {
            // A reader got the turn before it was Scheduled (during our phase 1, or from a predecessor meanwhile); the
            // deliverer left passing it on to us. Doing it here, before the spawner's final ResolveOne, keeps the
            // invariant that a reader has passed the turn on before its behaviour can run.
            Debug.Assert(slot.IsRead, "Only readers set Granted.");
            Behaviour? next = PassOn(ref slot);
            if (next is not null)
            {
                Grant(next, slot.Target);
            }
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // The turn
    // ---------------------------------------------------------------------------------------------------------------

    /// <summary>
    /// Gives the turn on <paramref name="cown"/> to <paramref name="behaviour"/>, then along any run of readers that
    /// are already Scheduled. Iterative, so that a long run of readers does not grow the stack. <paramref name="thread"/>
    /// is the calling thread's <see cref="BocThread"/> if the caller holds it (a release on a worker), for the dispatch.
    /// </summary>
    private static void Grant(Behaviour behaviour, Cown cown, BocThread? thread = null)
    {
        while (true)
        {
            behaviour.AssertLive();
            ref Slot slot = ref behaviour.SlotFor(cown);
            if (!slot.IsRead)
            {
                // A withdrawn writer hands back the successor it passed the turn on to: continue with it here, so a
                // long run of withdrawn writers does not grow the stack either.
                Behaviour? following = GrantWrite(behaviour, cown, thread);
                if (following is null)
                {
                    return;
                }

                behaviour = following;
                continue;
            }

            // Count ourselves in before the turn moves on, so a writer behind us sees an active reader.
            Interlocked.Increment(ref cown.ReadState);

            Behaviour? next = null;
            int old = Interlocked.Or(ref slot.State, Slot.Granted);
            if ((old & Slot.Withdrawn) != 0)
            {
                // Withdrawn before the turn reached it: the canceller saw no Granted and left the count to us. Count
                // out again; the turn is still ours, so no writer waits on this cown and this only decrements.
                LeaveRead(cown);
            }

            if ((old & Slot.Scheduled) != 0)
            {
                // Our spawner is done with phase 1, so successors can link: pass the turn on now, before resolving
                // (once resolved, the behaviour may run, finish and be reused while we would still read its slot).
                next = behaviour.PassOn(ref slot);
            }

            // Otherwise the spawner's phase 2 passes the turn on (FinishEnqueue); its final ResolveOne comes after.
            behaviour.ResolveOne(thread);

            if (next is null)
            {
                return;
            }

            behaviour = next;
        }
    }

    /// <summary>
    /// A writer receives the turn. Returns the successor to give the turn to next if the writer was withdrawn and passed
    /// it on (see "Cancellation"); null otherwise.
    /// </summary>
    private static Behaviour? GrantWrite(Behaviour writer, Cown cown, BocThread? thread = null)
    {
        if (writer.Cancellation is not null && (Volatile.Read(ref writer.SlotFor(cown).State) & Slot.Withdrawn) != 0)
        {
            // Withdrawn before the turn arrived (the canceller saw no Held, so the slot is ours to pass on): it needs no
            // exclusivity, so it does not wait for active readers either.
            return writer.ArriveWithdrawn(ref writer.SlotFor(cown), thread);
        }

        while (true)
        {
            int readers = Volatile.Read(ref cown.ReadState);
            if (readers == 0)
            {
                // No reader is active, and none can join: the turn is ours until our behaviour finishes.
                return Hold(writer, cown, thread);
            }

            Debug.Assert((readers & Slot.WriterWaiting) == 0, "Only the holder of the turn waits for readers.");

            // Publish who waits before the flag that makes a leaving reader look for it (the CAS is a full fence).
            Volatile.Write(ref cown.PendingWriter, writer);
            if (Interlocked.CompareExchange(ref cown.ReadState, readers | Slot.WriterWaiting, readers) == readers)
            {
                return null;
            }

            // A reader left between our read and the CAS; look again (we may now see zero). Clear our name first: the
            // flag is not set, so no reader reads it, and if we now see zero we hold the cown, finish and may go back
            // to the pool, where nothing may point at us ("Reuse" above).
            Volatile.Write(ref cown.PendingWriter, null);
        }
    }

    private static void LeaveRead(Cown cown)
    {
        int remaining = Interlocked.Decrement(ref cown.ReadState);
        if (remaining != Slot.WriterWaiting)
        {
            return;
        }

        // We were the last active reader and a writer holds the turn, waiting for us. Nobody else can change the word
        // now (no reader can join while the writer holds the turn), so plain writes suffice; clear PendingWriter
        // first so the next waiting writer's store is never overwritten.
        Behaviour writer = Volatile.Read(ref cown.PendingWriter)!;
        Volatile.Write(ref cown.PendingWriter, null);
        Volatile.Write(ref cown.ReadState, 0);
        if (Hold(writer, cown) is { } next)
        {
            Grant(next, cown);
        }
    }

    /// <summary>
    /// A writer holds the turn with no active readers: resolve its unit. A cancellable writer first arbitrates with
    /// the canceller (see "Cancellation") and, if withdrawn, passes the turn on; the successor is returned to be granted.
    /// </summary>
    private static Behaviour? Hold(Behaviour writer, Cown cown, BocThread? thread = null)
    {
        if (writer.Cancellation is null)
        {
            writer.ResolveOne(thread);
            return null;
        }

        ref Slot slot = ref writer.SlotFor(cown);
        int old = Interlocked.Or(ref slot.State, Slot.Held);
        if ((old & Slot.Withdrawn) != 0)
        {
            return writer.ArriveWithdrawn(ref slot, thread);
        }

        writer.ResolveOne(thread);
        return null;
    }

    /// <summary>
    /// The turn reached a withdrawn writer's slot and this thread is the one to pass it on: do so, then resolve the
    /// unit (last: once resolved, the behaviour may complete its withdrawal and go back to the pool).
    /// </summary>
    private Behaviour? ArriveWithdrawn(ref Slot slot, BocThread? thread = null)
    {
        Behaviour? next = PassOn(ref slot);
        ResolveOne(thread);
        return next;
    }

    /// <summary>MCS release: returns the successor that should get the turn, or null if the queue became empty.</summary>
    private Behaviour? PassOn(ref Slot slot)
    {
        Behaviour? next = Volatile.Read(ref slot.Next);
        if (next is null)
        {
            if (Interlocked.CompareExchange(ref slot.Target.Last, null, this) == this)
            {
                return null;
            }

            // A spawner swapped itself in behind us; it links as soon as it sees us Scheduled, which we are. It may be
            // descheduled between its Exchange and the link, so spin a bounded while, then yield (SpinWait's default).
            var spin = default(SpinWait);
            while ((next = Volatile.Read(ref slot.Next)) is null)
            {
                spin.SpinOnce(LongWaitSleepThreshold);
            }
        }

#if DEBUG
        if (next._generation != slot.NextGeneration)
        {
            throw new InvalidOperationException("A linked successor was returned to the pool while still queued.");
        }
#endif
        return next;
    }

    /// <summary>
    /// One dependency resolved; the last one dispatches the behaviour (<paramref name="thread"/>: the calling thread's
    /// <see cref="BocThread"/>, if the caller holds it).
    /// </summary>
    internal void ResolveOne(BocThread? thread = null)
    {
        AssertLive();
        if (Interlocked.Decrement(ref _countdown) == 0)
        {
            _runtime!.Dispatch(this, thread);
        }
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Appending ("Appending" in the protocol comment). The word lives in the appendable classes (AppendableBehaviour's
    // _appendState), so that no other behaviour pays for it; every step on it is here.
    // ---------------------------------------------------------------------------------------------------------------

    /// <summary>How many bodies may be appended to one behaviour, besides its own.</summary>
    /// <remarks>
    /// 31 (a run of 32 bodies): floods of cheap messages amortize a behaviour over that many (Savina Count and
    /// Radixsort actor ran 1.35 to 1.75 times as fast as with 7, in BenchmarkDotNet before/after runs). When
    /// appending came, 31 made pipelines of expensive stages slower (Filterbank 2.4 times, Sieve 10%) and the bound
    /// was cut to 7; on today's scheduler neither is slower with 31, and Filterbank's time is decided per process, in
    /// three modes, whatever the bound (benchmarks/README.md, "Floods are appended" and "Longer appended runs"). Not
    /// more: 63 measured no faster, and each extra body lengthens the scheduler's latency bounds in bodies (README,
    /// "Bounds count behaviours").
    /// </remarks>
    internal const int MaxAppended = 31;

    private const long AppendCountMask = 0xFF;
    private const long AppendOpen = 1 << 8;
    private const long AppendWriting = 1 << 9;
    private const long AppendGenerationMask = unchecked((long)0xFFFF_FFFF_0000_0000);
    private const long AppendGenerationUnit = 1L << 32;

    /// <summary>
    /// EnqueueOne, right after its Exchange made this behaviour the tail of a busy queue, and the general Enqueue, after
    /// phase 1 put a pair behind one behaviour on both cowns: an appendable class opens its word for this life
    /// (<see cref="OpenAppends(ref long)"/>); the base does nothing. (A virtual call rather than a flag: a flag would cost
    /// every behaviour eight bytes, and this runs only on a spawn behind a predecessor.)
    /// </summary>
    protected virtual void OpenAppends()
    {
    }

    /// <summary>Opens <paramref name="word"/>, an appendable behaviour's, for this life (see <see cref="OpenAppends()"/>).</summary>
    protected static void OpenAppends(ref long word)
    {
        // Plain read: the last life closed the word (or it is fresh, 0), and an appender only CASes an open word, so no
        // other thread writes it now. The release store publishes the open word after everything Init wrote (an
        // appender checks the cown and the runtime after reading it). A new generation, so that an appender still
        // holding a word of an earlier life fails its CAS.
        Volatile.Write(ref word, ((word & AppendGenerationMask) + AppendGenerationUnit) | AppendOpen);
    }

    /// <summary>
    /// Claims the right to append to this behaviour, found at <paramref name="cown"/>'s tail by a spawn on
    /// <paramref name="runtime"/> that only reads the cown if <paramref name="read"/>. On success the word is held
    /// Writing: the caller must end with <see cref="ReleaseAppend"/>, promptly (the runner waits for it).
    /// <paramref name="claimed"/> is the word as it was claimed.
    /// </summary>
    protected bool TryClaimAppend(ref long word, BocRuntime runtime, Cown cown, bool read, out long claimed)
    {
        long seen = Volatile.Read(ref word);
        claimed = seen;
        if (!LooksAppendable(seen))
        {
            return false;
        }

        // Read after the word: if the CAS below finds the same word (same generation), these belong to the life that
        // was open, queued on its cown's queue, and not started.
        // A write rides only in a writer: in a reader it would share the cown with the other readers. A read may ride
        // in either (in a writer it runs alone, which a read may).
        if (!ReferenceEquals(_first.Target, cown) || !ReferenceEquals(_runtime, runtime) || (!read && _first.IsRead))
        {
            return false;
        }

        // Full fence: the runner's close cannot pass it, and the entry written next cannot be seen before it.
        return Interlocked.CompareExchange(ref word, seen | AppendWriting, seen) == seen;
    }

    /// <summary>
    /// <see cref="TryClaimAppend(ref long, BocRuntime, Cown, bool, out long)"/> for a pair: claims the right to append
    /// to this two-cown behaviour, found at the tail of both <paramref name="first"/> and <paramref name="second"/> by a
    /// spawn on <paramref name="runtime"/> that writes both, named in that order ("Appending", pairs).
    /// </summary>
    protected bool TryClaimPairAppend(ref long word, BocRuntime runtime, Cown first, Cown second, out long claimed)
    {
        long seen = Volatile.Read(ref word);
        claimed = seen;
        if (!LooksAppendable(seen))
        {
            return false;
        }

        // Read after the word, as for one cown. Two slots (distinct cowns, not merged into one), both writes, naming the
        // spawn's cowns in its argument order: an appended body takes the states in the order its spawn named them.
        if (_slotCount != 2 || !ReferenceEquals(PairCown(second: false), first) || !ReferenceEquals(PairCown(second: true), second)
            || _first.IsRead || SecondSlot.IsRead || !ReferenceEquals(_runtime, runtime))
        {
            return false;
        }

        // Full fence, as for one cown.
        return Interlocked.CompareExchange(ref word, seen | AppendWriting, seen) == seen;
    }

    /// <summary>Gets whether this is a pair of distinct cowns, both written: the only pair that takes appends.</summary>
    protected bool IsWritePair => _slotCount == 2 && !_first.IsRead && !SecondSlot.IsRead;

    /// <summary>
    /// Gets whether <paramref name="word"/> looks claimable now (open, not being written, not full): a plain read, a hint
    /// that lets a spawn skip the claim's preparations when the tail has started (a chain) or is full; the claim itself
    /// decides.
    /// </summary>
    protected static bool LooksAppendable(long word) =>
        (word & (AppendOpen | AppendWriting)) == AppendOpen && (word & AppendCountMask) < MaxAppended;

    /// <summary>Gets how many bodies <paramref name="word"/> says are appended, if it is open (for the queue dump).</summary>
    protected static int OpenAppendedCount(long word) => (word & AppendOpen) != 0 ? (int)(word & AppendCountMask) : 0;

    /// <summary>Gets the index of the body that a claim returned by <see cref="TryClaimAppend"/> may write.</summary>
    internal static int AppendIndex(long claimed) => (int)(claimed & AppendCountMask);

    /// <summary>
    /// Ends a claim: publishes the body written at <see cref="AppendIndex"/> (count + 1) if <paramref name="published"/>,
    /// and lets the runner close the word. A release store: the runner that reads the new count sees the body.
    /// </summary>
    protected static void ReleaseAppend(ref long word, long claimed, bool published) => Volatile.Write(ref word, published ? claimed + 1 : claimed);

    /// <summary>
    /// Run, before the body: closes the word, and returns how many bodies were appended (0 without a CAS when it was
    /// never opened in this life). After the close no append succeeds, so the count is final. A tail that is still
    /// filling may first be held open for a few poll intervals (<see cref="HoldWhileFilling"/>).
    /// </summary>
    protected int CloseAppends(ref long word)
    {
        long seen = Volatile.Read(ref word);
        if ((seen & AppendOpen) == 0)
        {
            // Not opened in this life (the spawn found its queue empty): nobody can claim it.
            return 0;
        }

        // Some appended and room for more, and still the tail of its (first) cown: a spawner is most likely appending
        // now ("Holding a filling tail"). Plain reads: a hint.
        long count = seen & AppendCountMask;
        if (count != 0 && count < MaxAppended && ReferenceEquals(Volatile.Read(ref _first.Target.Last), this))
        {
            seen = HoldWhileFilling(ref word, seen);
        }

        var spin = default(SpinWait);
        while (true)
        {
            if ((seen & AppendWriting) == 0 && Interlocked.CompareExchange(ref word, seen & ~AppendOpen, seen) == seen)
            {
                return (int)(seen & AppendCountMask);
            }

            // An appender is writing its body (or one claimed between our read and the CAS): it ends its claim without
            // waiting for anything, so this wait is short unless it was preempted.
            spin.SpinOnce(LongWaitSleepThreshold);
            seen = Volatile.Read(ref word);
        }
    }

    /// <summary>
    /// The runner's hold on an open tail that a spawner is filling ("Holding a filling tail"): on a
    /// <see cref="BocScheduler"/> worker whose scheduler has nothing else to run, waits one poll interval at a time while
    /// each interval brings at least one more appended body, up to <see cref="MaxAppended"/>. Returns the word as last read.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static long HoldWhileFilling(ref long word, long seen)
    {
        if (BocThread.CurrentOrNull?.Worker is not { } worker)
        {
            // The thread pool, or a drain after disposal: whether a thread is free for other work is not known here.
            return seen;
        }

        BocScheduler scheduler = worker.Scheduler;
        long count = seen & AppendCountMask;

        // At most MaxAppended intervals: each one that lets the hold go on has seen the count grow, and it stops at
        // MaxAppended.
        for (int interval = 0; interval < MaxAppended; interval++)
        {
            if (scheduler.HasOtherWork(worker))
            {
                break;
            }

            scheduler.FloodPollHook?.Invoke();
            Thread.SpinWait(BocScheduler.FloodPollSpins);
            seen = Volatile.Read(ref word);
            long grown = seen & AppendCountMask;
            if (grown == count || grown >= MaxAppended)
            {
                // No new body in a whole interval (the spawner has finished or paused), or no room left. (The word is
                // still open: only this runner closes it.)
                break;
            }

            count = grown;
        }

        return seen;
    }

    // ---------------------------------------------------------------------------------------------------------------
    // Run and complete
    // ---------------------------------------------------------------------------------------------------------------

    void IThreadPoolWorkItem.Execute() => Run(BocThread.Current);

    /// <summary>
    /// Runs the body on the current thread, then completes (now, or when an asynchronous body finishes).
    /// <paramref name="thread"/> is the calling thread's <see cref="BocThread"/>: a <see cref="BocScheduler"/> worker
    /// passes its own, looked up once, and a synchronous body's release uses it too.
    /// </summary>
    internal void Run(BocThread thread)
    {
        AssertLive();
        if (Cancellation is { } cancellation && !cancellation.TryStart())
        {
            // Withdrawn: every slot has been (or is being) passed on instead; join the canceller ("Cancellation").
            cancellation.Join();
            return;
        }

        Task? task;
        _started = true;

        // Metrics and tracing (Behaviour.Diagnostics.cs): only if something was captured at spawn.
        Activity? ambient = _spawnMicros != 0 || _traced ? OnBodyStarting() : null;
        // The thread's object is fixed for the thread's lifetime, and this method runs on one thread until it returns.
        ref Behaviour? running = ref thread.Running;
        Behaviour? outer = running;
        running = this;
        try
        {
            task = InvokeBody();
        }
        catch (Exception e)
        {
            running = outer;
            Finish(e, null, thread);
            return;
        }

        running = outer;
        if (_traced)
        {
            LeaveSpanOnThisThread(ambient);
        }

        if (task is null || task.IsCompleted)
        {
            Finish(ErrorOf(task), task, thread);
            return;
        }

        // Asynchronous body: keep the cowns until its task completes. ConfigureAwait(false): the release work must
        // not be posted to a captured context (it may be a single-threaded one the caller is blocking). The delegate
        // is created once per pooled object, not per behaviour.
        BehaviourExtras extras = _extras ??= new BehaviourExtras();
        BodyTaskCompletion completion = extras.BodyTask ??= new BodyTaskCompletion(this);
        completion.Task = task;
        // (Under Boc.Testing the runtime asks for the captured context instead: the controlled run's, which queues the
        // release as a step of the run.)
        task.ConfigureAwait(_runtime!.ContinuesOnCapturedContext).GetAwaiter().UnsafeOnCompleted(completion.OnCompleted);
    }

    /// <summary>The rarely needed parts of a behaviour (see <see cref="_extras"/>).</summary>
    private sealed class BehaviourExtras
    {
        /// <summary>Every slot, in the <see cref="SlotLayout.Overflow"/> layout.</summary>
        internal Slot[]? Overflow;

        /// <summary>An asynchronous body's continuation, created on the first one this object runs.</summary>
        internal BodyTaskCompletion? BodyTask;

        /// <summary>The current spawn's cancellation; cleared when the behaviour returns to its pool.</summary>
        internal CancellationRequest? Cancellation;

        /// <summary>An appendable behaviour's appended bodies (an array of its entry type), created on the first append.</summary>
        internal object? Appended;

        /// <summary>Failures of appended bodies, kept to be reported after the release; cleared when reported.</summary>
        internal List<Exception>? AppendedFailures;

        /// <summary>An appendable behaviour's record of a yielded run (see "Yielding"), created on its first yield.</summary>
        internal object? YieldedRun;
    }

    /// <summary>
    /// Gets or sets the array of appended bodies of an appendable class (see "Appending"). Set only by an
    /// appender holding the word's Writing bit, read only by the runner after it closed the word: the word orders both.
    /// </summary>
    protected object? AppendedBodies
    {
        get => _extras?.Appended;
        set => (_extras ??= new BehaviourExtras()).Appended = value;
    }

    /// <summary>
    /// Gets or sets an appendable class's record of where a yielded run of appended bodies stopped (see "Yielding"):
    /// kept with the pooled object, written by the runner before it queues the rest, read by whoever runs the rest.
    /// </summary>
    protected object? YieldedRun
    {
        get => _extras?.YieldedRun;
        set => (_extras ??= new BehaviourExtras()).YieldedRun = value;
    }

    /// <summary>Keeps a failure of an appended body, to be reported after the release (runner only).</summary>
    protected void KeepAppendedFailure(Exception error) => ((_extras ??= new BehaviourExtras()).AppendedFailures ??= []).Add(error);

    /// <summary>Takes the kept failures of appended bodies, if any (after the release).</summary>
    protected List<Exception>? TakeAppendedFailures()
    {
        if (_extras?.AppendedFailures is not { } failures)
        {
            return null;
        }

        _extras.AppendedFailures = null;
        return failures;
    }

    /// <summary>Finishes a behaviour when its body's task completes; one per pooled object, reused.</summary>
    private sealed class BodyTaskCompletion
    {
        /// <summary>The continuation, created once, so that awaiting a body allocates nothing per behaviour.</summary>
        internal readonly Action OnCompleted;

        /// <summary>The running body's task; set before the continuation is registered, cleared when it runs.</summary>
        internal Task? Task;

        private readonly Behaviour _owner;

        internal BodyTaskCompletion(Behaviour owner)
        {
            _owner = owner;
            OnCompleted = Complete;
        }

        private void Complete()
        {
            Task task = Task!;
            Task = null;
            _owner.Finish(ErrorOf(task), task, null);
        }
    }

    /// <summary>
    /// Releases the cowns, delivers the outcome and counts the behaviour out. <paramref name="thread"/> is the calling
    /// thread's <see cref="BocThread"/> if the caller has it at hand (a synchronous body's run), else null.
    /// </summary>
    private void Finish(Exception? error, Task? bodyTask, BocThread? thread)
    {
        // Release first, so the awaiter of a result never observes the cowns still held. Release never runs user
        // code inline: it only resolves countdowns, and a ready behaviour goes to the dispatcher.
        int count = _slotCount;
        for (int i = 0; i < count; i++)
        {
            ref Slot slot = ref SlotAt(i);
            Cown cown = slot.Target;
            if (slot.IsRead)
            {
                LeaveRead(cown);
                continue;
            }

            Behaviour? next = PassOn(ref slot);
            if (next is not null)
            {
                Grant(next, cown, thread);
            }
        }

        // A token callback may still fire: it finds the request Started and touches nothing (see "Cancellation").
        Cancellation?.Unregister();

        // Nothing outside reaches this behaviour any more (see "Reuse" above). Deliver may hand it to an awaiter,
        // who returns it to the pool; otherwise it returns here.
        BocRuntime runtime = _runtime!;
        OnBodyFinished(runtime, error);
        runtime.GiveRoomBack();
        try
        {
            if (!Deliver(error, bodyTask))
            {
                Recycle(thread ?? BocThread.Current);
            }
        }
        finally
        {
            runtime.CountOut(thread);
        }
    }

    /// <summary>
    /// Records the cowns this behaviour held in <paramref name="error"/>'s <see cref="Exception.Data"/> under
    /// <see cref="BocRuntime.FailedCownsDataKey"/> (slots are still intact: they are cleared only on recycling).
    /// </summary>
    protected void AnnotateFailure(Exception error)
    {
        var text = new System.Text.StringBuilder();
        for (int i = 0; i < _slotCount; i++)
        {
            if (i > 0)
            {
                text.Append(", ");
            }

            ref Slot slot = ref SlotAt(i);
            text.Append(slot.Target).Append(slot.IsRead ? " (read)" : " (write)");
        }

        try
        {
            error.Data[BocRuntime.FailedCownsDataKey] = text.ToString();
        }
#pragma warning disable CA1031 // A custom exception's Data may refuse the entry; the failure is still reported.
        catch (Exception)
#pragma warning restore CA1031
        {
        }
    }

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

    // ---------------------------------------------------------------------------------------------------------------
    // Body and outcome: implemented by the generated classes and their bases (BehaviourKinds.cs)
    // ---------------------------------------------------------------------------------------------------------------

    /// <summary>Runs the body. Returns the task of an asynchronous body, or null for a synchronous one.</summary>
    protected abstract Task? InvokeBody();

    /// <summary>
    /// Delivers the outcome after the cowns are released. Returns true if an awaiter still holds the behaviour (it
    /// recycles it when it takes the result), false if the caller must recycle it now.
    /// </summary>
    protected abstract bool Deliver(Exception? error, Task? bodyTask);

    /// <summary>Clears references held by the body and returns the behaviour to the calling thread's pool cache.</summary>
    protected void Recycle() => Recycle(BocThread.Current);

    /// <summary>
    /// Clears references held by the body and returns the behaviour to the pool cache of <paramref name="thread"/>, the
    /// calling thread's.
    /// </summary>
    protected abstract void Recycle(BocThread thread);

    /// <summary>
    /// Gives up a behaviour that was initialised but will never be enqueued (a batch that was not spawned): an awaited
    /// one fails its awaitable with <paramref name="reason"/>; a fire-and-forget one just returns to its pool.
    /// </summary>
    internal abstract void Abandon(Exception reason);

    /// <summary>
    /// Returns a behaviour whose spawn was refused after it was rented to its pool. Only before
    /// <see cref="Enqueue()"/>, and only while its awaitable, if it has one, has not left the spawning method: then
    /// nothing else can reach it ("Reuse" above), and no one else returns it.
    /// </summary>
    internal void Discard()
    {
        AssertLive();
        ForgetCompletion();
        Recycle();
    }

    /// <summary>For <see cref="Discard"/>: makes an awaited behaviour's unused awaitable stale.</summary>
    protected virtual void ForgetCompletion()
    {
    }

    /// <summary>Clears what the base class holds; called by <see cref="Recycle(BocThread)"/> implementations.</summary>
    protected void ClearForPool()
    {
        for (int i = 0; i < _slotCount; i++)
        {
            ref Slot slot = ref SlotAt(i);
#if DEBUG
            // "Reuse" above: nothing may point at a pooled behaviour. Cown.Last and Slot.Next are checked through the
            // generation stamps; PendingWriter is checked here.
            if (slot.Target is { } cown && ReferenceEquals(Volatile.Read(ref cown.PendingWriter), this))
            {
                throw new InvalidOperationException("A behaviour went back to the pool while a cown still named it as its pending writer.");
            }
#endif
            slot = default;
        }

        _slotCount = 0;
        _runtime = null;
        _started = false;
        ClearDiagnostics();
        if (_extras is { } extras)
        {
            extras.Cancellation = null;
        }
#if DEBUG
        if (_pooled)
        {
            throw new InvalidOperationException("A behaviour was returned to the pool twice.");
        }

        _pooled = true;
        _generation++;
#endif
    }

    /// <summary>Marks the behaviour as taken from the pool (debug builds check it is not used while pooled).</summary>
    [SuppressMessage("Performance", "CA1822", Justification = "Reads instance state in debug builds.")]
    internal void MarkRented()
    {
#if DEBUG
        _pooled = false;
#endif
    }

    [Conditional("DEBUG")]
    [SuppressMessage("Performance", "CA1822", Justification = "Reads instance state in debug builds.")]
    private void AssertLive()
    {
#if DEBUG
        if (_pooled)
        {
            throw new InvalidOperationException("A behaviour was used after it returned to the pool.");
        }
#endif
    }

    /// <summary>The states of a dynamic set, in the caller's order.</summary>
    protected static IReadOnlyList<T> StatesOf<T>(IAcquirable<T>[] cowns)
        where T : class
    {
        var states = new T[cowns.Length];
        for (int i = 0; i < cowns.Length; i++)
        {
            // Every state in a dynamic set was stored by a cown whose state type is assignable to T (the list's static
            // type says so), so the cast check would only cost time.
            states[i] = Unsafe.As<T>(cowns[i].Cown.State);
        }

        return states;
    }

    protected static InvalidOperationException NullTask() =>
        new("The asynchronous body of a behaviour returned a null Task.");

    // ---------------------------------------------------------------------------------------------------------------
    // Slots
    // ---------------------------------------------------------------------------------------------------------------

    private ref Slot SlotAt(int index)
    {
        if (_layout == SlotLayout.Overflow)
        {
            return ref Overflow![index];
        }

        if (index == 0)
        {
            return ref _first;
        }

        return ref SecondSlot;
    }

    /// <summary>This behaviour's slot for <paramref name="cown"/>, which it is known to request.</summary>
    private ref Slot SlotFor(Cown cown)
    {
        if (_layout != SlotLayout.Overflow)
        {
            // At most two slots.
            if (ReferenceEquals(_first.Target, cown))
            {
                return ref _first;
            }

            if (_slotCount == 2)
            {
                ref Slot second = ref SecondSlot;
                if (ReferenceEquals(second.Target, cown))
                {
                    return ref second;
                }
            }

            throw SlotMissing();
        }

        // Slots are sorted by id: binary search.
        Slot[] slots = Overflow!;
        long id = cown.Id;
        int lo = 0;
        int hi = _slotCount - 1;
        while (lo <= hi)
        {
            int mid = (lo + hi) >>> 1;
            long midId = slots[mid].Target.Id;
            if (midId == id)
            {
                return ref slots[mid];
            }

            if (midId < id)
            {
                lo = mid + 1;
            }
            else
            {
                hi = mid - 1;
            }
        }

        throw SlotMissing();
    }

    /// <summary>
    /// Whether this behaviour cannot start before <paramref name="holder"/>, a behaviour whose body is running, has
    /// finished: this one has not started, and requests a cown that <paramref name="holder"/> holds, with at least one
    /// of the two writing it. It is then queued behind <paramref name="holder"/> on that cown: it cannot be ahead,
    /// since a conflicting request ahead is released only after its body, and this body has not run. So a body that
    /// waits for this behaviour waits for itself. Read-only, for that diagnosis (an await or a block inside a body);
    /// waits through other behaviours (cycles) are not seen.
    /// </summary>
    /// <remarks>
    /// <paramref name="holder"/> is running, so its slots are stable; this behaviour's are stable while its result
    /// is untaken, which the caller checks. <see cref="_started"/> is written before the body starts and read after
    /// the holder acquired the shared cown, which the started behaviour's release happened-before.
    /// </remarks>
    internal bool WaitsFor(Behaviour holder)
    {
        if (ReferenceEquals(this, holder))
        {
            // A body waiting for its own completion.
            return true;
        }

        if (Volatile.Read(ref _started))
        {
            return false;
        }

        // Both slot lists are sorted by cown id: one merge pass.
        int mine = _slotCount;
        int theirs = holder._slotCount;
        int i = 0;
        int j = 0;
        while (i < mine && j < theirs)
        {
            ref Slot wantedSlot = ref SlotAt(i);
            ref Slot heldSlot = ref holder.SlotAt(j);
            Cown? wanted = wantedSlot.Target;
            Cown? held = heldSlot.Target;
            if (wanted is null || held is null)
            {
                // Only a misuse (an untaken result taken concurrently) can clear slots under us: no diagnosis.
                return false;
            }

            if (wanted.Id < held.Id)
            {
                i++;
            }
            else if (wanted.Id > held.Id)
            {
                j++;
            }
            else
            {
                if (!(wantedSlot.IsRead && heldSlot.IsRead))
                {
                    return true;
                }

                i++;
                j++;
            }
        }

        return false;
    }

    private static InvalidOperationException SlotMissing() =>
        new("Boc protocol error: a behaviour reached through a cown does not request that cown.");

    /// <summary>
    /// Step 0: sort by cown id and merge duplicates (write wins), so every spawner visits cowns in one global order
    /// and no behaviour is ever queued twice on one cown (it would wait on itself forever).
    /// </summary>
    private void SortAndMerge()
    {
        if (_slotCount < 2)
        {
            return;
        }

        if (_layout == SlotLayout.Pair)
        {
            SortAndMergePair();
            return;
        }

        Span<Slot> slots = Overflow.AsSpan(0, _slotCount);
        if (slots.Length > InsertionSortLimit)
        {
            // Large dynamic sets: O(n log n). Ids are unique per cown, so equal keys are the same cown.
            slots.Sort(static (x, y) => x.Target.Id.CompareTo(y.Target.Id));
        }
        else
        {
            // Insertion sort: arities are small, and this allocates nothing.
            for (int i = 1; i < slots.Length; i++)
            {
                Slot current = slots[i];
                long id = current.Target.Id;
                int j = i - 1;
                while (j >= 0 && slots[j].Target.Id > id)
                {
                    slots[j + 1] = slots[j];
                    j--;
                }

                slots[j + 1] = current;
            }
        }

        int kept = 0;
        for (int i = 0; i < slots.Length; i++)
        {
            if (kept > 0 && ReferenceEquals(slots[kept - 1].Target, slots[i].Target))
            {
                slots[kept - 1].IsRead &= slots[i].IsRead;
                continue;
            }

            slots[kept++] = slots[i];
        }

        slots[kept..].Clear();
        _slotCount = kept;
    }

    /// <summary><see cref="SortAndMerge"/> for the inline pair: one comparison.</summary>
    private void SortAndMergePair()
    {
        ref Slot second = ref SecondSlot;
        if (ReferenceEquals(_first.Target, second.Target))
        {
            _first.IsRead &= second.IsRead;
            second = default;
            _slotCount = 1;
        }
        else if (_first.Target.Id > second.Target.Id)
        {
            (_first, second) = (second, _first);
            _pairSwapped = true;
        }
    }
}
