namespace Boc;

public sealed partial class BocRuntime
{
    // Created on first use with default options, or by ConfigureDefault before that. Written once, under the lock.
    private static readonly Lock s_defaultLock = new();
    private static BocRuntime? s_default;
    private static bool s_defaultConfigured;

    /// <summary>
    /// Gets the process-wide runtime behind <see cref="Behaviours"/>. It is created on first use, with the options given
    /// to <see cref="ConfigureDefault(BocRuntimeOptions)"/> if that was called before, otherwise with default
    /// options. It cannot be disposed.
    /// </summary>
    /// <remarks>
    /// With default options, exceptions thrown by fire-and-forget behaviours (<c>When</c>) have no handler: the first
    /// <see cref="MaxKeptExceptions"/> are kept, later ones are only counted, and the next
    /// <see cref="WaitForQuiescenceAsync(CancellationToken)"/> throws them as an <see cref="AggregateException"/>. A
    /// program that never waits (a server) never sees them. Such a program should call
    /// <see cref="ConfigureDefault(BocRuntimeOptions)"/> at startup with an
    /// <see cref="BocRuntimeOptions.UnhandledExceptionHandler"/>, or use a runtime of its own.
    /// </remarks>
    public static BocRuntime Default =>
        Atomic.Read(ref s_defaultOverrides) == 0 ? Atomic.Read(ref s_default) ?? CreateDefault() : OverriddenDefault();

    // Boc.Testing redirects Default to its controlled runtime for the code of a controlled run, and only there: tests
    // run in parallel, so the redirection is an AsyncLocal (it flows to that run's bodies, continuations and tasks, and
    // nowhere else). The counter keeps the ordinary path at one static read while no run is active anywhere.
    private static readonly AsyncLocal<BocRuntime?> s_defaultOverride = new();
    private static int s_defaultOverrides;

    /// <summary>
    /// Makes <see cref="Default"/> return <paramref name="runtime"/> in the current execution context (and in the
    /// contexts that flow from it) until <see cref="EndDefaultOverride"/>; elsewhere it is unchanged.
    /// </summary>
    internal static void BeginDefaultOverride(BocRuntime runtime)
    {
        ArgumentNullException.ThrowIfNull(runtime);
        Atomic.Increment(ref s_defaultOverrides);
        s_defaultOverride.Value = runtime;
    }

    /// <summary>Ends <see cref="BeginDefaultOverride"/>, called in the same execution context.</summary>
    internal static void EndDefaultOverride()
    {
        s_defaultOverride.Value = null;
        Atomic.Decrement(ref s_defaultOverrides);
    }

    private static BocRuntime OverriddenDefault() => s_defaultOverride.Value ?? Atomic.Read(ref s_default) ?? CreateDefault();

    /// <summary>
    /// Sets the options of <see cref="Default"/>. Call it once, at startup, before anything uses <see cref="Default"/>
    /// (including the static <see cref="Behaviours"/> methods): the default runtime is created here, with these options.
    /// </summary>
    /// <param name="options">The options; they are read now and not observed afterwards.</param>
    /// <exception cref="ArgumentNullException"><paramref name="options"/> is null.</exception>
    /// <exception cref="ArgumentOutOfRangeException"><see cref="BocRuntimeOptions.WorkerCount"/> is less than 1.</exception>
    /// <exception cref="InvalidOperationException">
    /// <see cref="Default"/> already exists: it was used, or configured, before this call. Nothing is changed.
    /// </exception>
    public static void ConfigureDefault(BocRuntimeOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        lock (s_defaultLock)
        {
            if (s_default is not null)
            {
                throw new InvalidOperationException(s_defaultConfigured
                    ? "BocRuntime.Default was already configured; ConfigureDefault can be called only once."
                    : "BocRuntime.Default was already used, so it was created with default options; call ConfigureDefault at startup, before the first When, WhenAsync, WaitForQuiescenceAsync or Default.");
            }

            // The constructor validates the options before it starts anything; if it throws, Default stays unset.
            var runtime = new BocRuntime(options, isDefault: true);
            s_defaultConfigured = true;
            Atomic.Write(ref s_default, runtime);
        }
    }

    private static BocRuntime CreateDefault()
    {
        lock (s_defaultLock)
        {
#if BOC_MODEL
            using ModelPoints.AtomicSection section = ModelPoints.Atomically();
#endif
            if (s_default is null)
            {
                Atomic.Write(ref s_default, new BocRuntime(new BocRuntimeOptions(), isDefault: true));
            }

            return s_default;
        }
    }
}
