using Boc.Dispatch;

namespace Boc.Testing;

// How work arrives in a controlled run (ControlledExecution.cs has the run, its loop and the argument): behaviours the
// protocol made ready, spawns (each a scheduling point), and the continuations, tasks and posted callbacks of the
// run's synchronization context and task scheduler.
internal sealed partial class ControlledExecution
{
    // ---- Arrivals (on the fiber holding the baton, or, for uncontrolled work, any thread)

    void IDispatcher.Dispatch(Behaviour behaviour)
    {
        int number;
        lock (_gate)
        {
            if (ReferenceEquals(behaviour, _spawning))
            {
                _spawningReady = true;
            }

            // Numbered at spawn (pooled behaviour objects are reused, so the spawn renumbers them).
            if (!_behaviourNumbers.TryGetValue(behaviour, out number))
            {
                number = ++_nextBehaviour;
                _behaviourNumbers[behaviour] = number;
            }
        }

        Add(new Work { Kind = WorkKind.Behaviour, Chain = -number, Id = number, Behaviour = behaviour });
    }

    void ISpawnHook.Enqueue(Behaviour behaviour)
    {
        int number;
        lock (_gate)
        {
            number = ++_nextBehaviour;
            _behaviourNumbers[behaviour] = number;
            _names.OnSpawn(number, behaviour);
        }

        EnqueueThenSpawnPoint(behaviour, number, null, 0);
    }

    void ISpawnHook.EnqueueBatch(Behaviour[] members, int count)
    {
        // Numbered in batch order; traced as one spawn, by its first member (the batch enqueues atomically, so there is
        // no point inside it at which another step could run).
        int first;
        lock (_gate)
        {
            first = _nextBehaviour + 1;
            for (int i = 0; i < count; i++)
            {
                _behaviourNumbers[members[i]] = ++_nextBehaviour;
                _names.OnSpawn(_nextBehaviour, members[i]);
            }
        }

        EnqueueThenSpawnPoint(members[0], first, members, count);
    }

    /// <summary>
    /// Enqueues <paramref name="traced"/> (or the whole <paramref name="batch"/>), noting whether it was ready at once,
    /// then offers the strategy the spawn point.
    /// </summary>
    private void EnqueueThenSpawnPoint(Behaviour traced, int number, Behaviour[]? batch, int count)
    {
        lock (_gate)
        {
            _spawning = traced;
            _spawningReady = false;
        }

        if (batch is null)
        {
            traced.Enqueue();
        }
        else
        {
            Behaviour.EnqueueBatch(batch, count);
        }

        bool ready;
        lock (_gate)
        {
            ready = _spawningReady;
            _spawning = null;
        }

        // A scheduling point only in a step of this run (not on a thread outside its control, nor while a step unwinds
        // after the end); past the step limit the step just continues, and the loop reports the limit next.
        if (Fiber.Current is { Running: not null } self && ReferenceEquals(self.Execution, this) && !_ended && _trace.Count < _options.MaxSteps)
        {
            SpawnPoint(self, traced, number, ready);
        }
    }

    /// <summary>
    /// The strategy chooses between letting the spawning step continue and another ready step (the spawned behaviour
    /// among them, if it is ready). To switch, this fiber hands the baton to the chosen step's fiber and blocks until
    /// its own step is chosen again (or the run ends: then it unwinds).
    /// </summary>
    private void SpawnPoint(Fiber self, Behaviour spawned, int number, bool ready)
    {
        Work running = self.Running!;
        var paused = new Work
        {
            Kind = WorkKind.Resume,
            Chain = running.Chain,
            Id = CurrentBehaviourNumber(),
            Fiber = self,
            Spawned = number,
            SpawnerKind = running.Kind,
        };
        Add(paused);
        int chosen = Choose(finished: false);
        Work next = _candidates[chosen];
        bool continues = ReferenceEquals(next, paused);
        (int cownStart, int cownCount) = RecordCowns(spawned);
        _trace.Add(new TraceEntry(WorkKind.Spawn, continues ? _candidates.Count : 0, chosen, paused.Id, cownStart, cownCount, 0, number, running.Kind, ready));
        if (continues)
        {
            _firedSinceProgress.Clear();
            lock (_gate)
            {
                _ready.Remove(paused);
            }

            return;
        }

        Take(next, chosen);
        if (next.Kind == WorkKind.Resume)
        {
            next.Fiber!.Signal(FiberCommand.Resume);
        }
        else
        {
            Fiber helper = _pool.Rent();
            helper.Execution = this;
            helper.First = next;
            helper.Signal(FiberCommand.Loop);
        }

        if (self.Wait() == FiberCommand.Abandon)
        {
            throw new ControlledRunAbandonedException();
        }
    }

    public void Post(SendOrPostCallback callback, object? state)
    {
        int poster = CurrentBehaviourNumber();
        Add(new Work { Kind = WorkKind.Continuation, Chain = poster != 0 ? -poster : ChainForNewWork(), Id = poster, Callback = callback, State = state });
    }

    public void Queue(Task task)
    {
        int poster = CurrentBehaviourNumber();
        Add(new Work { Kind = WorkKind.Task, Chain = poster != 0 ? -poster : ChainForNewWork(), Id = poster, Task = task });
    }

    public IEnumerable<Task> QueuedTasks()
    {
        lock (_gate)
        {
            return _ready.Where(w => w.Task is not null).Select(w => w.Task!).ToArray();
        }
    }

    /// <summary>A new PCT chain (positive; behaviours use their negated number).</summary>
    public int ChainForNewWork()
    {
        lock (_gate)
        {
            return ++_nextChain;
        }
    }
}
