using System.Globalization;

namespace Boc.Orleans.FaultTests.Node;

/// <summary>A process's command line: its role, then name=value pairs (see Program.cs for each role's names).</summary>
public sealed class Settings(string role, Dictionary<string, string> values)
{
    public string Role { get; } = role;

    public static Settings Parse(string[] args)
    {
        var values = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (string arg in args.Skip(1))
        {
            int eq = arg.IndexOf('=', StringComparison.Ordinal);
            values[arg[..eq]] = arg[(eq + 1)..];
        }

        return new Settings(args[0], values);
    }

    public string Get(string name) => values.TryGetValue(name, out string? v) ? v : throw new ArgumentException($"missing {name}=");

    public string Get(string name, string fallback) => values.TryGetValue(name, out string? v) ? v : fallback;

    public int Number(string name, int fallback) => values.TryGetValue(name, out string? v) ? int.Parse(v, CultureInfo.InvariantCulture) : fallback;

    public TimeSpan Millis(string name, int fallback) => TimeSpan.FromMilliseconds(Number(name, fallback));

    /// <summary>The options every process of one run shares: leases and polls, scaled for a test.</summary>
    public void ApplyBoc(BocClusterOptions options)
    {
        options.LeaseDuration = Millis("lease-ms", 2000);
        options.PollInterval = Millis("poll-ms", 500);
        options.MaxAttempts = Number("max-attempts", 40);
        if (values.ContainsKey("retention-ms"))
        {
            options.CommitRecordRetention = Millis("retention-ms", 0);
        }
    }
}
