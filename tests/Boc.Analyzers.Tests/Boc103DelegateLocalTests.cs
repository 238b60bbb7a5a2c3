using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// A lambda held in a local (<c>Func&lt;int&gt; next = () =&gt; ++seq;</c>) that a body calls runs inside the behaviour, as a
/// local function the body calls does: what it writes is shared when something else runs it too (another spawn, the
/// spawning code after the spawn, another function) or uses what it writes (issue 62).
/// </summary>
public class Boc103DelegateLocalTests
{
    [Fact]
    public Task A_counter_lambda_called_by_two_spawns_is_reported_at_each_call() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account> d)
            {
                int seq = 0;
                Func<int> next = () => ++seq;
                When(c, a => a.Balance = {|BOC103:next()|});
                When(d, a => a.Balance = {|BOC103:next.Invoke()|});
            }
        }
        """);

    [Fact]
    public Task A_lambda_shared_with_the_spawning_code_or_whose_variable_is_read_after_is_reported() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account>[] cowns)
            {
                var log = new List<long>();
                Action<long> note = x => log.Add(x);
                When(c, a => {|BOC103:note(a.Balance)|});
                note(0);

                int hits = 0;
                Action hit = () => hits++;
                When(c, a => { {|BOC103:hit()|}; a.Balance++; });
                Console.WriteLine(hits);

                int seq = 0;
                Func<int> next = () => ++seq;
                foreach (var each in cowns)
                {
                    When(each, a => a.Balance = {|BOC103:next()|});
                }

                var names = new List<string>();
                Action<string> keep = s => names.Add(s);
                When(c, a => a.Log.ForEach({|BOC103:keep|}));
                When(cowns[0], a => a.Log.ForEach({|BOC103:keep|}));
            }
        }
        """);

    [Fact]
    public Task A_lambda_that_blocks_blocks_the_behaviour_that_calls_it() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c)
            {
                Action pause = () => Thread.Sleep(10);
                When(c, a => { {|BOC201:pause()|}; a.Balance++; });
            }
        }
        """);

    [Fact]
    public Task A_lambda_used_by_one_spawn_only_or_touching_nothing_shared_is_not_reported() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, Cown<Account> d)
            {
                int seq = 0;
                Func<int> next = () => ++seq;
                When(c, a => a.Balance = next());

                const int Cap = 10;
                string prefix = "n";
                Func<long, long> clamp = v => Math.Min(v, Cap);
                Func<Account, string> label = a => prefix + a.Balance;
                When(c, a => a.Balance = clamp(a.Balance));
                When(d, a => a.Details.Name = label(a) + clamp(a.Balance));

                Func<List<long>> fresh = () => new List<long> { 1 };
                When(c, a => a.Balance = fresh().Count);
                When(d, a => a.Balance = fresh().Count);

                When(c, a =>
                {
                    int own = 0;
                    Func<int> step = () => ++own;
                    a.Balance = step() + step();
                });
            }
        }
        """);
}
