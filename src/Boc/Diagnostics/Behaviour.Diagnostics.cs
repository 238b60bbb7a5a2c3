using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Runtime.CompilerServices;
using System.Text;
using Boc.Diagnostics;

namespace Boc;

// Metrics and tracing state carried by a behaviour, and the best-effort queue dump for debugging. Nothing here takes
// part in the protocol (Protocol/): the hooks only read the behaviour's own fields, and the queue dump only reads.
internal abstract partial class Behaviour
{
    // Kept small on purpose: every behaviour carries these fields, and they fit in the padding the base class had
    // (a one-cown behaviour stays within its 128-byte allocation). The tracing state itself lives in a side table.

    /// <summary>
    /// The spawn time in microseconds (<see cref="SpawnClock"/>), or 0: taken only while the start-delay histogram is
    /// enabled. 32 bits wrap after about 71 minutes, so a longer wait is reported modulo that.
    /// </summary>
    private uint _spawnMicros;

    /// <summary>Whether tracing state was captured at spawn (the runtime traces behaviours and the source had listeners).</summary>
    private bool _traced;

    /// <summary>Gets whether the spawn was stamped for the start-delay histogram (for tests: zero cost when unobserved).</summary>
    internal bool HasSpawnTimestamp => _spawnMicros != 0;

    /// <summary>Gets whether this behaviour is traced (for tests).</summary>
    internal bool IsTraced => _traced && BocTracing.StateOf(this)?.Span is not null;

    /// <summary>Stamps the spawn time for the start-delay histogram (the caller checked that it is enabled).</summary>
    internal void StampSpawn() => _spawnMicros = SpawnClock.NowMicros();

    /// <summary>Captures the spawner's current activity as the parent of this behaviour's span (tracing is on).</summary>
    internal void CaptureTraceParent()
    {
        BocTracing.Attach(this, Activity.Current);
        _traced = true;
    }

    /// <summary>
    /// Called when the body is about to start, if anything was captured at spawn: records the start delay and starts
    /// the span (current on this thread from now on). Returns the activity that was current before, to restore.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private Activity? OnBodyStarting()
    {
        // The stamp is kept until the behaviour returns to the pool (a body runs once, so it is recorded once).
        uint stamp = _spawnMicros;
        if (stamp != 0)
        {
            BocMetrics.RecordStartDelay(_runtime!.Name, SpawnClock.MillisecondsSince(stamp));
        }

        if (!_traced || BocTracing.StateOf(this) is not { } trace)
        {
            return null;
        }

        Activity? ambient = Activity.Current;
        ActivityContext parent = trace.Parent?.Context ?? default;
        trace.Parent = null;
        Activity? span = BocTracing.Source.StartActivity(BocTracing.BehaviourSpanName, ActivityKind.Internal, parent);
        if (span is not null && span.IsAllDataRequested)
        {
            span.SetTag(BocTracing.CownCountTag, _slotCount);
            if (_runtime!.Name is { } name)
            {
                span.SetTag(BocMetrics.RuntimeTag, name);
            }

            NameSpan(span);
        }

        trace.Span = span;
        return ambient;
    }

    /// <summary>
    /// Says which behaviour the span is: its name is the body's method (<see cref="BehaviourName"/>), with the qualified
    /// method as <c>code.function.name</c>, and the cowns by name when any has one.
    /// </summary>
    private void NameSpan(Activity span)
    {
        if (BehaviourName.UserBodyOf(this) is { } body)
        {
            (string shortName, string qualified) = BehaviourName.Of(body);
            span.DisplayName = shortName;
            span.SetTag(BocTracing.FunctionTag, qualified);
        }

        bool anyNamed = false;
        for (int i = 0; i < _slotCount && !anyNamed; i++)
        {
            anyNamed = SlotAt(i).Target.Name is not null;
        }

        if (anyNamed)
        {
            span.SetTag(BocTracing.CownNamesTag, DescribeCowns());
        }
    }

    /// <summary>
    /// After the body's delegate returned: the span stays open (an asynchronous body's until its task completes) but
    /// this thread goes back to the activity it had. Call only before the completion can run elsewhere.
    /// </summary>
    private void LeaveSpanOnThisThread(Activity? ambient)
    {
        if (BocTracing.StateOf(this)?.Span is { } span && ReferenceEquals(Activity.Current, span))
        {
            Activity.Current = ambient;
        }
    }

    /// <summary>Records the body's outcome and ends its span; before delivery, so an awaiter sees both done.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void OnBodyFinished(BocRuntime runtime, Exception? error)
    {
        if (_traced)
        {
            _traced = false;
            BocTracing.Finish(this, error);
        }

        Counter<long> outcome = error is null ? BocMetrics.Completed : BocMetrics.Faulted;
        if (outcome.Enabled)
        {
            BocMetrics.Add(outcome, runtime.Name);
        }
    }

