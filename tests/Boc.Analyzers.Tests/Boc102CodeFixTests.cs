using System.Collections.Immutable;
using Boc.Analyzers.CodeFixes;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CodeActions;
using Microsoft.CodeAnalysis.Diagnostics;
using static Boc.Analyzers.Tests.AnalyzerHarness;
using static Boc.Analyzers.Tests.CodeFixHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// BOC102's fix: hand out a copy made while the cown is held. The fixed programs run: what the caller does to the copy
/// no longer changes the state (src's log has one entry, "opened").
/// </summary>
public class Boc102CodeFixTests
{
    private static readonly ImmutableArray<DiagnosticAnalyzer> s_analyzers = [new AcquiredStateEscapeAnalyzer()];

    private const string Program = """

        public static class Program
        {
            public static async Task<long> Run(BocRuntime runtime)
            {
                var src = new Cown<Account>(new Account { Balance = 30, Log = { "opened" } });
                await new C().M(runtime, src);
                await runtime.WaitForQuiescenceAsync();
                return await runtime.WhenAsync(src, s => (long)s.Log.Count);
            }
        }
        """;

    [Fact]
    public Task A_returned_list_becomes_a_copy() => VerifyFixAsync(new CopyEscapingStateCodeFix(), s_analyzers,
        """
        class C
        {
            public async Task M(BocRuntime runtime, Cown<Account> src)
            {
                List<string> log = await runtime.WhenAsync(src, s => s.Log);
                log.Add("changed by the caller");
            }
        }
        """,
        """
        class C
        {
            public async Task M(BocRuntime runtime, Cown<Account> src)
            {
                List<string> log = await runtime.WhenAsync(src, s => s.Log.ToList());
                log.Add("changed by the caller");
            }
        }
        """,
        Program,
        expected: 1);

    [Fact]
    public Task A_list_stored_outside_becomes_a_copy() => VerifyFixAsync(new CopyEscapingStateCodeFix(), s_analyzers,
        """
        class C
        {
            private static readonly ConcurrentDictionary<int, List<string>> s_logs = new();

            public async Task M(BocRuntime runtime, Cown<Account> src)
            {
                runtime.When(src, s => s_logs[1] = s.Log);
                await runtime.WaitForQuiescenceAsync();
                s_logs[1].Add("changed later");
            }
        }
        """,
        """
        class C
        {
            private static readonly ConcurrentDictionary<int, List<string>> s_logs = new();

            public async Task M(BocRuntime runtime, Cown<Account> src)
            {
                runtime.When(src, s => s_logs[1] = s.Log.ToList());
                await runtime.WaitForQuiescenceAsync();
                s_logs[1].Add("changed later");
            }
        }
        """,
        Program,
        expected: 1);

    [Fact]
    public Task A_deferred_query_becomes_a_list_made_while_the_cown_is_held() => VerifyFixAsync(new CopyEscapingStateCodeFix(), s_analyzers,
        """
        class C
        {
            public async Task M(BocRuntime runtime, Cown<Account> src)
            {
                IEnumerable<string> recent = await runtime.WhenAsync(src, s => from x in s.Log where x.Length > 3 select x);
                await runtime.WhenAsync(src, s => s.Log.Clear());
                if (!recent.Any())
                {
                    throw new InvalidOperationException("the query read the state after the behaviour");
                }
            }
        }
        """,
        """
        class C
        {
            public async Task M(BocRuntime runtime, Cown<Account> src)
            {
                IEnumerable<string> recent = await runtime.WhenAsync(src, s => (from x in s.Log where x.Length > 3 select x).ToList());
                await runtime.WhenAsync(src, s => s.Log.Clear());
                if (!recent.Any())
                {
                    throw new InvalidOperationException("the query read the state after the behaviour");
                }
            }
        }
        """,
        Program,
        expected: 0);

    [Fact]
    public async Task The_argument_of_a_result_built_from_the_state_is_copied()
    {
        List<(Document Document, CodeAction Action)> fixes = await FixesAsync("""
            using Microsoft.AspNetCore.Http;

            class Endpoints
            {
                public static async Task<IResult> Log(Cown<Account> account) =>
                    await Behaviours.WhenAsync(account, a => Results.Json(a.Log));
            }
            """, s_analyzers, [new CopyEscapingStateCodeFix()], extra: InRepoCodeTests.ProgramReferences());
        (Document document, CodeAction action) = Assert.Single(fixes);
        Assert.Equal("Hand out a copy: a.Log.ToList()", action.Title);
        string fixedText = await ApplyAsync(document, action);
        Assert.Contains("await Behaviours.WhenAsync(account, a => Results.Json(a.Log.ToList()));", fixedText, StringComparison.Ordinal);
        Assert.Empty(await AnalyzeAsync(Compile([fixedText], InRepoCodeTests.ProgramReferences())));
    }

    [Fact]
    public async Task Not_offered_for_the_object_itself_for_copies_that_share_objects_or_copies_that_do_not_fit()
    {
        var fixes = await FixesAsync("""
            class C
            {
                private static readonly ConcurrentBag<Account> s_seen = new();

                public async Task M(BocRuntime runtime, Cown<Team> team, Cown<Account> src)
                {
                    runtime.When(src, s => s_seen.Add(s));
                    List<Account> members = await runtime.WhenAsync(team, t => t.Members);
                    System.Collections.ObjectModel.ReadOnlyCollection<string> view = await runtime.WhenAsync(src, s => s.Log.AsReadOnly());
                    runtime.When(src, s => { _ = Task.Run(() => s.Log.Add("later")); });
                }
            }

            public sealed class Team { public List<Account> Members { get; } = new(); }
            """, s_analyzers, [new CopyEscapingStateCodeFix()]);
        Assert.Empty(fixes);
    }
}
