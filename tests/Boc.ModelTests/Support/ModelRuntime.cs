using Boc.Dispatch;
using Boc.ModelTests.Exploration;
using Boc.Tests;

namespace Boc.ModelTests.Support;

/// <summary>
/// A runtime for the protocol's models: a real <see cref="BocRuntime"/> whose ready behaviours go to a plain queue, run
/// by the model's worker threads (<see cref="RunWorker"/>). Only one controlled thread runs at a time, so the queue needs
/// no synchronization of its own, and it has no scheduling points: the protocol's are the ones explored. Bodies record
/// their accesses for the core suite's oracle (tests/Boc.Tests/Oracle.cs: exclusivity and spawn-order happens-before),
/// with a scheduling point inside each body, so that two bodies the runtime wrongly lets run together do overlap.
/// </summary>
internal sealed class ModelRuntime : IDispatcher
{
    private readonly Queue<Behaviour> _ready = new();
    private readonly LogicalClock _clock = new();
    private readonly List<Access> _accesses = [];
    private readonly Dictionary<int, int> _runs = [];
    private readonly Dictionary<int, long[]> _bodies = [];
    private int _busyWorkers;

    public ModelRuntime()
    {
        Runtime = new BocRuntime(new BocRuntimeOptions(), this, TaskScheduler.Default, TimeProvider.System);
    }

    public BocRuntime Runtime { get; }

    /// <summary>Gets the behaviours spawned through <see cref="Spawn"/> (numbered from 0).</summary>
    public int Spawned { get; private set; }

    /// <summary>The threads that are not workers and still run: workers stop once these have ended and nothing is ready.</summary>
    public int LiveProducers { get; set; }

    void IDispatcher.Dispatch(Behaviour behaviour) => _ready.Enqueue(behaviour);

    /// <summary>
    /// Spawns through <paramref name="spawn"/> a behaviour whose body is <see cref="Body"/>'s for (behaviour id, its
    /// cowns with their modes): the spawn is stamped before and after, for the oracle's order check. Returns the id.
    /// </summary>
    public int Spawn(Action<Action> spawn, params (int Cown, bool Writes)[] cowns)
    {
        int id = Spawned++;
        long spawnStart = _clock.Tick();
        var access = new long[2];
        _bodies[id] = access;
        spawn(() => Body(id, access));
        long spawnEnd = _clock.Tick();
        foreach ((int cown, bool writes) in cowns)
        {
            _accesses.Add(new Access(id, cown, writes, spawnStart, spawnEnd, 0, 0));
        }

        return id;
    }

    private void Body(int id, long[] access)
    {
        access[0] = _clock.Tick();
        Scenario.Point();
        access[1] = _clock.Tick();
        _runs[id] = _runs.GetValueOrDefault(id) + 1;
    }

    /// <summary>
    /// A worker: runs ready behaviours until every producer has ended, no other worker is inside a behaviour, and
    /// nothing is ready (then nothing more can become ready).
    /// </summary>
    public void RunWorker()
    {
        BocThread thread = BocThread.Current;
        while (true)
        {
            if (_ready.TryDequeue(out Behaviour? behaviour))
            {
                _busyWorkers++;
                behaviour.Run(thread);
                _busyWorkers--;
                continue;
            }

            if (LiveProducers == 0 && _busyWorkers == 0)
            {
                return;
            }

            Scenario.WaitUntil(() => _ready.Count > 0 || (LiveProducers == 0 && _busyWorkers == 0));
        }
    }

    /// <summary>
    /// The oracle, after the run: every spawned body ran exactly once (or, for the ids in
    /// <paramref name="mayBeWithdrawn"/>, at most once), the accesses pass exclusivity and order, and the runtime is
    /// quiescent.
    /// </summary>
    public void Check(IReadOnlySet<int>? mayBeWithdrawn = null)
    {
        for (int id = 0; id < Spawned; id++)
        {
            int runs = _runs.GetValueOrDefault(id);
            bool optional = mayBeWithdrawn?.Contains(id) == true;
            if (runs > 1 || (runs == 0 && !optional))
            {
                throw new ModelViolation($"exactly once: behaviour {id} ran {runs} times");
            }
        }

        var ran = new List<Access>();
        foreach (Access a in _accesses)
        {
            long[] times = _bodies[a.Behaviour];
            if (times[0] != 0)
            {
                ran.Add(a with { Start = times[0], End = times[1] });
            }
        }

        List<string> violations = Oracle.Check(ran);
        if (violations.Count > 0)
        {
            throw new ModelViolation(string.Join("; ", violations));
        }

        if (!Runtime.IsQuiescentNow)
        {
            throw new ModelViolation($"progress: the runtime is not quiescent at the end ({Runtime.PendingEstimate} pending)");
        }
    }

    /// <summary>Gets whether behaviour <paramref name="id"/>'s body has started.</summary>
    public bool Started(int id) => _bodies.TryGetValue(id, out long[]? times) && times[0] != 0;

    /// <summary>Gets how many times behaviour <paramref name="id"/>'s body ran.</summary>
    public int Runs(int id) => _runs.GetValueOrDefault(id);
}
