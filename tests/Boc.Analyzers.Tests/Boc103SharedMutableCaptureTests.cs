using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

public class Boc103SharedMutableCaptureTests
{
    [Fact]
    public Task Flags_local_written_after_the_when_and_inside_the_body() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                int total = 0;
                int count = 0;
                When(c, a => a.Balance = {|BOC103:total|});
                When(c, a => {|BOC103:count|}++);
                total = 5;
            }
        }
        """);

    [Fact]
    public Task Flags_for_loop_variable_and_while_counter_in_async_body() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                for (int i = 0; i < 3; i++)
                {
                    When(c, a => a.Balance += {|BOC103:i|});
                }

                int n = 0;
                while (n < 3)
                {
                    When(c, async a => { await Task.Yield(); a.Balance += {|BOC103:n|}; });
                    n++;
                }
            }
        }
        """);

    [Fact]
    public Task Flags_mutable_collections_shared_with_spawning_code() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account>[] cowns)
            {
                var items = new List<int>();
                When(c, a => {|BOC103:items|}.Add(1));
                Console.WriteLine(items.Count);

                var map = new Dictionary<string, List<int>>();
                When(c, a => {|BOC103:map|}["k"].Add(1));
                map.Clear();

                var buffer = new int[4];
                foreach (var each in cowns)
                {
                    When(each, a => {|BOC103:buffer|}[0]++);
                }
            }
        }
        """);

    [Fact]
    public Task Flags_mutable_parameter_and_poco_with_settable_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, StringBuilder sb)
            {
                When(c, a => {|BOC103:sb|}.Append(a.Balance));
                var options = new Options { Limit = 3 };
                When(c, a => a.Balance = {|BOC103:options|}.Limit);
                options.Limit = 4;
            }
        }
        """);

    [Fact]
    public Task Flags_implicit_this_with_mutable_field_and_mutable_static() => VerifyAsync("""
        class Counter
        {
            static int s_total;
            int _hits;

            void M(Cown<Account> c)
            {
                When(c, a => { {|BOC103:_hits|}++; });
                When(c, a => {|BOC103:s_total|} += 1);
            }
        }
        """);

    [Fact]
    public Task Flags_mutable_state_argument_the_spawner_keeps_using() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> c)
            {
                var log = new List<string>();
                runtime.When(c, static (a, l) => l.Add(a.Balance.ToString()), {|BOC103:log|});
                log.Clear();
            }
        }
        """);

    [Fact]
    public Task Flags_capture_shared_with_another_lambda() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account> d)
            {
                var seen = new HashSet<long>();
                Action report = () => Console.WriteLine(seen.Count);
                When(c, a => {|BOC103:seen|}.Add(a.Balance));
                report();
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_immutable_captures_never_reassigned() => VerifyAsync("""
        enum Kind { Credit, Debit }

        class C
        {
            void M(Cown<Account> c, long amount, Kind kind)
            {
                string note = "x";
                var ids = ImmutableArray.Create(1, 2);
                var snapshot = new Snapshot(1, "owner");
                When(c, a =>
                {
                    a.Balance += kind == Kind.Credit ? amount : -amount;
                    a.Details.Name = note + snapshot.Owner;
                    a.Counter = ids.Sum();
                });
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_per_iteration_copies_and_foreach_variables() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                for (int i = 0; i < 3; i++)
                {
                    int copy = i;
                    When(c, a => a.Balance += copy);
                }

                foreach (var k in new[] { 1, 2, 3 })
                {
                    When(c, a => a.Balance += k);
                }
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_writes_before_the_when_and_objects_created_inside() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                int total = 1;
                total += 2;
                When(c, a =>
                {
                    var sb = new StringBuilder();
                    sb.Append(a.Balance + total);
                    a.Details.Name = sb.ToString();
                });
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_mutable_object_handed_over() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> c)
            {
                var log = new List<string> { "opened" };
                log.Add("ready");
                runtime.When(c, a => a.Log.AddRange(log));
                var batch = new List<string> { "x" };
                runtime.When(c, static (a, b) => a.Log.AddRange(b), batch);
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_self_synchronizing_and_cown_array_captures() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c1, Cown<Account> c2)
            {
                var done = new CountdownEvent(1);
                var bag = new ConcurrentQueue<long>();
                var cowns = new[] { c1, c2 };
                When(c1, a => { bag.Enqueue(a.Balance); done.Signal(); When(cowns[1], b => b.Balance++); });
                done.Wait();
                Console.WriteLine(bag.Count + cowns.Length);
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_this_with_readonly_immutable_state_or_static_lambdas() => VerifyAsync("""
        sealed class Teller(long fee, Cown<Account> account)
        {
            static readonly string Prefix = "fee:";
            readonly long _fee = fee;
            readonly Cown<Account> _account = account;

            public void Charge() => When(_account, a => { a.Balance -= _fee; a.Details.Name = Prefix; });

            public void ChargeStatic(BocRuntime runtime) => runtime.When(_account, static (a, f) => a.Balance -= f, _fee);
        }
        """);

    [Fact]
    public Task Does_not_flag_state_argument_whose_later_uses_are_unreachable() => VerifyAsync("""
        class C
        {
            Cown<Account> Sort(BocRuntime runtime, List<long> data)
            {
                var leaf = new Cown<Account>(new Account());
                if (data.Count < 10)
                {
                    runtime.When(leaf, static (a, v) => a.Balance = v.Sum(), data);
                    return leaf;
                }
                else
                {
                    var copy = new List<long>(data);
                    runtime.When(leaf, a => a.Balance = copy.Count);
                }

                data.Clear();
                return leaf;
            }
        }
        """);
    [Fact]
    public Task Flags_a_local_function_called_in_place_that_mutates_a_captured_list() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                var items = new List<long>();
                int hits = 0;
                void Record(long x) => items.Add(x);
                void Hit() => hits++;
                void Both(long x) { Record(x); }
                When(c, a => {|BOC103:Record(a.Balance)|});
                When(c, a => { {|BOC103:Hit()|}; a.Balance++; });
                When(c, a => a.Log.ForEach(_ => {|BOC103:Both(1)|}));
                Console.WriteLine(items.Count + hits);
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_local_functions_that_touch_only_immutable_or_their_own_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                const int Limit = 3;
                string prefix = "fee:";
                int Scale(int v) => v * Limit;
                string Label(Account a)
                {
                    var sb = new StringBuilder(prefix);
                    sb.Append(a.Balance);
                    return sb.ToString();
                }

                static long Twice(long v) => v * 2;
                When(c, a =>
                {
                    a.Details.Name = Label(a) + Scale(2);
                    a.Balance = Twice(a.Balance);
                });
            }
        }
        """);
    [Fact]
    public Task Does_not_flag_a_local_function_the_body_does_not_run() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                var items = new List<long>();
                void Record(long x) => items.Add(x);
                When(c, a => a.Balance++);
                Record(1);
                Console.WriteLine(items.Count);
            }
        }
        """);
}
