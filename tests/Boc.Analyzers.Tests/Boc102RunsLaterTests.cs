using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>BOC102 for code that runs later: timers, continuations and callbacks, whichever API schedules them.</summary>
public class Boc102RunsLaterTests
{
    // Issue 37, class 3: code that runs later (timers, continuations, registered callbacks) runs after the behaviour
    // released its cowns, whichever API schedules it.
    [Fact]
    public Task Flags_state_captured_by_timers_and_continuations() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, TimeProvider clock, CancellationToken ct)
            {
                When(c, a => TimeProvider.System.CreateTimer({|BOC102:_ => a.Balance++|}, null, TimeSpan.FromSeconds(1), Timeout.InfiniteTimeSpan));
                When(c, a => clock.CreateTimer(Tick, {|BOC102:a|}, TimeSpan.Zero, TimeSpan.FromSeconds(1)));
                When(c, a =>
                {
                    Timer t = new({|BOC102:_ => a.Log.Clear()|}, null, 100, Timeout.Infinite);
                    void OnTick(object? _) => a.Balance++;
                    var u = new Timer({|BOC102:OnTick|}, null, 100, 100);
                });
                When(c, a => { _ = Task.Delay(100).ContinueWith({|BOC102:_ => a.Log.Add("late")|}, TaskScheduler.Default); });
                When(c, a => Later.After(TimeSpan.FromSeconds(1), {|BOC102:callback: () => a.Balance++|}));
                When(c, a => Later.Defer({|BOC102:a.Log.Clear|}));
                When(c, a => SynchronizationContext.Current?.Post({|BOC102:_ => a.Balance++|}, null));
                When(c, a =>
                {
                    var timer = new System.Timers.Timer(100);
                    timer.Elapsed += {|BOC102:(_, _) => a.Balance++|};
                    timer.Start();
                });
                When(c, a =>
                {
                    Func<Task> loop = async () =>
                    {
                        using var timer = new PeriodicTimer(TimeSpan.FromSeconds(1));
                        while (await timer.WaitForNextTickAsync()) a.Balance++;
                    };
                    _ = {|BOC102:loop()|};
                });
            }

            static void Tick(object? state) => ((Account)state!).Balance++;
        }

        static class Later
        {
            public static void After(TimeSpan due, Action callback) { }
            public static void Defer(Action continuation) { }
        }
        """);

    [Fact]
    public Task Does_not_flag_synchronous_invokers_and_callbacks_without_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                When(c, a =>
                {
                    var numbers = new[] { 1, 2, 3 };
                    a.Log.ForEach(x => a.Balance += x.Length);
                    a.Balance += a.Log.Where(x => x.Length > a.Balance).Count();
                    a.Log.Sort((x, y) => x.Length - y.Length);
                    Array.ForEach(numbers, n => a.Balance += n);
                    Array.Sort(numbers, (x, y) => (int)(a.Balance % 2) * (x - y));
                    Parallel.For(0, 3, i => Interlocked.Add(ref a.Counter, i));
                    Parallel.ForEach(numbers, n => Interlocked.Add(ref a.Counter, n));
                    SpinWait.SpinUntil(() => a.Balance >= 0, 0);
                    ExecutionContext.Run(ExecutionContext.Capture()!, _ => a.Balance++, null);
                    SynchronizationContext.Current?.Send(_ => a.Balance++, null);
                    Helpers.Apply(a, x => x.Balance++);
                });
                When(c, a =>
                {
                    long balance = a.Balance;
                    TimeProvider.System.CreateTimer(_ => Console.WriteLine(balance), null, TimeSpan.FromSeconds(1), Timeout.InfiniteTimeSpan);
                    _ = Task.Delay(100).ContinueWith(_ => Console.WriteLine(balance));
                    var timer = new System.Timers.Timer(100);
                    timer.Elapsed += (_, _) => Console.WriteLine(balance);
                });
                When(c, async a =>
                {
                    var numbers = new[] { 1, 2, 3 };
                    await Task.Delay(10).ContinueWith(_ => a.Balance++);
                    await Parallel.ForEachAsync(numbers, (n, _) => { Interlocked.Add(ref a.Counter, n); return ValueTask.CompletedTask; });
                });
            }
        }

        static class Helpers
        {
            public static void Apply(Account target, Action<Account> action) => action(target);
        }
        """);

    [Fact]
    public Task Judges_delegates_by_declared_parameter_type_and_follows_time_provider_subclasses() => VerifyAsync("""
        class C
        {
            static Action? s_callback;

            void M(Cown<Account> c, FakeClock clock)
            {
                When(c, a =>
                {
                    Action? local = null;
                    Interlocked.Exchange(ref local, () => a.Balance++);
                    local?.Invoke();
                });
                When(c, a => Interlocked.Exchange(ref {|BOC103:s_callback|}, {|BOC102:() => a.Balance++|}));
                When(c, a => clock.CreateTimer({|BOC102:_ => a.Balance++|}, null, TimeSpan.Zero, Timeout.InfiniteTimeSpan));
            }
        }

        sealed class FakeClock : TimeProvider
        {
            public override ITimer CreateTimer(TimerCallback callback, object? state, TimeSpan dueTime, TimeSpan period) =>
                base.CreateTimer(callback, state, dueTime, period);
        }
        """);

    [Fact]
    public Task Flags_a_query_over_the_state_returned_as_a_live_view() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> src)
            {
                IEnumerable<string> recent = await WhenAsync(src, s => {|BOC102:from x in s.Log where x.Length > 3 select x|});
                List<string> copy = await WhenAsync(src, s => (from x in s.Log where x.Length > 3 select x).ToList());
                long sum = await WhenAsync(src, s => (from x in s.Log select (long)x.Length).Sum());
            }
        }
        """);
}
