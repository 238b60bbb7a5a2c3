namespace Boc.Testing;

/// <summary>Why a controlled run failed.</summary>
public enum BocTestFailureKind
{
    /// <summary>The scenario threw or its task failed: typically an assertion.</summary>
    ScenarioFailed,

    /// <summary>A fire-and-forget behaviour threw an exception that nothing handled.</summary>
    UnhandledBehaviourException,

    /// <summary>
    /// Nothing could run, yet behaviours were pending or the scenario was still awaiting: a deadlock (for example two
    /// bodies awaiting behaviours on each other's cowns), or a wake-up that never comes.
    /// </summary>
    Deadlock,

    /// <summary>The run exceeded <see cref="BocTestOptions.MaxSteps"/>: a livelock, or a scenario larger than the limit.</summary>
    StepLimitExceeded,

    /// <summary>
    /// Nothing the run controls could run, and the scenario or a suspended body was awaiting work outside the run's
    /// control: a <c>Task.Delay</c> or timeout on the system clock instead of <see cref="BocRuntime.TimeProvider"/>, a
    /// task on the thread pool (<c>Task.Run</c>), or I/O. The message names what was awaited and the chain of methods
    /// awaiting it. Such work completes in real time, outside the explored schedule; set
    /// <see cref="BocTestOptions.UncontrolledWorkTimeout"/> to let runs wait for it instead.
    /// </summary>
    UncontrolledWait,
}
