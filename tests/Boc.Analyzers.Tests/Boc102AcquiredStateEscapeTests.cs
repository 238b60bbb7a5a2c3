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
}
