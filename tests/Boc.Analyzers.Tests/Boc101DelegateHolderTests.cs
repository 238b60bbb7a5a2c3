using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// BOC101 for values that carry a delegate over the enclosing behaviour's state (issue 47): a <c>Lazy&lt;T&gt;</c>, a
/// record holding a <c>Func</c>, a delegate returned by a helper. Whatever their type's public surface says, they are
/// not copies: the inner behaviour runs the delegate, which reads the outer state without holding its cown.
/// </summary>
public class Boc101DelegateHolderTests
{
    [Fact]
    public Task Flags_a_lazy_over_the_outer_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) => When(src, s =>
            {
                var total = new Lazy<long>(() => s.Balance + s.Counter);
                When(dst, d => d.Balance = {|BOC101:total|}.Value);
                var name = new Lazy<string>(s.ToString);
                When(dst, d => d.Log.Add({|BOC101:name|}.Value));
                long Sum() => s.Balance * 2;
                var sum = new Lazy<long>(Sum);
                When(dst, d => d.Balance += {|BOC101:sum|}.Value);
                Func<long> read = () => s.Balance;
                var viaLocal = new Lazy<long>(read);
                When(dst, d => d.Balance -= {|BOC101:viaLocal|}.Value);
            });
        }
        """);

    [Fact]
    public Task Flags_immutable_looking_holders_of_a_delegate_over_the_outer_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) => When(src, s =>
            {
                var deferred = new Deferred(() => s.Balance);
                When(dst, d => d.Balance = {|BOC101:deferred|}.Compute());
                var job = new Job { Run = () => s.Balance++ };
                When(dst, d => {|BOC101:job|}.Run());
                // ThreadLocal runs its factory later, on each thread that reads it (BOC102), and keeps it (BOC101).
                var local = new ThreadLocal<long>({|BOC102:() => s.Balance|});
                When(dst, d => d.Balance = {|BOC101:local|}.Value);
                var holder = new { Read = (Func<long>)(() => s.Counter) };
                When(dst, d => d.Balance = {|BOC101:holder|}.Read());
                var wrapped = new Wrapper(new Lazy<long>(() => s.Balance));
                When(dst, d => d.Balance = {|BOC101:wrapped|}.Inner.Value);
            });
        }

        sealed record Deferred(Func<long> Compute);

        sealed class Job { public Action Run { get; init; } = () => { }; }

        sealed class Wrapper(Lazy<long> inner) { public Lazy<long> Inner { get; } = inner; }
        """);

    [Fact]
    public Task Flags_delegates_and_comparers_returned_by_calls_given_a_delegate_over_the_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) => When(src, s =>
            {
                var read = Later(() => s.Balance);
                When(dst, d => d.Balance = {|BOC101:read|}());
                var byDistance = Comparer<long>.Create((x, y) => Math.Abs(x - s.Balance).CompareTo(Math.Abs(y - s.Balance)));
                When(dst, d => d.Balance = {|BOC101:byDistance|}.Compare(1, 2));
            });

            static Func<long> Later(Func<long> f) => f;
        }
        """);

    [Fact]
    public Task Flags_anonymous_objects_and_lazies_handed_over_as_the_state_argument() => VerifyAsync("""
        class C
        {
            void M(BocRuntime runtime, Cown<Account> src, Cown<Account> dst) => runtime.When(src, s =>
            {
                var bag = new { s.Log, s.Balance };
                runtime.When(dst, d => d.Log.AddRange({|BOC101:bag|}.Log));
                runtime.When(dst, static (d, l) => d.Balance = l.Value, {|BOC101:new Lazy<long>(() => s.Balance)|});
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_lazies_over_copies_or_evaluated_in_the_outer_body() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) => When(src, s =>
            {
                long balance = s.Balance;
                var total = new Lazy<long>(() => balance * 2);
                When(dst, d => d.Balance = total.Value);
                var now = new Lazy<long>(() => s.Balance);
                long value = now.Value;
                When(dst, d => d.Balance = value);
                var constant = new Lazy<long>(static () => 2);
                When(dst, d => d.Balance = constant.Value);
                var snapshot = new { s.Balance, s.Details.Name };
                When(dst, d => d.Balance = snapshot.Balance + snapshot.Name.Length);
            });
        }
        """);

    [Fact]
    public Task Does_not_flag_results_of_calls_that_ran_the_delegate_before_returning() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) => When(src, s =>
            {
                long sum = s.Log.Sum(x => x.Length + s.Balance);
                var lengths = s.Log.ToDictionary(x => x, x => x.Length + s.Balance);
                var longest = s.Log.OrderBy(x => x.Length - s.Balance).ToList();
                string text = string.Join(",", s.Log.Select(x => x + s.Balance));
                var first = s.Log.First(x => x.Length > s.Balance);
                var total = Evaluate(() => s.Balance);
                var read = Later(() => 42L);
                When(dst, d => d.Balance = sum + lengths.Count + longest.Count + text.Length + first.Length + total.Value + read());
            });

            static Func<long> Later(Func<long> f) => f;

            static Total Evaluate(Func<long> f) => new(f);
        }

        sealed class Total(Func<long> f) { public long Value { get; } = f(); }
        """);

    [Fact]
    public Task Does_not_flag_a_lazy_over_the_inner_behaviours_own_state() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> src, Cown<Account> dst) => When(src, s =>
            {
                s.Counter++;
                When(dst, d =>
                {
                    var own = new Lazy<long>(() => d.Balance);
                    d.Counter = own.Value;
                });
                When(src, dst, (again, d) =>
                {
                    var reacquired = new Lazy<long>(() => again.Balance);
                    d.Balance = reacquired.Value;
                });
            });
        }
        """);
}
