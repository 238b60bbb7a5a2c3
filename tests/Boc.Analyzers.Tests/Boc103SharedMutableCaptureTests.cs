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

    // Issue 37, class 4: a local function that two behaviours run (or that the spawning code runs after the spawn)
    // shares what it captures between them.
    [Fact]
    public Task Flags_a_local_function_run_by_two_behaviours() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account> d)
            {
                var sb = new StringBuilder();
                void Note(string x) => sb.Append(x);
                When(c, a => a.Log.ForEach({|BOC103:Note|}));
                When(d, b => b.Log.ForEach({|BOC103:Note|}));

                var counts = new Dictionary<string, int>();
                void Count(string k) => counts[k] = counts.GetValueOrDefault(k) + 1;
                When(c, a => {|BOC103:Count(a.Details.Name)|});
                When(d, b => b.Log.ForEach({|BOC103:Count|}));

                var seen = new List<string>();
                void See(string x) => seen.Add(x);
                void Twice(string x) { See(x); See(x); }
                When(c, a => {|BOC103:Twice("c")|});
                When(d, b => {|BOC103:See("d")|});

                var trace = new List<long>();
                void Trace(long x) => trace.Add(x);
                When(c, a => {|BOC103:Trace(a.Balance)|});
                Trace(0);

                var totals = new StringBuilder();
                void Body(Account a) => {|BOC103:totals|}.Append(a.Balance);
                When(c, Body);
                When(d, Body);
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_local_functions_whose_captures_are_not_shared() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account> d)
            {
                var sb = new StringBuilder();
                void Note(string x) => sb.Append(x);
                Note("before the spawn");
                When(c, a => a.Log.ForEach(Note));

                string Format(long x) { var own = new StringBuilder(); own.Append(x); return own.ToString(); }
                When(c, a => a.Details.Name = Format(a.Balance));
                When(d, b => b.Details.Name = Format(b.Balance));

                string prefix = "n";
                string Tag(string x) => prefix + x;
                When(c, a => a.Log.Add(Tag("c")));
                When(d, b => b.Log.Add(Tag("d")));

                var bag = new ConcurrentBag<string>();
                void Keep(string x) => bag.Add(x);
                When(c, a => a.Log.ForEach(Keep));
                When(d, b => b.Log.ForEach(Keep));

                var own = new StringBuilder();
                void Body(Account a) => own.Append(a.Balance);
                When(c, Body);
            }
        }
        """);

    // Issue 37, class 5: the range variables of query syntax are parameters of compiler-generated lambdas declared
    // in the body; they are not captures.
    [Fact]
    public Task Does_not_flag_range_variables_of_query_syntax() => VerifyAsync("""
        class C
        {
            void M(Cown<Account>[] cowns, Cown<Account> c, Cown<Account> d)
            {
                When(cowns.Select(Read).ToArray(), all =>
                {
                    var balances = from x in all where x.Balance > 10 select x.Balance;
                    var ordered = from x in all orderby x.Balance descending let p = x.Partner select p;
                    var pairs = from x in all from y in all where x != y select x.Balance - y.Balance;
                    var groups = from x in all group x by x.Balance > 0 into g select g.Count();
                    var joined = from x in all join y in all on x.Balance equals y.Balance select x.Log.Count + y.Log.Count;
                    Console.WriteLine(balances.Sum() + ordered.Count() + pairs.Sum() + groups.Sum() + joined.Sum());
                });
                When(c, d, (a, b) =>
                {
                    var both = new[] { a, b };
                    a.Balance = (from x in both where x.Log.Count > 0 select x.Balance).Sum();
                });
            }
        }
        """);

    [Fact]
    public Task Flags_captures_used_in_query_syntax() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, List<Account> accounts)
            {
                var outer = new List<Account>();
                When(c, a => a.Balance = (from x in {|BOC103:outer|} where x.Balance > 0 select x.Balance).Sum());
                outer.Clear();
                When(c, a => a.Balance = (from x in {|BOC103:accounts|} select x.Balance).Sum());
            }
        }
        """);

    // Issue 37, class 6: a loop that retries TryWhen until it succeeds spawns one behaviour: it repeats only when the
    // spawn was refused, so the objects the loop hands over are not shared between iterations.
    [Fact]
    public Task Does_not_flag_a_TryWhen_retry_loop() => VerifyAsync("""
        class C
        {
            async Task M(BocRuntime runtime, Cown<Account> c, CancellationToken ct)
            {
                var batch = new List<string> { "a" };
                while (!runtime.TryWhen(c, a => a.Log.AddRange(batch)))
                {
                    await runtime.WaitForRoomAsync(ct);
                }

                var more = new List<string> { "b" };
                while (!runtime.TryWhen(c, static (a, l) => a.Log.AddRange(l), more))
                    await runtime.WaitForRoomAsync();

                var last = new List<string> { "c" };
                for (; runtime.TryWhen(c, a => a.Log.AddRange(last)) == false;)
                    await runtime.WaitForRoomAsync();

                int tries = 0;
                var tail = new StringBuilder();
                while (!runtime.TryWhen(c, a => a.Balance = tries + tail.Length) && tries < 100)
                {
                    tries++;
                    await runtime.WaitForRoomAsync();
                }
            }
        }
        """);

    [Fact]
    public Task Flags_loops_that_repeat_a_successful_TryWhen() => VerifyAsync("""
        class C
        {
            async Task M(BocRuntime runtime, Cown<Account> c, Cown<Account>[] cowns)
            {
                var batch = new List<string> { "a" };
                while (runtime.TryWhen(c, a => a.Log.AddRange({|BOC103:batch|})))
                {
                    await Task.Yield();
                }

                var shared = new List<string> { "b" };
                foreach (var each in cowns)
                {
                    while (!runtime.TryWhen(each, a => a.Log.AddRange({|BOC103:shared|})))
                        await runtime.WaitForRoomAsync();
                }

                var kept = new List<string> { "c" };
                while (!runtime.TryWhen(c, a => a.Log.AddRange({|BOC103:kept|})))
                    await runtime.WaitForRoomAsync();
                kept.Clear();

                int tries = 0;
                while (!runtime.TryWhen(c, a => a.Balance = {|BOC103:tries|}) || tries < 3)
                {
                    tries++;
                }
            }
        }
        """);
}
