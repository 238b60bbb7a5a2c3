using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// A spawn the spawning code awaits where it is made (<c>await WhenAsync(...)</c>) runs while that code is suspended:
/// what the body captures from it is not used by it at the same time, so a request's <c>HttpContext</c>, a parameter
/// or a list it keeps using afterwards is not shared (issue 62). Other functions, other spawns and <c>this</c> still are.
/// </summary>
public class Boc103AwaitedInPlaceTests
{
    private const string AspNet = """
        using Microsoft.AspNetCore.Http;

        """;

    [Fact]
    public Task Http_context_used_inside_an_immediately_awaited_WhenAsync_is_not_reported() => VerifyAspNetAsync("""
        class Endpoints
        {
            public static async Task<IResult> Deposit(HttpContext context, Cown<Account> account)
            {
                long amount = long.Parse(context.Request.Query["amount"].ToString());
                long balance = await Behaviours.WhenAsync(account, a =>
                {
                    a.Log.Add(context.TraceIdentifier);
                    return a.Balance += amount;
                });
                context.Response.Headers["X-Balance"] = balance.ToString();
                return Results.Ok(balance);
            }

            public static async Task Handler(HttpContext context, Cown<Account> account) =>
                context.Items["b"] = await Behaviours.WhenAsync(account, a => a.Balance + context.Request.ContentLength.GetValueOrDefault()).ConfigureAwait(false);
        }
        """);

    [Fact]
    public Task Http_context_captured_by_a_spawn_that_is_not_awaited_is_reported() => VerifyAspNetAsync("""
        class Endpoints
        {
            public static IResult Deposit(HttpContext context, Cown<Account> account)
            {
                Behaviours.When(account, a => a.Log.Add({|BOC103:context|}.TraceIdentifier));
                return Results.Accepted();
            }

            public static async Task Later(HttpContext context, Cown<Account> account)
            {
                var pending = Behaviours.WhenAsync(account, a => a.Log.Add({|BOC103:context|}.TraceIdentifier));
                context.Response.StatusCode = 202;
                await pending;
            }
        }
        """);

    [Fact]
    public Task Mutable_locals_and_loop_variables_of_an_awaited_spawn_are_not_shared() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> c, List<string> names)
            {
                var items = new List<long>();
                for (int i = 0; i < 3; i++)
                {
                    await WhenAsync(c, a => items.Add(a.Balance + i + names.Count));
                }

                items.Clear();
                int total = 0;
                await WhenAsync(c, a => total += (int)a.Balance);
                total++;
                Console.WriteLine(total + items.Count);
            }
        }
        """);

    [Fact]
    public Task Awaited_spawns_still_share_with_other_functions_this_and_statics() => VerifyAsync("""
        class C
        {
            static int s_count;
            int _hits;

            async Task M(Cown<Account> c, Cown<Account> d)
            {
                var items = new List<long>();
                When(d, b => {|BOC103:items|}.Add(b.Balance));
                await WhenAsync(c, a => {|BOC103:items|}.Add(a.Balance));

                var seen = new List<long>();
                await Task.WhenAll(WhenAsync(c, a => {|BOC103:seen|}.Add(1)).AsTask(), WhenAsync(d, b => {|BOC103:seen|}.Add(2)).AsTask());

                await WhenAsync(c, a => a.Balance = {|BOC103:s_count|}++);
                await WhenAsync(c, a => a.Balance = {|BOC103:_hits|});
            }
        }
        """);

    [Fact]
    public Task A_capture_written_by_another_function_is_still_reported() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> c)
            {
                int limit = 1;
                Action raise = () => limit++;
                await WhenAsync(c, a => a.Balance = {|BOC103:limit|});
                raise();
            }
        }
        """);

    private static Task VerifyAspNetAsync(string markup) =>
        VerifyAsync(AspNet + markup, editorConfig: null, InRepoCodeTests.ProgramReferences());
}
