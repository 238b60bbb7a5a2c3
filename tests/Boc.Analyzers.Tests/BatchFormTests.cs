using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// A batch member (<c>b.When</c>/<c>b.WhenAsync</c> on the <c>BocBatch</c> of <c>Batch(b => …)</c>) runs its body exactly
/// like a spawn, so every rule treats it like <c>When</c>: the same findings in its body, and the same silence where a
/// <c>When</c> body is fine.
/// </summary>
public class BatchFormTests
{
    [Fact]
    public Task Flags_outer_state_used_in_a_batch_member_nested_in_a_body() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) =>
                runtime.When(src, s => runtime.Batch(b => b.When(dst, d => d.Balance += {|BOC101:s|}.Balance)));
        }
        """);

    [Fact]
    public Task Does_not_flag_state_acquired_by_the_batch_member_itself() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) => runtime.Batch(b =>
            {
                b.When(src, dst, (s, d) => { d.Balance += s.Balance; s.Balance = 0; });
                b.When(dst, d => d.Balance++);
            });
        }
        """);

    [Fact]
    public Task Flags_acquired_state_escaping_a_batch_member() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, ConcurrentBag<Account> seen) =>
                Batch(b => b.When(src, s => seen.Add({|BOC102:s|})));
        }
        """);

    [Fact]
    public Task Does_not_flag_a_copy_leaving_a_batch_member_nor_its_result() => VerifyAsync("""
        class C
        {
            async Task<long> M(BocRuntime runtime, Cown<Account> src, ConcurrentBag<long> seen)
            {
                ValueTask<long> balance = default;
                runtime.Batch(b =>
                {
                    b.When(src, s => seen.Add(s.Balance));
                    balance = b.WhenAsync(src, s => s.Balance);
                });
                return await balance;
            }
        }
        """);

    [Fact]
    public Task Flags_a_write_through_a_read_only_cown_in_a_batch_member() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> c) => runtime.Batch(b => b.When(Read(c), a => {|BOC104:a.Balance|} = 1));
        }
        """);

    [Fact]
    public Task Does_not_flag_a_read_through_a_read_only_cown_in_a_batch_member() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> c, Cown<Account> d) =>
                runtime.Batch(b => b.When(Read(c), d, (x, y) => y.Balance = x.Balance));
        }
        """);

    [Fact]
    public Task Flags_blocking_in_a_batch_member() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => Batch(b => b.When(c, a => {|BOC201:Thread.Sleep(10)|}));
        }
        """);

    [Fact]
    public Task Does_not_flag_awaiting_in_an_asynchronous_batch_member() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => Batch(b => b.When(c, async a => { await Task.Delay(10); a.Balance++; }));
        }
        """);

    [Fact]
    public Task Flags_an_async_void_batch_member() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => Batch(b => b.When(c, {|BOC202:new Action<Account>(async a => { await Task.Yield(); a.Balance++; })|}));
        }
        """);

    [Fact]
    public Task Flags_a_batch_member_awaiting_a_behaviour_on_its_own_cown() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> account) => Batch(b => b.When(account, async a =>
            {
                a.Balance = {|BOC203:await WhenAsync(account, x => x.Balance + 1)|};
            }));
        }
        """);

    [Fact]
    public Task Does_not_flag_a_batch_member_awaiting_a_behaviour_on_another_cown() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> account, Cown<Account> other) => Batch(b => b.When(account, async a =>
            {
                a.Balance = await WhenAsync(other, x => x.Balance + 1);
            }));
        }
        """);

    [Fact]
    public Task Does_not_treat_an_unrelated_batch_type_as_a_spawner() => VerifyAsync("""
        sealed class OtherBatch
        {
            public void When(Account a, Action<Account> f) => f(a);
        }

        class C
        {
            void M(OtherBatch b, Account a) => b.When(a, x => Thread.Sleep(10));
        }
        """);
}
