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
}
