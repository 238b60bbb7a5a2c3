using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// Collection expressions (<c>[s, .. s.Children]</c>): a collection built from acquired objects, or spread from a
/// collection of them, holds the state; one built from values, or spread from a collection of values, is a copy
/// (issue 62).
/// </summary>
public class Boc101CollectionExpressionTests
{
    private const string Team = """

        public sealed class Team
        {
            public Account Lead { get; } = new();
            public List<Account> Members { get; } = new();
            public long[] Scores { get; } = new long[2];
            public Cown<Account>? Next { get; set; }
        }
        """;

    [Fact]
    public Task A_collection_of_the_outer_state_used_by_an_inner_body_is_reported() => VerifyAsync("""
        class C
        {
            void M(Cown<Team> c, Cown<Account> d) => When(c, t =>
            {
                List<Account> team = [t.Lead, .. t.Members];
                Account[] members = [.. t.Members];
                ImmutableArray<Account> lead = [t.Lead];
                When(d, x => x.Balance = {|BOC101:team|}.Count + {|BOC101:members|}[0].Balance + {|BOC101:lead|}[0].Balance);
            });
        }
        """ + Team);

    [Fact]
    public Task A_collection_of_acquired_objects_escapes_like_the_objects() => VerifyAsync("""
        class C
        {
            static List<Account> s_kept = [];

            async Task<List<Account>> M(Cown<Team> c)
            {
                When(c, t => {|BOC103:s_kept|} = {|BOC102:[t.Lead, .. t.Members]|});
                return await WhenAsync(c, t =>
                {
                    List<Account> all = [.. t.Members];
                    return {|BOC102:all|};
                });
            }
        }
        """ + Team);

    [Fact]
    public Task A_collection_of_values_copied_from_the_outer_state_is_not_reported() => VerifyAsync("""
        class C
        {
            void M(Cown<Team> c, Cown<Account> d) => When(c, t =>
            {
                List<long> scores = [t.Lead.Balance, .. t.Scores];
                string[] names = [t.Lead.Details.Name, .. t.Members.Select(m => m.Details.Name)];
                ImmutableArray<string> tags = [.. t.Lead.Tags];
                Cown<Account>[] next = t.Next is { } n ? [n] : [];
                When(d, x => x.Balance = scores.Sum() + names.Length + tags.Length + next.Length);
            });

            async Task<List<long>> Copy(Cown<Team> c) => await WhenAsync(c, t =>
            {
                List<long> copy = [.. t.Scores, t.Lead.Balance];
                return copy;
            });
        }
        """ + Team);
}
