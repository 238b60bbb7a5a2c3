using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

public class Boc201BlockingTests
{
    private const string Helpers = """

        static class H
        {
            public static readonly object Gate = new();
            public static readonly SemaphoreSlim Sem = new(1);
            public static readonly ManualResetEvent Handle = new(false);
            public static Task<long> LoadAsync() => Task.FromResult(1L);
        }

        sealed class Op
        {
            public long Result => 1;
            public void Wait() { }
        }
        """;

    [Fact]
    public Task Flags_result_and_getresult() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                When(c, a => a.Balance = {|BOC201:H.LoadAsync().Result|});
                When(c, a => a.Balance = {|BOC201:H.LoadAsync().GetAwaiter().GetResult()|});
            }
        }
        """ + Helpers);

    [Fact]
    public Task Flags_wait_and_sleep_in_nested_synchronous_lambda() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                When(c, a => {|BOC201:Task.Delay(1).Wait()|});
                When(c, a => a.Log.ForEach(_ => {|BOC201:Thread.Sleep(1)|}));
            }
        }
        """ + Helpers);

    [Fact]
    public Task Flags_lock_and_monitor() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                When(c, a => { {|BOC201:lock|} (H.Gate) { a.Balance++; } });
                When(c, a => { {|BOC201:Monitor.Enter(H.Gate)|}; Monitor.Exit(H.Gate); });
            }
        }
        """ + Helpers);

    [Fact]
    public Task Flags_semaphore_wait_in_local_function_body() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                void Body(Account a)
                {
                    {|BOC201:H.Sem.Wait()|};
                    H.Sem.Release();
                }

                When(c, Body);
            }
        }
        """ + Helpers);

    [Fact]
    public Task Flags_wait_handle_in_async_body() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(c, async a =>
            {
                await Task.Yield();
                {|BOC201:H.Handle.WaitOne()|};
            });
        }
        """ + Helpers);

    [Fact]
    public Task Flags_blocking_on_another_behaviours_result() => VerifyAsync("""
        class C
        {
            async Task<long> M(Cown<Account> c, Cown<Account> d) =>
                await WhenAsync(c, a => a.Balance + {|BOC201:WhenAsync(d, x => x.Balance).Result|});
        }
        """ + Helpers);

    [Fact]
    public Task Flags_a_barrier_in_an_awaited_body_that_may_run_inline_on_its_caller() => VerifyAsync("""
        class C
        {
            // Spawned from outside with WhenAsync, the first body may run inline on this thread: it would wait at the
            // barrier for a partner this thread spawns only after the first call returns.
            async Task M(Cown<Account> c, Cown<Account> d, Barrier meet)
            {
                ValueTask first = WhenAsync(c, a => {|BOC201:meet.SignalAndWait()|});
                ValueTask<bool> second = WhenAsync(d, a => {|BOC201:meet.SignalAndWait(TimeSpan.FromSeconds(1))|});
                await first;
                await second;
            }
        }
        """ + Helpers);

    [Fact]
    public Task Does_not_flag_await() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(c, async a =>
            {
                a.Balance = await H.LoadAsync();
                await Task.WhenAll(H.LoadAsync(), H.LoadAsync());
            });
        }
        """ + Helpers);

    [Fact]
    public Task Does_not_flag_async_waits() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(c, async a =>
            {
                await H.Sem.WaitAsync();
                H.Sem.Release();
            });
        }
        """ + Helpers);

    [Fact]
    public Task Does_not_flag_blocking_handed_to_another_thread() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(c, a =>
            {
                _ = Task.Run(() => Thread.Sleep(10));
                new Thread(() => H.Handle.WaitOne()).Start();
            });
        }
        """ + Helpers);

    [Fact]
    public Task Does_not_flag_blocking_outside_behaviours() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                long r = H.LoadAsync().Result;
                When(c, a => a.Balance = r);
                lock (H.Gate) { }
            }
        }
        """ + Helpers);

    [Fact]
    public Task Does_not_flag_user_types_named_like_blocking_apis() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                var op = new Op();
                When(c, a => { op.Wait(); a.Balance = op.Result; });
            }
        }
        """ + Helpers);

    [Fact]
    public Task Does_not_flag_cpu_work_and_interlocked() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(c, a =>
            {
                Thread.SpinWait(10);
                Interlocked.Increment(ref a.Counter);
                a.Balance = Enumerable.Range(0, 100).Sum();
            });
        }
        """ + Helpers);
    [Fact]
    public Task Does_not_flag_zero_timeout_waits() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Task pending, BlockingCollection<int> queue, ReaderWriterLockSlim rw, Lock gate,
                ManualResetEventSlim ready, CountdownEvent count, Barrier barrier) => When(c, a =>
            {
                if (H.Sem.Wait(0)) { H.Sem.Release(); }
                if (H.Sem.Wait(TimeSpan.Zero)) { H.Sem.Release(); }
                if (Monitor.TryEnter(H.Gate)) { Monitor.Exit(H.Gate); }
                if (Monitor.TryEnter(H.Gate, 0)) { Monitor.Exit(H.Gate); }
                if (gate.TryEnter()) { gate.Exit(); }
                if (rw.TryEnterReadLock(0)) { rw.ExitReadLock(); }
                a.Balance += H.Handle.WaitOne(0) ? 1 : 0;
                a.Balance += ready.Wait(0) && count.Wait(TimeSpan.FromMilliseconds(0)) && pending.Wait(0) ? 1 : 0;
                a.Balance += queue.TryTake(out int item) ? item : 0;
                a.Balance += queue.TryTake(out int next, 0) ? next : 0;
                a.Balance += Task.WaitAll(new[] { pending }, 0) && SpinWait.SpinUntil(() => true, 0) && barrier.SignalAndWait(0) ? 1 : 0;
            });
        }
        """ + Helpers);

    [Fact]
    public Task Flags_waits_with_a_timeout_that_is_not_zero() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, BlockingCollection<int> queue, ReaderWriterLockSlim rw, Lock gate, TimeSpan wait, int ms) => When(c, a =>
            {
                if ({|BOC201:H.Sem.Wait(10)|}) { H.Sem.Release(); }
                if ({|BOC201:H.Sem.Wait(Timeout.Infinite)|}) { H.Sem.Release(); }
                if ({|BOC201:H.Sem.Wait(wait)|}) { H.Sem.Release(); }
                if ({|BOC201:Monitor.TryEnter(H.Gate, ms)|}) { Monitor.Exit(H.Gate); }
                if ({|BOC201:gate.TryEnter(TimeSpan.FromSeconds(1))|}) { gate.Exit(); }
                if ({|BOC201:rw.TryEnterWriteLock(50)|}) { rw.ExitWriteLock(); }
                a.Balance += {|BOC201:queue.TryTake(out int item, 100)|} ? item : 0;
                a.Balance += {|BOC201:H.Handle.WaitOne(TimeSpan.FromMilliseconds(1))|} ? 1 : 0;
            });
        }
        """ + Helpers);

    [Fact]
    public Task Flags_a_local_function_called_in_place_that_sleeps() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                void Pause() => Thread.Sleep(10);
                void Step(Account a) { Pause(); a.Balance++; }
                When(c, a => { {|BOC201:Pause()|}; a.Balance++; });
                When(c, a => { {|BOC201:Step(a)|}; });
                When(c, a => a.Log.ForEach(_ => {|BOC201:Pause()|}));
            }
        }
        """ + Helpers);

    [Fact]
    public Task Does_not_flag_a_local_function_that_is_not_run_in_place() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                void Pause() => Thread.Sleep(10);
                async Task PauseAsync() => await Task.Delay(10);
                void Count(Account a) => a.Balance++;
                When(c, a => { _ = Task.Run(Pause); Count(a); });
                When(c, async a => { await PauseAsync(); Count(a); });
                Pause();
            }
        }
        """ + Helpers);
    [Fact]
    public Task Does_not_flag_zero_timeouts_written_as_constants_or_time_spans() => VerifyAsync("""
        class C
        {
            const int NoWait = 0;

            void M(Cown<Account> c) => When(c, a =>
            {
                if (H.Sem.Wait(NoWait)) { H.Sem.Release(); }
                if (H.Sem.Wait(TimeSpan.FromSeconds(0))) { H.Sem.Release(); }
                if (H.Sem.Wait(new TimeSpan(0))) { H.Sem.Release(); }
                if (H.Sem.Wait(default(TimeSpan))) { H.Sem.Release(); }
                Thread.Sleep(0);
            });
        }
        """ + Helpers);
}
