using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

public class Boc104ReadOnlyWriteTests
{
    [Fact]
    public Task Flags_assignment_through_read() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(Read(c), a => {|BOC104:a.Balance|} = 1);
        }
        """);

    [Fact]
    public Task Flags_compound_assignment_through_alias_chain() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(Cown.Read(c), a =>
            {
                var x = a;
                Account y = x;
                {|BOC104:y.Balance|} += 1;
            });
        }
        """);

    [Fact]
    public Task Flags_mutating_calls_on_members_and_deconstructed_parts() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(Read(c), a =>
            {
                {|BOC104:a.Log.Add("x")|};
                var (_, log) = a;
                {|BOC104:log.Clear()|};
            });
        }
        """);

    [Fact]
    public Task Flags_write_to_element_of_read_only_dynamic_set() => VerifyAsync("""
        class C
        {
            void M(Cown<Account>[] cowns) => When(cowns.Select(Read).ToArray(), all => {|BOC104:all[0].Balance|}++);
        }
        """);

    [Fact]
    public Task Flags_read_only_in_second_position_and_static_typed_variable() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c1, Cown<Account> c2)
            {
                When(c1, Read(c2), (w, r) => { w.Balance += r.Balance; {|BOC104:r.Balance|} = 0; });
                ReadOnlyCown<Account> ro = Cown.Read(c1);
                When(ro, a => {|BOC104:a.Details.Name|} = "x");
            }
        }
        """);

    [Fact]
    public Task Flags_ref_pass_and_async_result_body() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> c)
            {
                When(Read(c), a => Interlocked.Increment({|BOC104:ref a.Counter|}));
                long b = await WhenAsync(Read(c), async a => { await Task.Yield(); {|BOC104:a.Balance|} = 2; return a.Balance; });
            }
        }
        """);

    [Fact]
    public Task Flags_state_overload_with_static_lambda_and_array_of_reads() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> c1, Cown<Account> c2) =>
                runtime.When(new[] { Read(c1), Read(c2) }, static (all, tag) => {|BOC104:all[1].Tags.Add(tag)|}, "t");
        }
        """);

    [Fact]
    public Task Does_not_flag_reads() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> c)
            {
                long sum = await WhenAsync(Read(c), a => a.Balance + a.Log.Count + (a.Log.Contains("x") ? 1 : 0));
                bool same = await WhenAsync(Read(c), a => a.Tags.SetEquals(new[] { "a" }));
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_write_to_the_write_acquired_cown() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c1, Cown<Account> c2)
            {
                When(Read(c1), c2, (r, w) => w.Balance = r.Balance);
                When(c1, Read(c1), (w, r) => w.Balance = r.Balance + 1);
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_writes_to_copies_and_new_objects() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(Read(c), a =>
            {
                long b = a.Balance;
                b++;
                var copy = a.Log.ToList();
                copy.Add("y");
                var fresh = new Account();
                fresh.Balance = a.Balance;
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_state_argument_mutated_in_read_only_body() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> c) =>
                runtime.When(Read(c), static (a, sb) => sb.Append(a.Balance), new StringBuilder());
        }
        """);

    [Fact]
    public Task Does_not_flag_write_in_separate_behaviour_spawned_from_reader() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(Read(c), a =>
            {
                long seen = a.Balance;
                When(c, w => w.Balance = seen + 1);
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_mixed_dynamic_set() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c1, Cown<Account> c2)
            {
                IReadOnlyList<IAcquirable<Account>> set = new IAcquirable<Account>[] { c1, Read(c2) };
                When(set, all => all[0].Balance++);
            }
        }
        """);
}
