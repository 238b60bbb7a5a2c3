using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// Work a body starts that goes on after the body ends (issue 62): tasks combined by <c>Task.WhenAll</c> whose combined
/// task the body does not wait for (nor <c>Task.WhenAny</c>, which waits for one of them), and async lambdas converted to
/// <c>Action</c> (<c>list.ForEach(async x =&gt; …)</c>), which return at their first <c>await</c>.
/// </summary>
public class Boc102OutlivingWorkTests
{
    private const string Helpers = """

        public static class Store
        {
            public static async Task SaveAsync(Account a) { await Task.Yield(); a.Balance++; }
            public static async Task AuditAsync(Account a) { await Task.Yield(); a.Log.Add("audit"); }
        }

        public sealed class Team
        {
            public List<Account> Members { get; } = new();
        }
        """;

    [Fact]
    public Task Tasks_combined_by_WhenAll_and_not_waited_for_are_reported() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                When(c, a => { _ = Task.WhenAll({|BOC102:Store.SaveAsync(a)|}, {|BOC102:Store.AuditAsync(a)|}); });
                When(c, a => { Task.WhenAll([{|BOC102:Store.SaveAsync(a)|}]); });
                When(c, a => { var all = Task.WhenAll(new[] { {|BOC102:Store.SaveAsync(a)|} }); });
                When(c, async a => { await Task.WhenAny({|BOC102:Store.SaveAsync(a)|}, Task.Delay(100)); });
            }
        }
        """ + Helpers);

    [Fact]
    public Task Tasks_combined_by_WhenAll_that_the_body_waits_for_are_not_reported() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                When(c, async a => await Task.WhenAll(Store.SaveAsync(a), Store.AuditAsync(a)));
                When(c, a => Task.WhenAll(Store.SaveAsync(a), Store.AuditAsync(a)));
                When(c, async a => { var all = Task.WhenAll([Store.SaveAsync(a)]); a.Balance++; await all; });
                When(c, async a => { var save = Store.SaveAsync(a); await Task.WhenAny(save, Task.Delay(100)); await save; });
                When(c, a => { _ = Task.WhenAll(Task.Delay(1), Task.Delay(2)); });
            }
        }
        """ + Helpers);

    [Fact]
    public Task An_async_lambda_converted_to_Action_that_uses_acquired_state_is_reported() => VerifyAsync("""
        class C
        {
            void M(Cown<Team> c, Cown<Account> d)
            {
                When(c, t => t.Members.ForEach({|BOC102:async m => { await Task.Yield(); m.Counter++; }|}));
                When(d, a => new List<int> { 1, 2 }.ForEach({|BOC102:async i => { await Task.Delay(i); a.Balance += i; }|}));
                When(c, t => Array.ForEach(t.Members.ToArray(), {|BOC102:async m => await Store.SaveAsync(m)|}));
            }
        }
        """ + Helpers);

    [Fact]
    public Task Synchronous_lambdas_and_awaited_async_ones_are_not_reported() => VerifyAsync("""
        class C
        {
            void M(Cown<Team> c)
            {
                When(c, t => t.Members.ForEach(m => m.Counter++));
                When(c, async t => await Parallel.ForEachAsync(t.Members, async (m, ct) => { await Task.Yield(); m.Counter++; }));
                When(c, async t => await Task.WhenAll(t.Members.Select(async m => { await Task.Yield(); m.Counter++; })));
                When(c, t => new List<int> { 1 }.ForEach(async i => { await Task.Delay(i); Console.WriteLine(i); }));
                When(c, t => t.Members.ForEach(async m => await Task.Yield()));
            }
        }
        """ + Helpers);
}
