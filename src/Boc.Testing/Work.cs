namespace Boc.Testing;

/// <summary>What a step does.</summary>
internal enum WorkKind
{
    /// <summary>The scenario delegate is called.</summary>
    ScenarioStart,

    /// <summary>A behaviour the protocol made ready runs its body (the synchronous part, for an asynchronous one).</summary>
    Behaviour,

    /// <summary>A callback posted to the controlled synchronization context (an await continuation, Task.Yield).</summary>
    Continuation,

    /// <summary>A task queued to the runtime's <see cref="BocRuntime.Scheduler"/>.</summary>
    Task,

    /// <summary>A virtual timer fires (Task.Delay through the runtime's TimeProvider, timeouts).</summary>
    Timer,

    /// <summary>A step paused at a spawn continues (the body, scenario, task or callback that spawned).</summary>
    Resume,

    /// <summary>Not a step that can be chosen: a trace entry for a spawn, a scheduling point inside a step.</summary>
    Spawn,
}

/// <summary>One step that may be chosen to run next.</summary>
internal sealed class Work
{
    public required WorkKind Kind { get; init; }

    /// <summary>The PCT priority chain: the behaviour's number for a behaviour and its continuations.</summary>
    public required int Chain { get; init; }

    /// <summary>Behaviour number, timer number, or the number of the behaviour that posted a continuation (0: none).</summary>
    public int Id { get; init; }

    public Behaviour? Behaviour { get; init; }

    public SendOrPostCallback? Callback { get; init; }

    public object? State { get; init; }

    public Task? Task { get; init; }

    public VirtualTimer? Timer { get; init; }

    /// <summary>For <see cref="WorkKind.Resume"/>: the fiber paused at the spawn.</summary>
    public Fiber? Fiber { get; init; }

    /// <summary>For <see cref="WorkKind.Resume"/>: the number of the behaviour whose spawn paused the step.</summary>
    public int Spawned { get; init; }

    /// <summary>For <see cref="WorkKind.Resume"/>: the kind of the paused step (who spawned, for the trace).</summary>
    public WorkKind SpawnerKind { get; init; }
}
