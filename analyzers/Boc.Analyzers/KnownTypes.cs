using System.Collections.Generic;
using Microsoft.CodeAnalysis;

namespace Boc.Analyzers;

/// <summary>
/// What the mutability model knows about library types that their declarations do not show. Metadata hides private
/// fields, so a type is otherwise judged by its public surface: settable properties say "mutable" even where the
/// documentation says an instance is safe to share (<c>HttpClient</c>, <c>JsonSerializerOptions</c> after first use),
/// and no settable property says "immutable" even where methods change the object (<c>Stopwatch</c>). The lists are
/// printed in docs/analyzers/BOC103.md; keep the two in step.
/// </summary>
internal static class KnownTypes
{
    /// <summary>Namespaces whose generic types are deeply immutable when their type arguments are.</summary>
    public static readonly HashSet<string> ImmutableNamespaces = new()
    {
        "System.Collections.Immutable",
        "System.Collections.Frozen",
    };

    /// <summary>
    /// Types (by documentation ID of the original definition) that are immutable, or whose instances are documented as
    /// safe to use from several threads at once. Derived types count only if they add no mutable state of their own.
    /// </summary>
    public static readonly HashSet<string> Shareable = new()
    {
        // Immutable once built.
        "T:System.Text.RegularExpressions.Regex",
        "T:System.Text.CompositeFormat",
        "T:System.Text.Encoding",
        "T:System.Globalization.CompareInfo",
        "T:System.Globalization.TextInfo",
        "T:System.Buffers.SearchValues`1",
        "T:System.Type",
        "T:System.Reflection.MemberInfo",
        "T:System.Reflection.Assembly",
        "T:System.Reflection.Module",
        "T:System.Reflection.ParameterInfo",
        "T:System.Uri",
        "T:System.Version",
        "T:System.TimeZoneInfo",

        // Read-only after first use: a change after that throws.
        "T:System.Text.Json.JsonSerializerOptions",
        "T:System.Text.Json.Serialization.Metadata.JsonTypeInfo",
        "T:System.Text.Json.Serialization.Metadata.JsonTypeInfo`1",
        "T:System.Text.Json.Serialization.JsonSerializerContext",

        // Thread-safe by contract.
        "T:System.Net.Http.HttpClient",
        "T:System.Net.Http.HttpMessageInvoker",
        "T:System.Net.Http.IHttpClientFactory",
        "T:System.Buffers.ArrayPool`1",
        "T:System.Buffers.MemoryPool`1",
        "T:System.TimeProvider",
        "T:System.Security.Cryptography.RandomNumberGenerator",
        "T:System.Xml.Serialization.XmlSerializer",
        "T:System.Diagnostics.ActivitySource",
        "T:System.Diagnostics.DiagnosticSource",
        "T:System.Diagnostics.Metrics.Meter",
        "T:System.Diagnostics.Metrics.Instrument",
        "T:System.Diagnostics.Metrics.IMeterFactory",
        "T:Microsoft.Extensions.Logging.ILogger",
        "T:Microsoft.Extensions.Logging.ILogger`1",
        "T:Microsoft.Extensions.Logging.ILoggerFactory",
        "T:Microsoft.Extensions.Logging.ILoggerProvider",
        "T:Microsoft.Extensions.Logging.Logger`1",
        "T:Microsoft.Extensions.Logging.LoggerFactory",
        "T:Microsoft.Extensions.ObjectPool.ObjectPool`1",
        "T:System.IServiceProvider",
        "T:Microsoft.Extensions.DependencyInjection.IServiceScopeFactory",
    };

    /// <summary>
    /// Library types whose instances can be changed although their public surface does not show it (no settable
    /// property), and writable views over memory that someone else owns.
    /// </summary>
    public static readonly HashSet<string> Mutable = new()
    {
        "T:System.Text.StringBuilder",
        "T:System.Random",
        "T:System.IO.Stream",
        "T:System.Diagnostics.Stopwatch",
        "T:System.Span`1",
        "T:System.Memory`1",
        "T:System.ArraySegment`1",
    };

    /// <summary>
    /// Static members whose value is a shareable instance of a type that is not shareable in general: <c>Random.Shared</c>
    /// is thread-safe, a <c>new Random()</c> is not; <c>CultureInfo.InvariantCulture</c> is read-only, a new culture is not.
    /// </summary>
    public static readonly HashSet<string> ShareableMembers = new()
    {
        "P:System.Random.Shared",
        "P:System.Globalization.CultureInfo.InvariantCulture",
        "M:System.Globalization.CultureInfo.GetCultureInfo(System.String)",
    };

    /// <summary>The documentation ID of a type's original definition (<c>T:Ns.Outer.Inner`1</c>).</summary>
    public static string IdOf(ITypeSymbol type) => type.OriginalDefinition.GetDocumentationCommentId() ?? "";

    public static bool IsShareableMember(ISymbol member)
    {
        string? id = member.OriginalDefinition.GetDocumentationCommentId();
        return id is not null && ShareableMembers.Contains(id);
    }
}
