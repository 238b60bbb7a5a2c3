using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

public class Boc102AcquiredStateEscapeTests
{
    [Fact]
    public Task Flags_assignment_to_captured_outer_variable() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src)
            {
                Account? leaked = null;
                When(src, s => {|BOC103:leaked|} = {|BOC102:s|});
            }
        }
        """);

    [Fact]
    public Task Flags_alias_added_to_outer_concurrent_collection() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, ConcurrentBag<Account> seen) => When(src, s =>
            {
                var a = s;
                var b = a;
                seen.Add({|BOC102:b|});
            });
        }
        """);

    [Fact]
    public Task Flags_mutable_part_stored_in_static_dictionary() => VerifyAsync("""
        class C
        {
            static readonly ConcurrentDictionary<int, List<string>> Logs = new();

            void M(Cown<Account> src) => When(src, s => Logs[1] = {|BOC102:s.Log|});
        }
        """);

    [Fact]
    public Task Flags_state_handed_to_task_run_and_thread() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src) => When(src, s =>
            {
                _ = Task.Run({|BOC102:() => s.Balance++|});
                new Thread({|BOC102:() => Console.WriteLine(s.Balance)|}).Start();
            });
        }
        """);

    [Fact]
    public Task Flags_mutable_results_sync_and_async() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> src)
            {
                List<string> log = await WhenAsync(src, s => {|BOC102:s.Log|});
                Account acc = await WhenAsync(src, async s => { await Task.Yield(); return {|BOC102:s|}; });
            }
        }
        """);

    [Fact]
    public Task Flags_deconstructed_part_returned_as_result() => VerifyAsync("""
        class C
        {
            Task<List<string>> M(Cown<Account> src) => WhenAsync(src, s =>
            {
                var (_, log) = s;
                return {|BOC102:log|};
            }).AsTask();
        }
        """);

    [Fact]
    public Task Flags_state_linked_into_another_cowns_state_and_into_state_argument() => VerifyAsync("""
        sealed class Box { public Account? Value { get; set; } }

        class C
        {
            void M(BocRuntime runtime, Cown<Account> a, Cown<Account> b)
            {
                runtime.When(a, b, (x, y) => y.Partner = {|BOC102:x|});
                runtime.When(a, (x, box) => box.Value = {|BOC102:x|}, new Box());
            }
        }
        """);

    [Fact]
    public Task Flags_task_completion_source_result_and_event_subscription() => VerifyAsync("""
        class C
        {
            static event Action? Changed;

            void M(Cown<Account> src, TaskCompletionSource<Account> done) => When(src, s =>
            {
                done.SetResult({|BOC102:s|});
                Changed += {|BOC102:() => s.Balance++|};
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_primitive_string_and_snapshot_results() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> src)
            {
                long balance = await WhenAsync(Read(src), s => s.Balance);
                string name = await WhenAsync(Read(src), s => s.Details.Name);
                Snapshot snapshot = await WhenAsync(src, s => new Snapshot(s.Balance, s.Details.Name));
                (long, int) pair = await WhenAsync(src, s => (s.Balance, s.Log.Count));
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_copies_returned_or_stored() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> src, ConcurrentBag<string> names)
            {
                List<string> copy = await WhenAsync(src, s => s.Log.ToList());
                string[] array = await WhenAsync(src, s => s.Log.ToArray());
                When(src, s => names.Add(s.Details.Name));
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_links_inside_the_same_state_or_local_objects() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src) => When(src, s =>
            {
                s.Partner = s;
                var scratch = new List<Account> { s };
                scratch.Add(s);
                scratch.Clear();
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_task_run_with_copied_values() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src) => When(src, s =>
            {
                long balance = s.Balance;
                _ = Task.Run(() => Console.WriteLine(balance));
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_async_body_that_keeps_state_inside() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src) => When(src, async s =>
            {
                await Task.Delay(1);
                var alias = s;
                alias.Balance++;
                s.Log.Add("done");
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_state_argument_written_with_values() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> src) =>
                runtime.When(src, static (s, sb) => sb.Append(s.Balance), new StringBuilder());
        }
        """);

    [Fact]
    public Task Does_not_flag_immutable_elements_copied_into_another_cowns_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> left, Cown<Account> right) =>
                When(left, Read(right), (l, r) => { l.Log.AddRange(r.Log); l.Tags.UnionWith(r.Tags); });
        }
        """);

    [Fact]
    public Task Does_not_flag_value_type_snapshot_copied_out() => VerifyAsync("""
        struct Totals
        {
            public double Delta;
            public int Count;
        }

        class Holder
        {
            public Totals Totals;
        }

        class Run
        {
            public Totals[] Seen = new Totals[4];
        }

        class C
        {
            // A struct of values is copied on assignment: the copy cannot change what the cown holds, nor the reverse.
            void M(BocRuntime runtime, Cown<Holder> h, Run run) =>
                runtime.When(h, static (x, r) => r.Seen[0] = x.Totals, run);
        }
        """);

    [Fact]
    public Task Flags_value_type_that_carries_a_mutable_reference() => VerifyAsync("""
        struct Wrapper
        {
            public List<string> Items;
        }

        class Holder
        {
            public Wrapper Wrapper;
        }

        class C
        {
            static Wrapper Leaked;

            // Copying the struct copies the reference: the list is now shared outside the cown.
            void M(Cown<Holder> h) => When(h, x => {|BOC103:Leaked|} = {|BOC102:x.Wrapper|});
        }
        """);
    private const string Helpers = """

        static class H
        {
            public static Task SaveAsync(Account a) => Task.CompletedTask;
            public static Task LogAsync(long balance) => Task.CompletedTask;
            public static async void Fire(Account a) => await Task.Yield();
            public static async void FireValue(long balance) => await Task.Yield();
        }

        sealed class Gauge
        {
            public long Value;
            public Ticker Own { get; } = new();
            public void OnTick(object? sender, EventArgs e) => Value++;
        }

        sealed class Ticker
        {
            public event EventHandler? Tick;
            public void Raise() => Tick?.Invoke(this, EventArgs.Empty);
        }
        """;

    [Fact]
    public Task Flags_deferred_linq_queries_returned_as_results() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> src)
            {
                IEnumerable<string> longOnes = await WhenAsync(src, s => {|BOC102:s.Log.Where(x => x.Length > 3)|});
                IEnumerable<int> lengths = await WhenAsync(Read(src), s => {|BOC102:s.Log.Select(x => x.Length).OrderBy(n => n)|});
                IEnumerable<string> tags = await WhenAsync(src, s =>
                {
                    var query = s.Tags.Where(t => t.Length > 0);
                    return {|BOC102:query|};
                });
            }
        }
        """);

    [Fact]
    public Task Flags_live_read_only_views_returned_as_results() => VerifyAsync("""
        using System.Collections.ObjectModel;

        class C
        {
            async Task M(Cown<Account> src)
            {
                ReadOnlyCollection<string> view = await WhenAsync(src, s => {|BOC102:s.Log.AsReadOnly()|});
                IReadOnlyList<string> wrapped = await WhenAsync(src, s => {|BOC102:new ReadOnlyCollection<string>(s.Log)|});
                IEnumerable<string> same = await WhenAsync(src, s => {|BOC102:s.Log.AsEnumerable()|});
            }
        }
        """);

    [Fact]
    public Task Flags_tasks_that_use_state_and_are_not_awaited() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src)
            {
                When(src, s => { _ = {|BOC102:H.SaveAsync(s)|}; });
                When(src, async s =>
                {
                    {|BOC102:H.SaveAsync(s.Partner!)|};
                    var pending = {|BOC102:H.SaveAsync(s)|};
                    var worker = Task.Run({|BOC102:() => s.Balance++|});
                    await Task.Yield();
                });
            }
        }
        """ + Helpers);

    [Fact]
    public Task Flags_state_passed_to_an_async_void_method() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src)
            {
                When(src, s => {|BOC102:H.Fire(s)|});
                async void Later(List<string> log) { await Task.Yield(); log.Add("x"); }
                When(src, s => {|BOC102:Later(s.Log)|});
            }
        }
        """ + Helpers);

    [Fact]
    public Task Flags_method_group_of_the_state_subscribed_to_an_outer_event() => VerifyAsync("""
        class C
        {
            static event EventHandler? Clock;

            void M(Cown<Gauge> gauge, Ticker ticker)
            {
                When(gauge, g => ticker.Tick += {|BOC102:g.OnTick|});
                When(gauge, g => Clock += {|BOC102:g.OnTick|});
                When(gauge, g => ticker.Tick += {|BOC102:new EventHandler(g.OnTick)|});
            }
        }
        """ + Helpers);

    [Fact]
    public Task Flags_store_through_a_ref_argument() => VerifyAsync("""
        class C
        {
            static Account? s_last;
            Account? _latest;

            void M(Cown<Account> src)
            {
                When(src, s => Interlocked.Exchange(ref {|BOC103:s_last|}, {|BOC102:s|}));
                When(src, s => Volatile.Write(ref {|BOC103:_latest|}, {|BOC102:s|}));
                List<string>? log = null;
                When(src, s => Interlocked.CompareExchange(ref {|BOC103:log|}, {|BOC102:s.Log|}, null));
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_awaited_task_run_over_the_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src) => When(src, async s =>
            {
                await Task.Run(() => s.Balance++);
                await Task.Run(() => s.Log.Sort()).ConfigureAwait(false);
                var sorting = Task.Run(() => s.Log.Reverse());
                await sorting;
                await Task.WhenAll(Task.Run(() => s.Tags.Clear()), Task.Run(() => s.Counter++));
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_awaited_or_returned_tasks_that_use_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src)
            {
                When(src, async s => await H.SaveAsync(s));
                When(src, s => H.SaveAsync(s));
                When(src, async s =>
                {
                    var pending = H.SaveAsync(s);
                    s.Balance++;
                    await pending;
                });
            }
        }
        """ + Helpers);

    [Fact]
    public Task Does_not_flag_discarded_tasks_and_async_void_calls_with_values() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src) => When(src, s =>
            {
                _ = H.LogAsync(s.Balance);
                _ = Task.Delay(1);
                H.FireValue(s.Log.Count);
                _ = H.SaveAsync(new Account { Balance = s.Balance });
            });
        }
        """ + Helpers);

    [Fact]
    public Task Does_not_flag_linq_results_that_copy_or_aggregate() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> src)
            {
                List<string> copy = await WhenAsync(src, s => s.Log.Where(x => x.Length > 3).ToList());
                string[] array = await WhenAsync(src, s => s.Log.OrderBy(x => x).ToArray());
                int count = await WhenAsync(src, s => s.Log.Count(x => x.Length > 3));
                string joined = await WhenAsync(src, s => string.Join(",", s.Log.Where(x => x.Length > 3)));
                long sum = await WhenAsync(src, s => s.Log.Select(x => (long)x.Length).Sum());
                IEnumerable<int> fresh = await WhenAsync(src, s => Enumerable.Range(0, s.Log.Count));
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_method_group_subscribed_to_events_inside_the_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Gauge> gauge) => When(gauge, g =>
            {
                g.Own.Tick += g.OnTick;
                var local = new Ticker();
                local.Tick += g.OnTick;
                local.Raise();
                local.Tick -= g.OnTick;
            });
        }
        """ + Helpers);

    [Fact]
    public Task Does_not_flag_ref_arguments_that_keep_the_state_inside() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src) => When(src, s =>
            {
                Account? local = null;
                Interlocked.Exchange(ref local, s);
                Interlocked.Add(ref s.Counter, 1);
                if (long.TryParse(s.Details.Name, out long parsed))
                {
                    s.Balance = parsed;
                }
            });
        }
        """);
    [Fact]
    public Task Does_not_flag_queries_over_immutable_or_copied_state() => VerifyAsync("""
        sealed class Catalog
        {
            public ImmutableArray<string> Names { get; set; } = ImmutableArray<string>.Empty;
            public List<string> Draft { get; } = new();
        }

        class C
        {
            async Task M(Cown<Catalog> catalog)
            {
                IEnumerable<string> names = await WhenAsync(catalog, c => c.Names.Where(n => n.Length > 2));
                IEnumerable<string> drafts = await WhenAsync(catalog, c => c.Draft.ToList().Where(n => n.Length > 2));
                IReadOnlyList<string> copy = await WhenAsync(catalog, c => c.Draft.ToArray().AsReadOnly());
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_handlers_that_are_not_the_states() => VerifyAsync("""
        sealed class Listener
        {
            public void OnTick(object? sender, EventArgs e) { }
        }

        class C
        {
            static void Log(object? sender, EventArgs e) { }

            void M(Cown<Gauge> gauge, Ticker ticker, Listener listener) => When(gauge, g =>
            {
                ticker.Tick += Log;
                ticker.Tick += listener.OnTick;
                g.Value++;
            });
        }
        """ + Helpers);

    [Fact]
    public Task Does_not_flag_tasks_of_the_state_awaited_together() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src) => When(src, async s =>
            {
                await Task.WhenAll(H.SaveAsync(s), H.SaveAsync(s.Partner!));
                var first = H.SaveAsync(s);
                var second = H.SaveAsync(s);
                await Task.WhenAll(first, second).ConfigureAwait(false);
            });
        }
        """ + Helpers);

    // Issue 37, class 2: an async local function that uses the acquired state runs past its first await after the
    // body that started it has ended, unless the body waits for it.
    [Fact]
    public Task Flags_async_local_functions_started_and_not_awaited() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                When(c, a =>
                {
                    async Task AuditLater() { await Task.Delay(10); a.Log.Add("audit"); }
                    _ = {|BOC102:AuditLater()|};
                });
                When(c, a =>
                {
                    var log = a.Log;
                    {|BOC102:Trim()|};
                    async Task Trim() { await Task.Yield(); log.Clear(); }
                });
                When(c, a =>
                {
                    var pending = {|BOC102:Tick()|};
                    async ValueTask Tick() { await Task.Yield(); a.Balance++; }
                });
                When(c, a =>
                {
                    async void Later() { await Task.Yield(); a.Balance = 0; }
                    {|BOC102:Later()|};
                });
                When(c, async a =>
                {
                    _ = {|BOC102:Loop()|}.ConfigureAwait(false);
                    await Task.Yield();
                    async Task Loop()
                    {
                        using var timer = new PeriodicTimer(TimeSpan.FromSeconds(1));
                        while (await timer.WaitForNextTickAsync()) a.Balance++;
                    }
                });
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_async_local_functions_awaited_returned_or_without_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                When(c, async a =>
                {
                    async Task AuditLater() { await Task.Delay(10); a.Log.Add("audit"); }
                    await AuditLater();
                    var pending = AuditLater();
                    a.Balance++;
                    await pending;
                    await Task.WhenAll(AuditLater(), AuditLater());
                });
                When(c, a =>
                {
                    async Task AuditLater() { await Task.Delay(10); a.Log.Add("audit"); }
                    return AuditLater();
                });
                When(c, a =>
                {
                    Task Touch() { a.Balance++; return Task.CompletedTask; }
                    _ = Touch();
                    long balance = a.Balance;
                    async Task Report() { await Task.Yield(); Console.WriteLine(balance); }
                    _ = Report();
                });
            }
        }
        """);
}
