using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// A body that waits for a scope's finish waits for every member of the scope (issue 62): a member that needs a cown
/// the body holds is queued behind the body, so the finish never comes. The scope's end is waited for by
/// <c>await using</c> (a statement or a declaration) and by an awaited or blocked-on <c>FinishAsync</c> or
/// <c>DisposeAsync</c>; its members are the spawns between its begin and its end in the body, and the spawns of their
/// bodies.
/// </summary>
public class Boc203ScopeTests
{
    [Fact]
    public Task Await_using_a_scope_with_a_member_on_a_held_cown_is_reported() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> c, Cown<Account> d)
            {
                runtime.When(c, async a =>
                {
                    await using ({|BOC203:runtime.BeginScope()|})
                    {
                        runtime.When(c, x => x.Balance++);
                    }
                });

                runtime.When(c, async a =>
                {
                    await using var scope = {|BOC203:runtime.BeginScope(TimeSpan.FromSeconds(1))|};
                    runtime.When(d, x => x.Balance++);
                    runtime.When(Read(c), x => Console.WriteLine(x.Balance));
                });
            }
        }
        """);

    [Fact]
    public Task An_awaited_finish_and_a_member_that_spawns_on_the_held_cown_are_reported() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> c, Cown<Account> d)
            {
                runtime.When(c, async a =>
                {
                    BocScope scope = BeginScope();
                    When(c, x => x.Balance++);
                    {|BOC203:await scope.FinishAsync()|};
                });

                runtime.When(c, async a =>
                {
                    var scope = runtime.BeginScope();
                    runtime.When(d, x => runtime.When(c, y => y.Balance++));
                    try
                    {
                        a.Balance++;
                    }
                    finally
                    {
                        {|BOC203:await scope.DisposeAsync()|};
                    }
                });

                runtime.When(c, a =>
                {
                    var scope = runtime.BeginScope();
                    runtime.When(c, x => x.Balance++);
                    {|BOC201:{|BOC203:scope.FinishAsync().Wait()|}|};
                });
            }
        }
        """);

    [Fact]
    public Task Scopes_whose_members_use_other_cowns_or_that_are_not_waited_for_in_a_body_are_not_reported() => VerifyAsync("""
        class C
        {
            async Task M(BocRuntime runtime, Cown<Account> c, Cown<Account> d)
            {
                runtime.When(c, async a =>
                {
                    runtime.When(c, x => x.Balance++);
                    await using (runtime.BeginScope())
                    {
                        runtime.When(d, x => x.Balance++);
                    }

                    runtime.When(c, x => x.Balance++);
                });

                runtime.When(c, async a =>
                {
                    await using (runtime.BeginScope())
                    {
                        runtime.When(d, x => x.Balance += 1);
                        _ = Task.Run(() => Console.WriteLine("not a behaviour"));
                    }
                });

                await using (runtime.BeginScope())
                {
                    runtime.When(c, x => x.Balance++);
                }

                runtime.When(c, async a =>
                {
                    var scope = runtime.BeginScope();
                    runtime.When(c, x => x.Balance++);
                    Task finish = scope.FinishAsync();
                    await Task.Yield();
                    runtime.When(d, x => x.Balance += finish.IsCompleted ? 1 : 0);
                });
            }
        }
        """);
}
