using System.Diagnostics.CodeAnalysis;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.Options;

namespace Boc.Extensions.Hosting;

/// <summary>
/// Binds <c>AddBoc(configuration)</c>'s section: the runtime's options from its keys, the health check's from its
/// <c>HealthCheck</c> section. The binding is the configuration binder's source-generated code (no reflection, so the
/// package stays trimmable and AOT-compatible). A key that names no option fails, naming the key, instead of being
/// ignored: a misspelt <c>Boc:MaxPendingBehaviour</c> would otherwise leave the runtime unbounded without a word.
/// </summary>
internal static class ConfigurationBinding
{
    public const string HealthCheckSection = "HealthCheck";

    public static IConfigureOptions<BocRuntimeOptions> Runtime(IConfiguration configuration) =>
        new ConfigureOptions<BocRuntimeOptions>(options =>
        {
            RejectUnknownKeys(
                configuration, KnownKeys(typeof(BocRuntimeOptions)).Append(HealthCheckSection), nameof(BocRuntimeOptions), CodeOnlyKeys(typeof(BocRuntimeOptions)));

            // The generator leaves the options configuration cannot give (a TimeProvider, a delegate) as they are: they
            // are set in code, and a key naming one is refused above (SYSLIB1100/1101: see the project file).
            configuration.Bind(options);
        });

    public static IConfigureOptions<BocHealthCheckOptions> HealthCheck(IConfiguration configuration) =>
        new ConfigureOptions<BocHealthCheckOptions>(options =>
        {
            IConfigurationSection section = configuration.GetSection(HealthCheckSection);
            RejectUnknownKeys(section, KnownKeys(typeof(BocHealthCheckOptions)), nameof(BocHealthCheckOptions), []);
            section.Bind(options);
        });

    /// <summary>The key prefix for messages: the section's path and a colon, or empty for the configuration's root.</summary>
    public static string PrefixOf(IConfiguration configuration) =>
        configuration is IConfigurationSection { Path: { Length: > 0 } path } ? path + ":" : string.Empty;

    /// <summary>The options a configuration value can give: those of a scalar type (not a delegate, not a clock).</summary>
    private static IEnumerable<string> KnownKeys([DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicProperties)] Type options) =>
        options.GetProperties().Where(p => p.CanWrite && IsScalar(p.PropertyType)).Select(p => p.Name);

    /// <summary>The options configuration cannot give, for the message.</summary>
    private static IEnumerable<string> CodeOnlyKeys([DynamicallyAccessedMembers(DynamicallyAccessedMemberTypes.PublicProperties)] Type options) =>
        options.GetProperties().Where(p => p.CanWrite && !IsScalar(p.PropertyType)).Select(p => p.Name);

    private static bool IsScalar(Type type)
    {
        Type plain = Nullable.GetUnderlyingType(type) ?? type;
        return plain.IsPrimitive || plain.IsEnum || plain == typeof(string) || plain == typeof(decimal) || plain == typeof(TimeSpan);
    }

    private static void RejectUnknownKeys(IConfiguration configuration, IEnumerable<string> known, string type, IEnumerable<string> codeOnly)
    {
        // The root of an application's configuration holds everything else too (Logging, …): only a section is checked.
        if (configuration is not IConfigurationSection)
        {
            return;
        }

        var names = new HashSet<string>(known, StringComparer.OrdinalIgnoreCase);
        string[] unknown = configuration.GetChildren().Where(c => !names.Contains(c.Key)).Select(c => c.Path).ToArray();
        if (unknown.Length > 0)
        {
            string[] inCode = codeOnly.Order(StringComparer.Ordinal).ToArray();
            throw new InvalidOperationException(
                $"{string.Join(", ", unknown)}: no such option of {type} in configuration. The options are {string.Join(", ", names.Order(StringComparer.Ordinal))}"
                + (inCode.Length == 0 ? "." : $"; {string.Join(" and ", inCode)} can be set only in code."));
        }
    }
}
