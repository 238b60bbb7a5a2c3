using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// The <c>WhenAsync(…, CancellationToken)</c> forms: the token follows the body (and the state), so the body is no
/// longer the last argument. Every rule must still find the body and map its parameters to the cowns.
/// </summary>
public class TokenFormTests
{
    [Fact]
    public Task Boc101_flags_outer_state_in_an_inner_token_form() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst, CancellationToken ct) =>
                When(src, s => { _ = WhenAsync(dst, d => d.Balance += {|BOC101:s|}.Balance, ct); });
        }
        """);

    [Fact]
    public Task Boc101_does_not_flag_the_token_form_own_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst, CancellationToken ct) =>
                When(src, s => { long b = s.Balance; _ = WhenAsync(dst, d => d.Balance += b, ct); });
        }
        """);

    [Fact]
    public Task Boc102_flags_state_escaping_from_a_token_form() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, ConcurrentBag<Account> seen, CancellationToken ct) =>
                _ = WhenAsync(src, s => seen.Add({|BOC102:s|}), ct);
        }
        """);

    [Fact]
    public Task Boc102_does_not_flag_a_copied_value_from_a_token_form_with_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, ConcurrentBag<long> seen, CancellationToken ct) =>
                _ = WhenAsync(src, static (s, bag) => bag.Add(s.Balance), seen, ct);
        }
        """);

    [Fact]
    public Task Boc103_flags_a_shared_local_in_a_token_form() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, CancellationToken ct)
            {
                int count = 0;
                _ = WhenAsync(c, a => {|BOC103:count|}++, ct);
            }
        }
        """);

    [Fact]
    public Task Boc103_does_not_flag_the_token_itself() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, CancellationToken ct) =>
                _ = WhenAsync(c, a => { ct.ThrowIfCancellationRequested(); a.Balance++; }, ct);
        }
        """);

    [Fact]
    public Task Boc104_flags_a_write_through_read_in_a_token_form() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account> d, CancellationToken ct) =>
                _ = WhenAsync(d, Read(c), (x, a) => {|BOC104:a.Balance|} = x.Balance, ct);
        }
        """);

    [Fact]
    public Task Boc104_does_not_flag_the_writable_cown_of_a_token_form_with_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account> d, CancellationToken ct) =>
                _ = WhenAsync(d, Read(c), static (x, a, k) => x.Balance = a.Balance + k, 1L, ct);
        }
        """);

    [Fact]
    public Task Boc201_flags_blocking_in_a_token_form() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, CancellationToken ct) =>
                _ = WhenAsync(c, a => {|BOC201:Thread.Sleep(1)|}, ct);
        }
        """);

    [Fact]
    public Task Boc201_does_not_flag_an_await_in_an_async_token_form() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, CancellationToken ct) =>
                _ = WhenAsync(c, async a => { await Task.Delay(1, ct); a.Balance++; }, ct);
        }
        """);

    [Fact]
    public Task Boc202_flags_an_async_void_method_group_in_a_token_form() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> c, CancellationToken ct) => await WhenAsync(c, {|BOC202:Handlers.OnAccount|}, ct);
        }

        static class Handlers
        {
            public static async void OnAccount(Account a) { await Task.Yield(); a.Balance++; }
            public static async Task OnAccountAsync(Account a) { await Task.Yield(); a.Balance++; }
        }
        """);

    [Fact]
    public Task Boc202_does_not_flag_a_task_returning_method_group_in_a_token_form() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> c, CancellationToken ct) => await WhenAsync(c, Handlers.OnAccountAsync, ct);
        }

        static class Handlers
        {
            public static async Task OnAccountAsync(Account a) { await Task.Yield(); a.Balance++; }
        }
        """);

    [Fact]
    public Task Boc203_flags_a_self_wait_through_a_token_form() => VerifyAsync("""
        class C
        {
            async Task M(BocRuntime runtime, Cown<Account> account, CancellationToken ct) => await runtime.WhenAsync(account, async a =>
            {
                a.Balance = {|BOC203:await runtime.WhenAsync(account, b => b.Balance + 1, ct)|};
            }, ct);
        }
        """);

    [Fact]
    public Task Boc203_does_not_flag_a_wait_on_another_cown_through_a_token_form() => VerifyAsync("""
        class C
        {
            async Task M(BocRuntime runtime, Cown<Account> account, Cown<Account> other, CancellationToken ct) => await runtime.WhenAsync(account, async a =>
            {
                a.Balance = await runtime.WhenAsync(other, b => b.Balance + 1, ct);
            }, ct);
        }
        """);
}
