using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

public class Boc203SelfWaitTests
{
    [Fact]
    public Task Flags_await_of_a_behaviour_on_the_held_cown() => VerifyAsync("""
        class C
        {
            async Task M(BocRuntime runtime, Cown<Account> account) => await runtime.WhenAsync(account, async a =>
            {
                a.Balance = {|BOC203:await runtime.WhenAsync(account, b => b.Balance + 1)|};
            });
        }
        """);

    [Fact]
    public Task Flags_the_issue_case_after_the_old_code_fix() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Options> rates) => When(src, async s =>
            {
                long t = {|BOC203:await WhenAsync(Read(rates), src, (r, s2) => s2.Balance * r.Limit / 100)|};
                s.Balance -= t;
            });
        }
        """);

    [Fact]
    public Task Flags_blocking_waits_on_the_held_cown() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                When(c, a => a.Balance = {|BOC203:{|BOC201:WhenAsync(c, x => x.Balance).AsTask().Result|}|});
                When(c, a => a.Balance = {|BOC203:{|BOC201:WhenAsync(c, x => x.Balance).GetAwaiter().GetResult()|}|});
                When(c, a => {|BOC203:{|BOC201:WhenAsync(c, x => x.Balance++).AsTask().Wait()|}|});
            }
        }
        """);

    [Fact]
    public Task Flags_a_task_held_in_a_local_and_awaited_later_with_configure_await() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(c, async a =>
            {
                var pending = WhenAsync(c, x => x.Balance);
                a.Log.Add("waiting");
                a.Balance = {|BOC203:await pending.ConfigureAwait(false)|};
            });
        }
        """);

    [Fact]
    public Task Flags_a_behaviour_awaited_through_when_all() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account> d) => When(c, async a =>
            {
                {|BOC203:await Task.WhenAll(WhenAsync(d, x => x.Balance++).AsTask(), WhenAsync(c, x => x.Balance++).AsTask())|};
            });
        }
        """);

    [Fact]
    public Task Flags_read_and_write_in_either_order() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                When(Read(c), async r => {|BOC203:await WhenAsync(c, w => w.Balance++)|});
                When(c, async w => w.Balance = {|BOC203:await WhenAsync(Read(c), r => r.Balance)|});
            }
        }
        """);

    [Fact]
    public Task Flags_a_reader_that_awaits_another_reader() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(Read(c), async r =>
            {
                long again = {|BOC203:await WhenAsync(Read(c), x => x.Balance)|};
            });
        }
        """);

    [Fact]
    public Task Flags_the_same_cown_through_a_local_alias_and_a_field() => VerifyAsync("""
        class C
        {
            private readonly Cown<Account> _main = new(new Account());

            void M(Cown<Account> c)
            {
                var same = c;
                When(c, async a => {|BOC203:await WhenAsync(same, x => x.Balance++)|});
                When(_main, async a => {|BOC203:await WhenAsync(this._main, x => x.Balance++)|});
            }
        }
        """);

    [Fact]
    public Task Flags_dynamic_sets_and_their_elements() => VerifyAsync("""
        class C
        {
            void M(Cown<Account>[] cowns, Cown<Account> c, Cown<Account> d)
            {
                When(cowns, async all => {|BOC203:await WhenAsync(cowns[0], x => x.Balance++)|});
                When(c, async a => {|BOC203:await WhenAsync(new[] { d, c }, xs => xs.Count)|});
            }
        }
        """);

    [Fact]
    public Task Flags_a_wait_through_a_behaviour_that_waits_for_the_held_cown() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account> d) => When(c, async a =>
            {
                {|BOC203:await WhenAsync(d, async x => x.Balance += await WhenAsync(Read(c), y => y.Balance))|};
            });
        }
        """);

    [Fact]
    public Task Flags_a_task_returned_by_the_body_of_an_async_overload() => VerifyAsync("""
        class C
        {
            Task<long> M(Cown<Account> c) => WhenAsync(c, a => {|BOC203:WhenAsync(c, x => x.Balance).AsTask()|}).AsTask();
        }
        """);

    [Fact]
    public Task Does_not_flag_await_of_a_behaviour_on_another_cown() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account> d) => When(c, async a =>
            {
                a.Balance += await WhenAsync(Read(d), x => x.Balance);
                await Task.WhenAll(WhenAsync(d, x => x.Balance++).AsTask());
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_spawning_on_the_held_cown_without_waiting() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(c, a =>
            {
                When(c, b => b.Balance++);
                _ = WhenAsync(c, b => b.Balance++);
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_waiting_outside_any_behaviour() => VerifyAsync("""
        class C
        {
            async Task<long> M(Cown<Account> c)
            {
                await WhenAsync(c, b => b.Balance++);
                return WhenAsync(c, b => b.Balance).AsTask().Result;
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_a_cown_reached_through_the_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(c, async a =>
            {
                if (a.Next is { } next)
                {
                    a.Balance += await WhenAsync(next, n => n.Balance);
                }
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_different_elements_or_another_set() => VerifyAsync("""
        class C
        {
            void M(Cown<Account>[] accounts, Cown<Account>[] others)
            {
                When(accounts[0], async a => a.Balance += await WhenAsync(accounts[1], b => b.Balance));
                When(accounts, async all => await WhenAsync(others[0], b => b.Balance++));
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_a_bounded_wait_or_a_zero_timeout() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(c, a =>
            {
                var pending = WhenAsync(c, b => b.Balance++).AsTask();
                bool done = {|BOC201:pending.Wait(100)|};
                bool now = pending.Wait(0);
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_waits_in_code_handed_to_another_thread_or_deferred() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, ConcurrentQueue<Func<Task>> later) => When(c, a =>
            {
                _ = Task.Run(async () => await WhenAsync(c, b => b.Balance++));
                later.Enqueue(async () => await WhenAsync(c, b => b.Balance++));
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_a_cown_local_assigned_twice_a_documented_boundary() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account> d, bool flip)
            {
                var target = c;
                if (flip)
                {
                    target = d;
                }

                When(c, async a => await WhenAsync(target, x => x.Balance++));
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_a_behaviour_that_waits_for_a_behaviour_on_other_cowns_that_waits_for_nothing_held() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account> d, Cown<Account> e) => When(c, async a =>
            {
                await WhenAsync(d, async x => x.Balance += await WhenAsync(Read(e), y => y.Balance));
            });
        }
        """);
    [Fact]
    public Task Does_not_flag_a_nested_body_that_awaits_a_cown_only_its_enclosing_behaviour_held() => VerifyAsync("""
        class C
        {
            // The inner body holds d only; the outer behaviour, which held c, does not wait for it and has ended.
            void M(Cown<Account> c, Cown<Account> d) => When(c, a =>
            {
                a.Balance++;
                When(d, async x => x.Balance += await WhenAsync(Read(c), y => y.Balance));
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_awaits_of_other_tasks_and_values_from_results() => VerifyAsync("""
        class C
        {
            static Task<long> LoadAsync() => Task.FromResult(1L);

            void M(Cown<Account> c, Task ready) => When(c, async a =>
            {
                await ready;
                await Task.Delay(1);
                a.Balance += await LoadAsync();
                long value = await WhenAsync(static (long v) => v * 2, a.Balance);
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_a_reader_that_awaits_a_reader_of_another_cown() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account> d) => When(Read(c), async r =>
            {
                long other = await WhenAsync(Read(d), x => x.Balance);
                Console.WriteLine(r.Balance + other);
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_a_result_body_that_returns_a_value_not_a_task() => VerifyAsync("""
        class C
        {
            async Task<long> M(Cown<Account> c)
            {
                long balance = await WhenAsync(c, a => a.Balance);
                return balance + await WhenAsync(c, async a => { await Task.Yield(); return a.Balance; });
            }
        }
        """);
}
