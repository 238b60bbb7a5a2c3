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
    public static BocRuntime Default => Volatile.Read(ref s_default) ?? CreateDefault();

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
            Volatile.Write(ref s_default, runtime);
        }
    }

    private static BocRuntime CreateDefault()
    {
        lock (s_defaultLock)
        {
            if (s_default is null)
            {
                Volatile.Write(ref s_default, new BocRuntime(new BocRuntimeOptions(), isDefault: true));
            }

            return s_default;
        }
    }
}
