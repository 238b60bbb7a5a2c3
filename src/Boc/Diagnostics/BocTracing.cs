using System.Diagnostics;
using System.Reflection;
using System.Runtime.CompilerServices;

namespace Boc.Diagnostics;

/// <summary>
/// The <see cref="ActivitySource"/> named <c>Boc</c>: one span per behaviour, for runtimes created with
/// <see cref="BocRuntimeOptions.TraceBehaviours"/> (off by default).
/// </summary>
/// <remarks>
/// Execution context does not flow into bodies (a body runs on a worker, from the worker's empty context), so the
/// spawner's <see cref="Activity.Current"/> is captured explicitly at spawn, only when tracing is on and the source has
/// listeners, and becomes the span's parent when the body starts. The span is current while the body runs (so spans
/// the body starts nest under it), covers an asynchronous body until its task completes, carries the number of cowns
/// and the runtime's name, and is marked <see cref="ActivityStatusCode.Error"/> with the exception when the body faults.
/// </remarks>
internal static class BocTracing
{
    /// <summary>The name of the source: <c>Boc</c>.</summary>
    internal const string SourceName = "Boc";

    /// <summary>
    /// The operation name of every behaviour span (what samplers see). The span's display name, which exporters send as
    /// the span name, is the body's method (<see cref="BehaviourName"/>): low cardinality, as span names should be.
    /// </summary>
    internal const string BehaviourSpanName = "boc.behaviour";

    /// <summary>The span tag with the number of cowns the behaviour acquired (duplicates merged).</summary>
    internal const string CownCountTag = "boc.cowns";

    /// <summary>The span tag with the cowns and their modes (<c>alice#3 (write), bob#4 (read)</c>), when any cown has a name.</summary>
    internal const string CownNamesTag = "boc.cown.names";

    /// <summary>The span tag with the body's qualified method (OpenTelemetry's <c>code.function.name</c>).</summary>
    internal const string FunctionTag = "code.function.name";

    internal static readonly ActivitySource Source = new(SourceName, typeof(BocTracing).Assembly.GetCustomAttribute<AssemblyInformationalVersionAttribute>()?.InformationalVersion);

    // The tracing state of traced behaviours, kept beside them rather than in a field: every behaviour would carry the
    // field, traced or not, and it would push a one-cown behaviour past its 128-byte allocation. Only traced
    // behaviours pay for the table (an entry added at spawn and removed when the span ends or the behaviour is pooled).
    private static readonly ConditionalWeakTable<Behaviour, TraceState> s_states = new();

    /// <summary>Records that <paramref name="behaviour"/> is traced, with <paramref name="parent"/> (or none) as its span's parent.</summary>
    internal static void Attach(Behaviour behaviour, Activity? parent) =>
        s_states.AddOrUpdate(behaviour, new TraceState { Parent = parent });

    /// <summary>The tracing state of a traced behaviour, or null.</summary>
    internal static TraceState? StateOf(Behaviour behaviour) => s_states.TryGetValue(behaviour, out TraceState? state) ? state : null;

    /// <summary>Forgets a behaviour's tracing state (it returns to the pool).</summary>
    internal static void Detach(Behaviour behaviour) => s_states.Remove(behaviour);

    /// <summary>Ends the behaviour's span, if it started one, and forgets its tracing state.</summary>
    internal static void Finish(Behaviour behaviour, Exception? error)
    {
        if (s_states.TryGetValue(behaviour, out TraceState? state))
        {
            s_states.Remove(behaviour);
            if (state.Span is { } span)
            {
                End(span, error);
            }
        }
    }

    /// <summary>Ends <paramref name="span"/>, marking it failed with <paramref name="error"/> if there is one.</summary>
    private static void End(Activity span, Exception? error)
    {
        if (error is not null)
        {
            span.SetStatus(ActivityStatusCode.Error, error.Message);
#if NET9_0_OR_GREATER
            span.AddException(error);
#else
            // The OpenTelemetry exception event, as Activity.AddException records it on .NET 9 and later.
            span.AddEvent(new ActivityEvent("exception", tags: new ActivityTagsCollection
            {
                { "exception.type", error.GetType().FullName },
                { "exception.message", error.Message },
                { "exception.stacktrace", error.ToString() },
            }));
#endif
        }

        // Stop makes the activity that was current when the span started current again, on this thread; that is
        // right where the span started (a synchronous body), but an asynchronous body completes on another thread,
        // whose current activity must stay what it was.
        Activity? current = Activity.Current;
        span.Stop();
        if (!ReferenceEquals(current, span))
        {
            Activity.Current = current;
        }
    }

    /// <summary>A traced behaviour's parent (from spawn to start) and span (from start to finish; null if sampled out).</summary>
    internal sealed class TraceState
    {
        public Activity? Parent { get; set; }

        public Activity? Span { get; set; }
    }
}