    /// <summary>Clears the diagnostics state for the pool (a behaviour withdrawn before it ran may still be traced).</summary>
    private void ClearDiagnostics()
    {
        _spawnMicros = 0;
        if (_traced)
        {
            _traced = false;
            BocTracing.Detach(this);
        }
    }

    /// <summary>
    /// A best-effort, racy snapshot of <paramref name="cown"/>'s queue, for diagnosing a hang in a debugger or a log;
    /// see <see cref="Cown.DescribeQueue"/>.
    /// </summary>
    internal static string DescribeQueue(Cown cown, int limit)
    {
        var text = new StringBuilder();
        (Behaviour? last, int readers, _, Behaviour? pendingWriter) = cown.Queue.Snapshot();
        text.Append(cown).Append(": ");
        if (last is null && readers == 0)
        {
            return text.Append("idle (nothing queued or running)").ToString();
        }

        text.Append(last is null ? "queue empty" : "queue not empty");
        if (readers > 0)
        {
            text.Append(", ").Append(readers).Append(readers == 1 ? " reader running" : " readers running");
        }

        // The queue is linked forward (Slot.Next) and the cown knows only its tail, so a walk needs a request known to
        // be at the head: a writer waiting for readers holds the turn; so does a body running on this thread that
        // requests the cown. Otherwise only the tail can be shown.
        Behaviour? head = pendingWriter;
        if (head is not null)
        {
            text.Append(", a writer holds the turn and waits for the readers");
        }
        else if (Current is { } running && running._started && running.Requests(cown))
        {
            head = running;
        }

        text.AppendLine();
        if (head is null)
        {
            if (last is not null)
            {
                text.Append("  last queued: ");
                try
                {
                    last.DescribeTo(text);
                }
#pragma warning disable CA1031 // See the walk below.
                catch (Exception)
#pragma warning restore CA1031
                {
                    text.Append("(finished while it was read)");
                }

                text.AppendLine();
                text.Append("  (the head is not known here: call this from a body that holds the cown to see the whole queue)");
            }

            return text.ToString().TrimEnd();
        }

        Behaviour? current = head;
        for (int i = 0; current is not null; i++)
        {
            if (i == limit)
            {
                text.Append("  … (more than ").Append(limit).Append(" queued)");
                break;
            }

            text.Append("  ").Append(i).Append(": ");
            try
            {
                current.DescribeTo(text);
                text.AppendLine();
                current = current.SlotFor(cown).ReadNext();
            }
#pragma warning disable CA1031 // Racy reads of a behaviour that is being reused may fail in several ways; all end the snapshot.
            catch (Exception)
#pragma warning restore CA1031
            {
                // The behaviour finished and was reused while we read it: the snapshot ends here.
                text.Append("  (the queue moved on while it was read; snapshot ends here)");
                break;
            }
        }

        return text.ToString().TrimEnd();
    }

    /// <summary>Whether this behaviour requests <paramref name="cown"/> (racy read of its slots).</summary>
    private bool Requests(Cown cown)
    {
        foreach (Slot slot in RacySlots())
        {
            if (ReferenceEquals(slot.Target, cown))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Appends "running" or "waiting for n cowns", and the cowns requested (racy read).</summary>
    private void DescribeTo(StringBuilder text)
    {
        int countdown = Atomic.Read(ref _countdown);
        text.Append(Atomic.Read(ref _started) ? "running" : countdown > 0 ? $"waiting ({countdown} to go)" : "ready");
        text.Append(" on ");
        Slot[] slots = RacySlots();
        for (int i = 0; i < slots.Length; i++)
        {
            if (i > 0)
            {
                text.Append(", ");
            }

            Slot slot = slots[i];
            text.Append(slot.Target?.ToString() ?? "?").Append(slot.IsRead ? " (read)" : " (write)");
        }

        if (QueuedAppendedCount is > 0 and int appended)
        {
            text.Append(", +").Append(appended).Append(appended == 1 ? " appended body" : " appended bodies");
        }
    }

    /// <summary>
    /// Gets how many bodies are appended to this behaviour while it still takes more (queued, not started), for the
    /// queue dump; 0 otherwise, and for classes that take none. Racy, like the rest of the dump.
    /// </summary>
    private protected virtual int QueuedAppendedCount => 0;

    /// <summary>
    /// Copies of the slots, for diagnostics that read a behaviour another thread may be changing: the layout and the
    /// array are read once, so a stale count never indexes past the storage or reaches a second slot the class does not
    /// declare (only two-cown classes ever set <see cref="SlotLayout.Pair"/>).
    /// </summary>
    private Slot[] RacySlots()
    {
        int count = Atomic.Read(ref _slotCount);
        SlotLayout layout = _layout;
        Slot[]? overflow = Overflow;
        switch (layout)
        {
            case SlotLayout.One:
                return count > 0 ? [_first] : [];
            case SlotLayout.Pair:
                return count switch { 0 => [], 1 => [_first], _ => [_first, SecondSlot] };
            default:
                return overflow is null ? [] : overflow.AsSpan(0, Math.Min(count, overflow.Length)).ToArray();
        }
    }
}
