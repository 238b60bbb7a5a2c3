using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

public class Boc101NonAcquiredStateTests
{
    [Fact]
    public Task Flags_outer_parameter_used_in_inner_body() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) =>
                When(src, s => When(dst, d => d.Balance += {|BOC101:s|}.Balance));
        }
        """);

    [Fact]
    public Task Flags_alias_through_several_locals() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) => When(src, s =>
            {
                var a = s;
                Account b = a;
                When(dst, d => d.Balance = {|BOC101:b|}.Balance);
            });
        }
        """);

    [Fact]
    public Task Flags_mutable_part_from_deconstruction_and_tuple() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) => When(src, s =>
            {
                var (balance, log) = s;
                var (acc, n) = (s, 1);
                When(dst, d =>
                {
                    {|BOC101:log|}.Add("seen");
                    d.Balance = balance + n + {|BOC101:acc|}.Balance;
                });
            });
        }
        """);

    [Fact]
    public Task Flags_member_pattern_and_foreach_aliases() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst, Cown<Account>[] all) =>
                When(src, s =>
                {
                    if (s.Partner is Account p)
                    {
                        When(dst, d => {|BOC101:p|}.Balance++);
                    }

                    var partner = s.Partner;
                    When(dst, d => d.Balance = {|BOC101:partner|}!.Balance);
                });
        }
        """);

    [Fact]
    public Task Flags_lambda_and_local_function_that_use_outer_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) => When(src, s =>
            {
                Action bump = () => s.Balance++;
                void Twice() { s.Balance *= 2; }
                When(dst, d => {|BOC101:bump|}());
                When(dst, d => {|BOC101:Twice()|});
            });
        }
        """);

    [Fact]
    public Task Flags_local_function_method_group_as_inner_body() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) => When(src, s =>
            {
                void Inner(Account d) => d.Balance = {|BOC101:s|}.Balance;
                When(dst, Inner);
            });
        }
        """);

    [Fact]
    public Task Flags_element_of_dynamic_set_through_foreach_and_indexer() => VerifyAsync("""
        class C
        {
            void M(Cown<Account>[] cowns, Cown<Account> dst) => When(cowns, states =>
            {
                foreach (var acc in states)
                {
                    When(dst, d => d.Balance += {|BOC101:acc|}.Balance);
                }

                var first = states[0];
                When(dst, d => d.Log.AddRange({|BOC101:first|}.Log));
            });
        }
        """);

    [Fact]
    public Task Flags_outer_state_passed_as_state_argument_of_static_lambda() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) =>
                runtime.When(src, s => runtime.When(dst, static (d, other) => d.Balance = other.Balance, {|BOC101:s|}));
        }
        """);

    [Fact]
    public Task Flags_use_in_awaited_result_form_from_async_outer_body() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) => When(src, async s =>
            {
                await Task.Yield();
                long total = await WhenAsync(dst, d => d.Balance + {|BOC101:s|}.Balance);
                s.Balance = total;
            });
        }
        """);

    [Fact]
    public Task Flags_three_levels_deep() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> a, Cown<Account> b, Cown<Account> c) =>
                When(a, x => When(b, y => When(c, z => z.Balance = {|BOC101:x|}.Balance + {|BOC101:y|}.Balance)));
        }
        """);

    [Fact]
    public Task Does_not_flag_both_cowns_in_one_when() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) => When(src, dst, (s, d) => d.Balance += s.Balance);
        }
        """);

    [Fact]
    public Task Does_not_flag_immutable_values_copied_out_first() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) => When(src, s =>
            {
                long y = s.Balance;
                string name = s.Details.Name;
                var snapshot = new Snapshot(s.Balance, s.Details.Name);
                var (balance, _) = s;
                When(dst, d => { d.Balance = y + snapshot.Balance + balance; d.Details.Name = name; });
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_inner_when_that_reacquires_the_outer_cown() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) =>
                When(src, s => When(src, dst, (again, d) => d.Balance = again.Balance));
        }
        """);

    [Fact]
    public Task Does_not_flag_synchronous_lambdas_inside_the_body() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src) => When(src, s =>
            {
                new List<int> { 1, 2 }.ForEach(x => s.Balance += x);
                var total = s.Log.Select(l => l.Length + s.Balance).Sum();
                s.Balance = total;
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_cown_handle_read_from_acquired_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src) => When(src, s =>
            {
                if (s.Next is { } next)
                {
                    When(next, n => n.Balance++);
                }
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_immutable_state_argument_or_helper_local_function() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst)
            {
                runtime.When(src, s => runtime.When(dst, static (d, amount) => d.Balance += amount, s.Balance));
                runtime.When(src, s => Pay(s.Balance));

                void Pay(long amount) => runtime.When(dst, d => d.Balance = amount);
            }
        }
        """);
    [Fact]
    public Task Flags_alias_through_a_switch_expression() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst, int mode) => When(src, s =>
            {
                var pick = mode switch { 0 => s, 1 => s.Partner!, _ => new Account() };
                When(dst, d => d.Balance = {|BOC101:pick|}.Balance);
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_switch_expressions_of_values_or_cown_handles() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst, int mode) => When(src, s =>
            {
                long amount = mode switch { 0 => s.Balance, _ => 0L };
                Cown<Account> target = mode switch { 0 => s.Next ?? dst, _ => dst };
                When(target, d => d.Balance += amount);
            });
        }
        """);

    // Issue 37, class 1: a `with` expression is a shallow copy. Every member it does not replace is shared with the
    // original, so a copy of acquired state still holds the state's mutable parts.
    [Fact]
    public Task Flags_with_copies_that_share_the_outer_state() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Profile> src, Cown<Account> dst, Cown<Holder> h)
            {
                When(src, p =>
                {
                    var copy = p with { Name = "copy" };
                    When(dst, d => d.Log.AddRange({|BOC101:copy|}.Tags));
                });
                When(src, p =>
                {
                    var alias = p;
                    Profile renamed = (alias with { Name = "x" }) with { Age = 2 };
                    When(dst, d => d.Balance = {|BOC101:renamed|}.Tags.Count);
                });
                When(h, x =>
                {
                    var moved = x.Position with { X = 1 };
                    When(dst, d => d.Balance = {|BOC101:moved|}.Trail.Count);
                });
                When(src, p =>
                {
                    var fresh = new Profile("n", 1, new List<string>());
                    var mixed = fresh with { Tags = p.Tags };
                    When(dst, d => d.Balance = {|BOC101:mixed|}.Tags.Count);
                });
                When(src, p => runtime.When(dst, static (d, q) => d.Log.AddRange(q.Tags), {|BOC101:p with { Age = 3 }|}));
            }
        }

        public sealed record Profile(string Name, int Age, List<string> Tags);
        public struct Position { public int X; public List<int> Trail; }
        public sealed class Holder { public Position Position; }
        """);

    [Fact]
    public Task Does_not_flag_with_copies_that_share_nothing_mutable() => VerifyAsync("""
        class C
        {
            void M(Cown<Profile> src, Cown<Snapshot> snap, Cown<Holder> h, Cown<Account> dst)
            {
                When(src, p =>
                {
                    var own = p with { Tags = p.Tags.ToList() };
                    When(dst, d => d.Log.AddRange(own.Tags));
                });
                When(snap, s =>
                {
                    var renamed = s with { Owner = "x" };
                    When(dst, d => d.Balance = renamed.Balance);
                });
                When(h, x =>
                {
                    var at = x.Point with { X = 1 };
                    When(dst, d => d.Balance = at.X + at.Y);
                });
                When(src, p =>
                {
                    string name = (p with { Age = 2 }).Name;
                    var copy = p with { Name = "c" };
                    copy.Tags.Add("synchronous, same behaviour");
                    When(dst, d => d.Details.Name = name);
                });
            }
        }

        public sealed record Profile(string Name, int Age, List<string> Tags);
        public struct Point { public int X; public int Y; }
        public sealed class Holder { public Point Point; }
        """);

    // Query syntax is the same calls as method syntax: a query over the state is a live view of it, and its range
    // variables are parts of it.
    [Fact]
    public Task Flags_query_syntax_over_the_outer_state_as_method_syntax_is() => VerifyAsync("""
        class C
        {
            void M(Cown<Bank> src, Cown<Account> dst)
            {
                When(src, s =>
                {
                    var rich = from x in s.Accounts where x.Balance > 0 select x;
                    var viaMethods = s.Accounts.Where(x => x.Balance > 0);
                    When(dst, d => d.Balance = {|BOC101:rich|}.Count() + {|BOC101:viaMethods|}.Count());
                });
                When(src, s =>
                {
                    foreach (var partner in from x in s.Accounts select x.Partner)
                    {
                        When(dst, d => d.Balance = {|BOC101:partner|}!.Balance);
                    }
                });
                When(src, s =>
                {
                    var total = (from x in s.Accounts select x.Balance).Sum();
                    var names = (from x in s.Accounts select x.Details.Name).ToList();
                    When(dst, d => d.Balance = total + names.Count);
                });
            }
        }

        public sealed class Bank { public List<Account> Accounts { get; } = new(); }
        """);
}
