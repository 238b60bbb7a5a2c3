namespace Boc.Benchmarks.Savina;

/// <summary>Parameter sets: the BoC paper's defaults, a size for a 2-core machine, and a tiny size for tests.</summary>
public enum SavinaSize
{
    /// <summary>The paper's parameters (SOURCES.md §2): the default job.</summary>
    Paper,

    /// <summary>Smaller parameters so that the whole suite runs in minutes on a 2-core machine.</summary>
    Small,

    /// <summary>Tiny parameters for the xUnit run of every variant (validation only, not timing).</summary>
    Test,
}

/// <summary>Which translation of a Savina benchmark a run is.</summary>
public enum SavinaVariant
{
    /// <summary>Savina's actors and messages: one cown per actor, every message a single-cown <c>When</c> on the receiver.</summary>
    Actor,

    /// <summary>Full BoC: multi-cown <c>When</c>, ordering and read-only acquisition wherever they remove messages.</summary>
    Full,

    /// <summary>Baseline: the same actors and messages on plain .NET actors, one <c>Channel&lt;T&gt;</c> and reader loop each.</summary>
    Channels,

    /// <summary>Baseline: the same actors and messages on Akka.NET.</summary>
    Akka,

    /// <summary>Baseline: threads taking ordered locks (<c>System.Threading.Lock</c>), the paper's "threads and mutexes".</summary>
    Locks,
}

/// <summary>Names the Savina benchmark (the paper's label) and the variant a <see cref="SavinaRun"/> implements.</summary>
[AttributeUsage(AttributeTargets.Class, Inherited = false)]
public sealed class SavinaWorkloadAttribute(string name, SavinaVariant variant) : Attribute
{
    public string Name { get; } = name;

    public SavinaVariant Variant { get; } = variant;
}

/// <summary>Thrown when a run's result is wrong: a benchmark that fails validation must never report a time.</summary>
public sealed class SavinaValidationException(string message) : Exception(message);

/// <summary>
/// One full run of one Savina benchmark variant. <see cref="Setup"/> builds cowns, actors and input (not timed);
/// <see cref="RunAsync"/> starts the run, awaits its completion signal and the runtime's quiescence, and validates the
/// result, throwing <see cref="SavinaValidationException"/> if it is wrong (timed). A run object is used once.
/// </summary>
/// <remarks>
/// Every concrete run has a public constructor taking a <see cref="SavinaSize"/> and carries
/// <see cref="SavinaWorkloadAttribute"/>; the test project discovers them by reflection and runs each at
/// <see cref="SavinaSize.Test"/>.
/// </remarks>
public abstract class SavinaRun(SavinaSize size)
{
    private BocRuntime? _runtime;

    public SavinaSize Size { get; } = size;

    /// <summary>Gets the runtime passed to <see cref="Setup"/>.</summary>
    protected BocRuntime Runtime => _runtime ?? throw new InvalidOperationException("Setup has not run.");

    /// <summary>Metrics worth reporting besides time (retries, attempts), as text; empty by default.</summary>
    public virtual string Metrics => "";

    /// <summary>Builds the run's state on <paramref name="runtime"/>. Not timed.</summary>
    public void Setup(BocRuntime runtime)
    {
        ArgumentNullException.ThrowIfNull(runtime);
        _runtime = runtime;
        Build();
    }

    /// <summary>Runs to completion, waits for quiescence and validates. Timed.</summary>
    public async Task RunAsync()
    {
        await ExecuteAsync().ConfigureAwait(false);
        await Runtime.WaitForQuiescenceAsync().ConfigureAwait(false);
        Validate();
    }

    /// <summary>Creates cowns, actors and input data.</summary>
    protected abstract void Build();

    /// <summary>Starts the run and completes when the benchmark's own completion event has happened.</summary>
    protected abstract Task ExecuteAsync();

    /// <summary>Checks the result (read it from the cowns with <c>WhenAsync</c> or from state captured at completion).</summary>
    protected abstract void Validate();

    /// <summary>Throws <see cref="SavinaValidationException"/> unless <paramref name="condition"/> holds.</summary>
    protected static void Check(bool condition, string what)
    {
        if (!condition)
        {
            throw new SavinaValidationException(what);
        }
    }

    /// <summary>Picks the parameter set for <see cref="Size"/>.</summary>
    protected T Pick<T>(T paper, T small, T test) => Size switch
    {
        SavinaSize.Paper => paper,
        SavinaSize.Small => small,
        _ => test,
    };
}
