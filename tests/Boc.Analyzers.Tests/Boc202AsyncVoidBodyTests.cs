using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

public class Boc202AsyncVoidBodyTests
{
    private const string Handlers = """

        static class Handlers
        {
            public static async void OnAccount(Account a) { await Task.Yield(); a.Balance++; }
            public static async void OnAll(IReadOnlyList<Account> all) { await Task.Yield(); all[0].Balance++; }
            public static async Task OnAccountAsync(Account a) { await Task.Yield(); a.Balance++; }
            public static void Touch(Account a) => a.Balance++;
            public static async void Fire(long x) { await Task.Yield(); }
        }

        sealed class Handler
        {
            public async void Handle(Account a) { await Task.Yield(); a.Balance++; }
        }
        """;

    [Fact]
    public Task Flags_async_void_method_group() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(c, {|BOC202:Handlers.OnAccount|});
        }
        """ + Handlers);

    [Fact]
    public Task Flags_explicit_action_creation_and_cast() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                When(c, {|BOC202:new Action<Account>(async a => { await Task.Yield(); a.Balance++; })|});
                When(c, {|BOC202:(Action<Account>)(async a => { await Task.Yield(); a.Balance++; })|});
            }
        }
        """ + Handlers);

    [Fact]
    public Task Flags_action_local_holding_async_lambda() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                Action<Account> body = async a => { await Task.Yield(); a.Balance++; };
                When(c, {|BOC202:body|});
            }
        }
        """ + Handlers);

    [Fact]
    public Task Flags_async_void_method_group_given_to_when_async() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> c) => await WhenAsync(c, {|BOC202:Handlers.OnAccount|});
        }
        """ + Handlers);

    [Fact]
    public Task Flags_async_void_local_function_in_state_overload() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account> d)
            {
                async void Both(Account x, Account y, int n) { await Task.Yield(); x.Balance += n; y.Balance -= n; }
                When(c, d, {|BOC202:Both|}, 3);
            }
        }
        """ + Handlers);

    [Fact]
    public Task Flags_instance_and_dynamic_set_method_groups() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account>[] cowns, Handler handler)
            {
                When(c, {|BOC202:handler.Handle|});
                When(cowns, {|BOC202:Handlers.OnAll|});
            }
        }
        """ + Handlers);

    [Fact]
    public Task Does_not_flag_async_lambda_in_place() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> c)
            {
                When(c, async a => { await Task.Yield(); a.Balance++; });
                long b = await WhenAsync(c, async a => { await Task.Yield(); return a.Balance; });
            }
        }
        """ + Handlers);

    [Fact]
    public Task Does_not_flag_task_returning_method_group() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(c, Handlers.OnAccountAsync);
        }
        """ + Handlers);

    [Fact]
    public Task Does_not_flag_synchronous_method_group() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(c, Handlers.Touch);
        }
        """ + Handlers);

    [Fact]
    public Task Does_not_flag_action_local_with_sync_lambda() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                Action<Account> body = a => a.Balance++;
                When(c, body);
            }
        }
        """ + Handlers);

    [Fact]
    public Task Does_not_flag_func_task_local_with_async_lambda() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                Func<Account, Task> body = async a => { await Task.Yield(); a.Balance++; };
                When(c, body);
            }
        }
        """ + Handlers);

    [Fact]
    public Task Does_not_flag_async_void_called_not_bound() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(c, a => Handlers.Fire(a.Balance));
        }
        """ + Handlers);
    [Fact]
    public Task Flags_async_void_method_group_inside_a_conditional_or_switch() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, bool flag, int mode)
            {
                When(c, {|BOC202:flag ? Handlers.OnAccount : Handlers.Touch|});
                When(c, {|BOC202:mode switch { 0 => Handlers.Touch, _ => Handlers.OnAccount }|});
            }
        }
        """ + Handlers);

    [Fact]
    public Task Does_not_flag_synchronous_method_groups_inside_a_conditional() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, bool flag, int mode)
            {
                When(c, flag ? Handlers.Touch : a => a.Balance--);
                When(c, mode switch { 0 => Handlers.Touch, _ => a => a.Balance++ });
                When(c, flag ? Handlers.OnAccountAsync : async a => await Task.Yield());
            }
        }
        """ + Handlers);
}
