using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

public class Boc104ReadOnlyWriteTests
{
    [Fact]
    public Task Flags_assignment_through_read() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(Read(c), a => {|BOC104:a.Balance|} = 1);
        }
        """);

    [Fact]
    public Task Flags_compound_assignment_through_alias_chain() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(Cown.Read(c), a =>
            {
                var x = a;
                Account y = x;
                {|BOC104:y.Balance|} += 1;
            });
        }
        """);

    [Fact]
    public Task Flags_mutating_calls_on_members_and_deconstructed_parts() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(Read(c), a =>
            {
                {|BOC104:a.Log.Add("x")|};
                var (_, log) = a;
                {|BOC104:log.Clear()|};
            });
        }
        """);

    [Fact]
    public Task Flags_write_to_element_of_read_only_dynamic_set() => VerifyAsync("""
        class C
        {
            void M(Cown<Account>[] cowns) => When(cowns.Select(Read).ToArray(), all => {|BOC104:all[0].Balance|}++);
        }
        """);

    [Fact]
    public Task Flags_read_only_in_second_position_and_static_typed_variable() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c1, Cown<Account> c2)
            {
                When(c1, Read(c2), (w, r) => { w.Balance += r.Balance; {|BOC104:r.Balance|} = 0; });
                ReadOnlyCown<Account> ro = Cown.Read(c1);
                When(ro, a => {|BOC104:a.Details.Name|} = "x");
            }
        }
        """);

    [Fact]
    public Task Flags_ref_pass_and_async_result_body() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> c)
            {
                When(Read(c), a => Interlocked.Increment({|BOC104:ref a.Counter|}));
                long b = await WhenAsync(Read(c), async a => { await Task.Yield(); {|BOC104:a.Balance|} = 2; return a.Balance; });
            }
        }
        """);

    [Fact]
    public Task Flags_state_overload_with_static_lambda_and_array_of_reads() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> c1, Cown<Account> c2) =>
                runtime.When(new[] { Read(c1), Read(c2) }, static (all, tag) => {|BOC104:all[1].Tags.Add(tag)|}, "t");
        }
        """);

    [Fact]
    public Task Does_not_flag_reads() => VerifyAsync("""
        class C
        {
            async Task M(Cown<Account> c)
            {
                long sum = await WhenAsync(Read(c), a => a.Balance + a.Log.Count + (a.Log.Contains("x") ? 1 : 0));
                bool same = await WhenAsync(Read(c), a => a.Tags.SetEquals(new[] { "a" }));
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_write_to_the_write_acquired_cown() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c1, Cown<Account> c2)
            {
                When(Read(c1), c2, (r, w) => w.Balance = r.Balance);
                When(c1, Read(c1), (w, r) => w.Balance = r.Balance + 1);
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_writes_to_copies_and_new_objects() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(Read(c), a =>
            {
                long b = a.Balance;
                b++;
                var copy = a.Log.ToList();
                copy.Add("y");
                var fresh = new Account();
                fresh.Balance = a.Balance;
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_state_argument_mutated_in_read_only_body() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> c) =>
                runtime.When(Read(c), static (a, sb) => sb.Append(a.Balance), new StringBuilder());
        }
        """);

    [Fact]
    public Task Does_not_flag_write_in_separate_behaviour_spawned_from_reader() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c) => When(Read(c), a =>
            {
                long seen = a.Balance;
                When(c, w => w.Balance = seen + 1);
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_mixed_dynamic_set() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c1, Cown<Account> c2)
            {
                IReadOnlyList<IAcquirable<Account>> set = new IAcquirable<Account>[] { c1, Read(c2) };
                When(set, all => all[0].Balance++);
            }
        }
        """);
    private const string Ledger = """

        sealed class Ledger
        {
            public long[] History = new long[4];
            public long Total;
            public List<Account> Accounts { get; } = new();
            public Account? Owner { get; set; }
        }
        """;

    [Fact]
    public Task Flags_writes_through_ref_locals() => VerifyAsync("""
        class C
        {
            void M(Cown<Ledger> c) => When(Read(c), l =>
            {
                ref long total = ref l.Total;
                {|BOC104:total|} = 5;
                ref long first = ref l.History[0];
                {|BOC104:first|}++;
                ref long alias = ref total;
                {|BOC104:alias|} += 1;
            });
        }
        """ + Ledger);

    [Fact]
    public Task Flags_writes_through_pattern_variables() => VerifyAsync("""
        class C
        {
            void M(Cown<Ledger> c) => When(Read(c), l =>
            {
                if (l.Owner is { } owner) {|BOC104:owner.Balance|} = 1;
                if (l is { Owner: var o }) {|BOC104:o!.Log.Add("x")|};
                if (l.Accounts is [var head, ..]) {|BOC104:head.Counter|}++;
                switch (l.Owner)
                {
                    case Account { Balance: > 0 } rich:
                        {|BOC104:rich.Balance|} = 0;
                        break;
                }
            });
        }
        """ + Ledger);

    [Fact]
    public Task Flags_static_and_argument_mutators() => VerifyAsync("""
        class C
        {
            void M(Cown<Ledger> c) => When(Read(c), l =>
            {
                {|BOC104:Array.Sort(l.History)|};
                {|BOC104:Array.Fill(l.History, 0)|};
                {|BOC104:Array.Copy(new long[] { 1, 2 }, l.History, 2)|};
                {|BOC104:l.History.AsSpan().Reverse()|};
                {|BOC104:Random.Shared.Shuffle(l.History)|};
            });
        }
        """ + Ledger);

    [Fact]
    public Task Flags_lambda_parameters_over_the_elements() => VerifyAsync("""
        class C
        {
            void M(Cown<Ledger> c) => When(Read(c), l =>
            {
                l.Accounts.ForEach(a => {|BOC104:a.Balance|} = 0);
                l.Accounts.Where(a => a.Balance > 0).ToList().ForEach(a => {|BOC104:a.Log.Clear()|});
                Parallel.ForEach(l.Accounts, a => {|BOC104:a.Counter|}++);
            });
        }
        """ + Ledger);

    [Fact]
    public Task Does_not_flag_ref_readonly_locals_and_refs_into_copies() => VerifyAsync("""
        class C
        {
            void M(Cown<Ledger> c) => When(Read(c), l =>
            {
                ref readonly long total = ref l.Total;
                long seen = total;
                var copy = l.History.ToArray();
                ref long first = ref copy[0];
                first = seen;
                Span<long> scratch = stackalloc long[4];
                scratch[0] = first;
            });
        }
        """ + Ledger);

    [Fact]
    public Task Does_not_flag_static_helpers_that_read_or_write_copies() => VerifyAsync("""
        class C
        {
            void M(Cown<Ledger> c) => When(Read(c), l =>
            {
                var copy = l.History.ToArray();
                Array.Sort(copy);
                Array.Copy(l.History, copy, 2);
                Random.Shared.Shuffle(copy);
                int at = Array.IndexOf(l.History, 3L) + l.History.AsSpan().IndexOf(4L);
                Console.WriteLine(at + copy.Length);
            });
        }
        """ + Ledger);

    [Fact]
    public Task Does_not_flag_lambda_parameters_that_only_read() => VerifyAsync("""
        class C
        {
            void M(Cown<Ledger> c) => When(Read(c), l =>
            {
                long sum = l.Accounts.Sum(a => a.Balance);
                l.Accounts.ForEach(a => Console.WriteLine(a.Balance + sum));
                var snapshots = l.Accounts.Select(a => new Snapshot(a.Balance, a.Details.Name)).ToList();
                var fresh = new List<Account> { new() };
                fresh.ForEach(a => a.Balance = snapshots.Count);
            });
        }
        """ + Ledger);

    [Fact]
    public Task Does_not_flag_pattern_variables_that_only_read_or_hold_copies() => VerifyAsync("""
        class C
        {
            void M(Cown<Ledger> c) => When(Read(c), l =>
            {
                if (l.Owner is { } owner) Console.WriteLine(owner.Balance);
                if (l.History.ToArray() is [var head, ..]) head++;
                if (l.Owner?.Details.Name is { Length: > 0 } name) Console.WriteLine(name);
            });
        }
        """ + Ledger);
    [Fact]
    public Task Does_not_flag_sequence_methods_and_static_calls_with_mutating_names() => VerifyAsync("""
        class C
        {
            void M(Cown<Ledger> c) => When(Read(c), l =>
            {
                var extended = l.History.Append(5L).ToList();
                int count = l.Accounts.Prepend(new Account()).Count();
                Console.WriteLine(l.Accounts);
                Console.Write(l.Owner);
                Console.WriteLine(extended.Count + count);
            });
        }
        """ + Ledger);
}
