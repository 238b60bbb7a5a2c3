using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// <c>TryWhen</c> (the non-waiting spawn of a bounded runtime) runs its body exactly like <c>When</c>, so every rule
/// treats it like <c>When</c>: the same findings in its body, and the same silence where a <c>When</c> body is fine.
/// </summary>
public class TryWhenTests
{
    [Fact]
    public Task Flags_outer_state_used_in_a_nested_TryWhen_body() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) =>
                TryWhen(src, s => TryWhen(dst, d => d.Balance += {|BOC101:s|}.Balance));
        }
        """);

    [Fact]
    public Task Does_not_flag_state_acquired_by_the_TryWhen_itself() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) =>
                runtime.TryWhen(src, dst, (s, d) => { d.Balance += s.Balance; s.Balance = 0; });
        }
        """);

    [Fact]
    public Task Flags_acquired_state_escaping_a_TryWhen_body() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> src, ConcurrentBag<Account> seen) =>
                runtime.TryWhen(src, s => seen.Add({|BOC102:s|}));
        }
        """);

    [Fact]
    public Task Does_not_flag_a_copy_leaving_a_TryWhen_body() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> src, ConcurrentBag<long> seen) =>
                runtime.TryWhen(src, s => seen.Add(s.Balance));
        }
        """);

    [Fact]
    public Task Flags_a_local_written_after_the_TryWhen() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                int total = 0;
                bool spawned = TryWhen(c, a => a.Balance = {|BOC103:total|});
                total = 5;
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_a_local_never_written_again_nor_the_state_argument() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> c)
            {
                int total = 5;
                bool spawned = runtime.TryWhen(c, a => a.Balance = total);
                runtime.TryWhen(c, static (a, n) => a.Balance = n, total);
            }
        }
        """);

    [Fact]
    public Task Flags_a_write_through_a_read_only_cown_in_TryWhen() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> c) => runtime.TryWhen(Read(c), a => {|BOC104:a.Balance|} = 1);
        }
        """);

    [Fact]
    public Task Does_not_flag_a_read_through_a_read_only_cown_in_TryWhen() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> c, Cown<Account> d) =>
                runtime.TryWhen(Read(c), d, (a, b) => b.Balance = a.Balance);
        }
        """);

    [Fact]
    public Task Flags_blocking_in_a_TryWhen_body() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => TryWhen(c, a => {|BOC201:Thread.Sleep(10)|});
        }
        """);

    [Fact]
    public Task Does_not_flag_awaiting_in_an_asynchronous_TryWhen_body() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => TryWhen(c, async a => { await Task.Delay(10); a.Balance++; });
        }
        """);

    [Fact]
    public Task Flags_an_async_void_TryWhen_body() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => TryWhen(c, {|BOC202:new Action<Account>(async a => { await Task.Yield(); a.Balance++; })|});
        }
        """);

    [Fact]
    public Task Flags_a_TryWhen_body_awaiting_a_behaviour_on_its_own_cown() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> account) => TryWhen(account, async a =>
            {
                a.Balance = {|BOC203:await WhenAsync(account, b => b.Balance + 1)|};
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_a_TryWhen_body_awaiting_a_behaviour_on_another_cown() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> account, Cown<Account> other) => TryWhen(account, async a =>
            {
                a.Balance = await WhenAsync(other, b => b.Balance + 1);
            });
        }
        """);

    [Fact]
    public Task Does_not_treat_an_unrelated_TryWhen_method_as_a_spawn() => VerifyAsync("""
        static class Other
        {
            public static bool TryWhen(Account a, Action<Account> f) { f(a); return true; }
        }

        class C
        {
            void M(Account a) => Other.TryWhen(a, x => Thread.Sleep(10));
        }
        """);
}
