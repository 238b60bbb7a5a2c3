using Microsoft.CodeAnalysis;

namespace Boc.Analyzers;

/// <summary>
/// The rule catalogue. IDs are grouped by category: BOC1xx isolation (what a body may touch), BOC2xx execution (how a
/// body may run). Severities are justified in docs/analyzers/&lt;ID&gt;.md.
/// </summary>
internal static class Descriptors
{
    public const string IsolationCategory = "Boc.Isolation";
    public const string ExecutionCategory = "Boc.Execution";

    /// <summary>
    /// Where the help links point; each rule appends its page, <c>&lt;ID&gt;.md</c>. Set in one place, the
    /// <c>BocAnalyzerHelpLinkBase</c> property of Directory.Build.props (by default the rule pages on the repository's
    /// main branch; docs/releasing.md says what to set when the repository is published), and carried here as an
    /// assembly attribute. Declared before the descriptors, which static initialisation builds in order.
    /// </summary>
    public static readonly string HelpLinkBase = HelpLinkBaseOfAssembly();

    public static readonly DiagnosticDescriptor NonAcquiredState = new(
        "BOC101",
        "Behaviour uses the state of a cown it did not acquire",
        "'{0}' is state acquired by an enclosing behaviour{1}, not by this When: acquire that cown here",
        IsolationCategory,
        DiagnosticSeverity.Warning,
        isEnabledByDefault: true,
        description: "A nested When body runs later, after the enclosing behaviour has released its cowns. Touching the enclosing behaviour's state there races with every other behaviour on that cown.",
        helpLinkUri: HelpLink("BOC101.md"));

    public static readonly DiagnosticDescriptor StateEscapes = new(
        "BOC102",
        "Acquired state escapes the behaviour",
        "Acquired state '{0}' escapes the behaviour: {1}",
        IsolationCategory,
        DiagnosticSeverity.Warning,
        isEnabledByDefault: true,
        description: "After the body returns the cown is released; any other reference to its state can be used without holding the cown.",
        helpLinkUri: HelpLink("BOC102.md"));

    public static readonly DiagnosticDescriptor SharedMutableCapture = new(
        "BOC103",
        "Behaviour captures shared mutable state",
        "{0}",
        IsolationCategory,
        DiagnosticSeverity.Warning,
        isEnabledByDefault: true,
        description: "A behaviour runs on another thread at a time of the runtime's choosing. Mutable state it captures, that is not owned by a cown it acquired, races with the spawning code and with other behaviours.",
        helpLinkUri: HelpLink("BOC103.md"));

    public static readonly DiagnosticDescriptor ReadOnlyWrite = new(
        "BOC104",
        "Write through a read-only acquisition",
        "'{0}' was acquired read-only (Read(...)); {1} writes to it {2}",
        IsolationCategory,
        DiagnosticSeverity.Warning,
        isEnabledByDefault: true,
        description: "Readers of a cown run in parallel with each other. A write through a read-only acquisition races with them; in a cluster behaviour, it changes a copy that is never written back.",
        helpLinkUri: HelpLink("BOC104.md"));

    public static readonly DiagnosticDescriptor ClusterCopyKept = new(
        "BOC105",
        "A cluster behaviour's copy of a state is kept after its body",
        "'{0}' is this cluster behaviour's copy of its cown's state, kept after the body: {1}; once the body ends it is not the cown's state, and changes to it are lost",
        IsolationCategory,
        DiagnosticSeverity.Warning,
        isEnabledByDefault: true,
        description: "IBocCluster.WhenAsync runs its body on private copies of the cowns' states and commits them when the body ends. A reference to a copy kept past the body sees none of the cown's later changes, and what is written through it is never committed.",
        helpLinkUri: HelpLink("BOC105.md"));

    public static readonly DiagnosticDescriptor Blocking = new(
        "BOC201",
        "Blocking call inside a behaviour",
        "'{0}' blocks the worker inside a behaviour while it holds its cowns; use an async body and await instead",
        ExecutionCategory,
        DiagnosticSeverity.Warning,
        isEnabledByDefault: true,
        description: "A blocked behaviour keeps its cowns and its worker. Waiting for work that needs either can stall or deadlock the runtime.",
        helpLinkUri: HelpLink("BOC201.md"));

    public static readonly DiagnosticDescriptor AsyncVoidBody = new(
        "BOC202",
        "async void body bound to a synchronous When overload",
        "'{0}' is an async void body: the behaviour releases its cowns at the first await; pass an async lambda or a Task-returning method",
        ExecutionCategory,
        DiagnosticSeverity.Error,
        isEnabledByDefault: true,
        description: "A synchronous overload treats the body as finished when the delegate returns, which for async void is the first await. The rest of the body runs without the cowns.",
        helpLinkUri: HelpLink("BOC202.md"));

    public static readonly DiagnosticDescriptor SelfWait = new(
        "BOC203",
        "Behaviour waits for a behaviour that needs a cown it holds",
        "{0}",
        ExecutionCategory,
        DiagnosticSeverity.Error,
        isEnabledByDefault: true,
        description: "A behaviour keeps its cowns while it awaits or blocks. A behaviour it waits for that needs one of those cowns is queued behind it and cannot start before it ends, so the wait never completes. The runtime detects the direct case and throws; waits through readers or through other behaviours hang.",
        helpLinkUri: HelpLink("BOC203.md"));

    public static readonly DiagnosticDescriptor UnfinishedScope = new(
        "BOC204",
        "A scope is never awaited or disposed",
        "'{0}' begins a scope that is never awaited or disposed: its block never ends, so its members' exceptions are never reported, later spawns from this code keep joining it, and a scope around it waits for it forever; use 'await using'",
        ExecutionCategory,
        DiagnosticSeverity.Warning,
        isEnabledByDefault: true,
        description: "A scope's block ends when it is disposed or its FinishAsync is called; only then does its finish wait for the members and report their exceptions. A scope that is begun and dropped stays the ambient scope of the code that began it, keeps its members' exceptions to itself, and counts as unfinished work of its parent scope for good.",
        helpLinkUri: HelpLink("BOC204.md"));

    /// <summary>The help link of a rule's page, or none if the assembly was built without a base.</summary>
    private static string? HelpLink(string page) => HelpLinkBase.Length == 0 ? null : HelpLinkBase + page;

    private static string HelpLinkBaseOfAssembly()
    {
        foreach (object attribute in typeof(Descriptors).Assembly.GetCustomAttributes(typeof(System.Reflection.AssemblyMetadataAttribute), inherit: false))
        {
            if (attribute is System.Reflection.AssemblyMetadataAttribute { Key: "BocAnalyzerHelpLinkBase", Value: { Length: > 0 } value })
            {
                return value;
            }
        }

        // Built without the property (not through this repository's build): no help link rather than a broken one.
        return "";
    }
}
