using System.Collections.Immutable;
using System.Runtime.InteropServices;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.Diagnostics;

namespace Boc.AnalyzerCost;

/// <summary>
/// Runs another analyzer and adds up the CPU time of the thread that runs each of its callbacks (clock_gettime of
/// CLOCK_THREAD_CPUTIME_ID, Linux): what the rule costs, which the driver's telemetry (wall time inside the callbacks)
/// does not tell on a machine where other work takes turns on the cores. Forwards the registrations the Boc rules make
/// (compilation start, operation blocks, operations); any other registration fails, so that nothing goes unmeasured.
/// </summary>
#pragma warning disable RS1001, RS1012, RS1025, RS1026, RS1036, RS1041 // A measuring wrapper in a tool, never shipped.
internal sealed class ThreadCpuAnalyzer : DiagnosticAnalyzer
{
    private long _nanoseconds;

    public ThreadCpuAnalyzer(DiagnosticAnalyzer inner) => Inner = inner;

    public DiagnosticAnalyzer Inner { get; }

    /// <summary>The thread CPU time spent in the wrapped analyzer's callbacks so far.</summary>
    public TimeSpan Cpu => TimeSpan.FromTicks(Interlocked.Read(ref _nanoseconds) / 100);

    public override ImmutableArray<DiagnosticDescriptor> SupportedDiagnostics => Inner.SupportedDiagnostics;

    public override void Initialize(AnalysisContext context) => Inner.Initialize(new Context(context, this));

    private Action<T> Timed<T>(Action<T> action) => argument =>
    {
        long start = ThreadNanoseconds();
        try
        {
            action(argument);
        }
        finally
        {
            Interlocked.Add(ref _nanoseconds, ThreadNanoseconds() - start);
        }
    };

    private static long ThreadNanoseconds()
    {
        const int ClockThreadCpuTime = 3;
        if (ClockGetTime(ClockThreadCpuTime, out TimeSpec now) != 0)
        {
            throw new InvalidOperationException($"clock_gettime failed: {Marshal.GetLastPInvokeError()}");
        }

        return (now.Seconds * 1_000_000_000) + now.Nanoseconds;
    }

    // DllImport, not LibraryImport: the in-repo code test compiles this project without source generators.
    [DllImport("libc", EntryPoint = "clock_gettime", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static extern int ClockGetTime(int clock, out TimeSpec time);

    [StructLayout(LayoutKind.Sequential)]
    private struct TimeSpec
    {
        public long Seconds;
        public long Nanoseconds;
    }

    private sealed class Context : AnalysisContext
    {
        private readonly AnalysisContext _inner;
        private readonly ThreadCpuAnalyzer _owner;

        public Context(AnalysisContext inner, ThreadCpuAnalyzer owner)
        {
            _inner = inner;
            _owner = owner;
        }

        public override void ConfigureGeneratedCodeAnalysis(GeneratedCodeAnalysisFlags analysisMode) => _inner.ConfigureGeneratedCodeAnalysis(analysisMode);

        public override void EnableConcurrentExecution() => _inner.EnableConcurrentExecution();

        public override void RegisterCompilationStartAction(Action<CompilationStartAnalysisContext> action) =>
            _inner.RegisterCompilationStartAction(_owner.Timed<CompilationStartAnalysisContext>(start => action(new StartContext(start, _owner))));

        public override void RegisterOperationBlockAction(Action<OperationBlockAnalysisContext> action) =>
            _inner.RegisterOperationBlockAction(_owner.Timed(action));

        public override void RegisterOperationAction(Action<OperationAnalysisContext> action, ImmutableArray<OperationKind> operationKinds) =>
            _inner.RegisterOperationAction(_owner.Timed(action), operationKinds);

        public override void RegisterCompilationAction(Action<CompilationAnalysisContext> action) => throw Unmeasured();

        public override void RegisterSemanticModelAction(Action<SemanticModelAnalysisContext> action) => throw Unmeasured();

        public override void RegisterSymbolAction(Action<SymbolAnalysisContext> action, ImmutableArray<SymbolKind> symbolKinds) => throw Unmeasured();

        public override void RegisterCodeBlockStartAction<TLanguageKindEnum>(Action<CodeBlockStartAnalysisContext<TLanguageKindEnum>> action) => throw Unmeasured();

        public override void RegisterCodeBlockAction(Action<CodeBlockAnalysisContext> action) => throw Unmeasured();

        public override void RegisterSyntaxTreeAction(Action<SyntaxTreeAnalysisContext> action) => throw Unmeasured();

        public override void RegisterSyntaxNodeAction<TLanguageKindEnum>(Action<SyntaxNodeAnalysisContext> action, ImmutableArray<TLanguageKindEnum> syntaxKinds) =>
            throw Unmeasured();
    }

    private sealed class StartContext : CompilationStartAnalysisContext
    {
        private readonly CompilationStartAnalysisContext _inner;
        private readonly ThreadCpuAnalyzer _owner;

        public StartContext(CompilationStartAnalysisContext inner, ThreadCpuAnalyzer owner)
            : base(inner.Compilation, inner.Options, inner.CancellationToken)
        {
            _inner = inner;
            _owner = owner;
        }

        public override void RegisterOperationBlockAction(Action<OperationBlockAnalysisContext> action) =>
            _inner.RegisterOperationBlockAction(_owner.Timed(action));

        public override void RegisterOperationAction(Action<OperationAnalysisContext> action, ImmutableArray<OperationKind> operationKinds) =>
            _inner.RegisterOperationAction(_owner.Timed(action), operationKinds);

        public override void RegisterCompilationEndAction(Action<CompilationAnalysisContext> action) => throw Unmeasured();

        public override void RegisterSemanticModelAction(Action<SemanticModelAnalysisContext> action) => throw Unmeasured();

        public override void RegisterSymbolAction(Action<SymbolAnalysisContext> action, ImmutableArray<SymbolKind> symbolKinds) => throw Unmeasured();

        public override void RegisterCodeBlockStartAction<TLanguageKindEnum>(Action<CodeBlockStartAnalysisContext<TLanguageKindEnum>> action) => throw Unmeasured();

        public override void RegisterCodeBlockAction(Action<CodeBlockAnalysisContext> action) => throw Unmeasured();

        public override void RegisterSyntaxTreeAction(Action<SyntaxTreeAnalysisContext> action) => throw Unmeasured();

        public override void RegisterSyntaxNodeAction<TLanguageKindEnum>(Action<SyntaxNodeAnalysisContext> action, ImmutableArray<TLanguageKindEnum> syntaxKinds) =>
            throw Unmeasured();
    }

    private static NotSupportedException Unmeasured() =>
        new("ThreadCpuAnalyzer forwards only compilation-start, operation-block and operation actions; add the one a rule now registers");
}
#pragma warning restore RS1001, RS1012, RS1025, RS1026, RS1036, RS1041
