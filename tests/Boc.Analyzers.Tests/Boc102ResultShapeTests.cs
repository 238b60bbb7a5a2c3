using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// Results that carry acquired objects although their type has no setters (issue 62): a lookup or grouping of the
/// state's objects (<c>IGrouping&lt;TKey, TElement&gt;</c> enumerates them), and an object of an interface type built
/// from the state (<c>Results.Ok(a)</c>: an <c>IResult</c> that serialises the account when the response is written).
/// </summary>
public class Boc102ResultShapeTests
{
    private const string Team = """

        public sealed class Team
        {
            public List<Account> Members { get; } = new();
        }
        """;

    [Fact]
    public Task A_lookup_or_grouping_of_acquired_objects_is_a_mutable_result() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Team> c)
            {
                ILookup<string, Account> byName = await WhenAsync(c, t => {|BOC102:t.Members.ToLookup(m => m.Details.Name)|});
                IGrouping<long, Account>[] groups = await WhenAsync(c, t => {|BOC102:t.Members.GroupBy(m => m.Balance).ToArray()|});
                Dictionary<long, List<Account>> index = await WhenAsync(c, t => {|BOC102:t.Members.GroupBy(m => m.Balance).ToDictionary(g => g.Key, g => g.ToList())|});
            }
        }
        """ + Team);

    [Fact]
    public Task A_lookup_of_values_or_records_is_a_copy() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Team> c)
            {
                ILookup<string, Snapshot> byName = await WhenAsync(c, t => t.Members.ToLookup(m => m.Details.Name, m => new Snapshot(m.Balance, m.Details.Name)));
                ILookup<long, string> names = await WhenAsync(c, t => t.Members.ToLookup(m => m.Balance, m => m.Details.Name));
                Dictionary<long, int> counts = await WhenAsync(c, t => t.Members.GroupBy(m => m.Balance).ToDictionary(g => g.Key, g => g.Count()));
            }
        }
        """ + Team);

    [Fact]
    public Task An_IResult_built_from_acquired_state_is_reported() => VerifyAspNetAsync("""
        class Endpoints
        {
            public static async Task<IResult> Get(Cown<Account> account) => await Behaviours.WhenAsync(account, a =>
            {
                a.Balance++;
                return {|BOC102:Results.Ok(a)|};
            });

            public static async Task<IResult> Log(Cown<Account> account) =>
                await Behaviours.WhenAsync(account, a => {|BOC102:Results.Json(a.Log)|});

            public static async Task<IResult> Typed(Cown<Account> account) =>
                await Behaviours.WhenAsync(account, a => {|BOC102:(IResult)TypedResults.Ok(a.Details)|});
        }
        """);

    [Fact]
    public Task An_IResult_of_a_copy_or_a_value_is_not_reported() => VerifyAspNetAsync("""
        class Endpoints
        {
            public static async Task<IResult> Get(Cown<Account> account) =>
                await Behaviours.WhenAsync(account, a => Results.Ok(new Snapshot(a.Balance, a.Details.Name)));

            public static async Task<IResult> Log(Cown<Account> account) =>
                await Behaviours.WhenAsync(account, a => Results.Json(a.Log.ToList()));

            public static async Task<IResult> Balance(Cown<Account> account) =>
                await Behaviours.WhenAsync(account, a => a.Balance < 0 ? Results.Conflict(a.Balance) : Results.Text(a.Details.Name));
        }
        """);

    private static Task VerifyAspNetAsync(string markup) =>
        VerifyAsync("using Microsoft.AspNetCore.Http;\n\n" + markup, editorConfig: null, InRepoCodeTests.ProgramReferences());
}
