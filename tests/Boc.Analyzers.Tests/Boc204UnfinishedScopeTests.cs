using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// BOC204: a scope from <c>BeginScope(...)</c> that is never awaited or disposed. Its block never ends, so its members'
/// exceptions are never reported, later spawns from the flow keep joining it, and a parent scope waits for it forever.
/// Quiet wherever the scope is ended or handed to code that may end it.
/// </summary>
public class Boc204UnfinishedScopeTests
{
    [Fact]
    public Task A_scope_dropped_or_kept_in_a_local_that_is_never_ended_is_reported() => VerifyAsync("""
        class C
        {
            async Task M(BocRuntime runtime, Cown<Account> c)
            {
                {|BOC204:runtime.BeginScope()|};
                runtime.When(c, a => a.Balance++);

                _ = {|BOC204:runtime.BeginScope(TimeSpan.FromSeconds(1))|};

                var scope = {|BOC204:runtime.BeginScope(CancellationToken.None)|};
                runtime.When(c, a => a.Balance++);
                scope.Cancel();
                Console.WriteLine(scope.PendingCount);

                BocScope other = {|BOC204:BeginScope()|};
                When(c, a => a.Balance++);
                _ = other.FinishAsync();

                var last = {|BOC204:BeginScope()|};
                last.DisposeAsync();
                await Task.Yield();
            }
        }
        """);

    [Fact]
    public Task A_scope_begun_in_a_body_and_never_ended_is_reported() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> c, Cown<Account> d) => runtime.When(c, a =>
            {
                {|BOC204:runtime.BeginScope()|};
                runtime.When(d, x => x.Balance += 1);
            });
        }
        """);

    [Fact]
    public Task Scopes_that_are_ended_or_handed_on_are_not_reported() => VerifyAsync("""
        using Microsoft.Extensions.Logging;

        class C
        {
            private BocScope? _scope;

            async Task M(BocRuntime runtime, Cown<Account> c, ILogger logger)
            {
                await using (runtime.BeginScope())
                {
                    runtime.When(c, a => a.Balance++);
                }

                await using var declared = runtime.BeginScope();

                var finished = runtime.BeginScope();
                runtime.When(c, a => a.Balance++);
                await finished.FinishAsync();

                var disposed = runtime.BeginScope();
                try
                {
                    runtime.When(c, a => a.Balance++);
                }
                finally
                {
                    await disposed.DisposeAsync();
                }

                var later = runtime.BeginScope();
                await using (later)
                {
                    runtime.When(c, a => a.Balance++);
                }

                var kept = runtime.BeginScope();
                Task done = kept.FinishAsync();
                await done;

                Track(runtime.BeginScope());
                var passed = runtime.BeginScope();
                Track(passed);

                _scope = runtime.BeginScope();

                var captured = runtime.BeginScope();
                Func<Task> end = () => captured.FinishAsync();
                await end();

                using (logger.BeginScope("request"))
                {
                    logger.BeginScope("dropped");
                }
            }

            BocScope Open(BocRuntime runtime) => runtime.BeginScope();

            BocScope OpenLater(BocRuntime runtime)
            {
                var scope = runtime.BeginScope();
                return scope;
            }

            ValueTask Close() => _scope?.DisposeAsync() ?? default;

            static void Track(BocScope scope) { }
        }
        """, editorConfig: null, InRepoCodeTests.ProgramReferences());
}
