using static Boc.Analyzers.Tests.AnalyzerHarness;

namespace Boc.Analyzers.Tests;

/// <summary>
/// BOC102 for storing methods that take a callback (issue 47): the factories of <c>GetOrAdd</c>, <c>AddOrUpdate</c> and
/// <c>GetOrCreate</c> run inside the call, so what they read is not stored; what they return is.
/// </summary>
public class Boc102StoringCallbackTests
{
    private const string Cache = """

        public interface ICache { }

        public static class CacheExtensions
        {
            public static TItem GetOrCreate<TItem>(this ICache cache, object key, Func<ICache, TItem> factory) => factory(cache);
        }
        """;

    [Fact]
    public Task Does_not_flag_factories_that_read_the_state_to_compute_a_value() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, ConcurrentDictionary<string, long> totals, ConcurrentDictionary<string, List<string>> logs, ICache memo) =>
                When(c, a =>
                {
                    totals.AddOrUpdate(a.Details.Name, a.Balance, (_, old) => old + a.Balance);
                    totals.GetOrAdd(a.Details.Name, k => k.Length + a.Balance);
                    totals.AddOrUpdate(a.Details.Name, _ => a.Log.Count, (_, n) => n + a.Log.Count);
                    totals.GetOrAdd(a.Details.Name, static (_, balance) => balance * 2, a.Balance);
                    totals.GetOrAdd(a.Details.Name, static (_, acc) => acc.Balance, a);
                    logs.GetOrAdd(a.Details.Name, _ => a.Log.ToList());
                    logs.GetOrAdd(a.Details.Name, _ => new List<string>(a.Log.Count));
                    memo.GetOrCreate(a.Details.Name, _ => a.Balance);
                });
        }
        """ + Cache);

    [Fact]
    public Task Flags_factories_that_return_the_state_for_the_call_to_store() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, ConcurrentDictionary<string, List<string>> logs, ConcurrentDictionary<string, Account> accounts, ICache memo) =>
                When(c, a =>
                {
                    logs.GetOrAdd(a.Details.Name, _ => {|BOC102:a.Log|});
                    logs.GetOrAdd(a.Details.Name, _ => { var log = a.Log; return {|BOC102:log|}; });
                    accounts.AddOrUpdate(a.Details.Name, _ => {|BOC102:a|}, (_, _) => {|BOC102:a|});
                    accounts.GetOrAdd(a.Details.Name, static (_, acc) => {|BOC102:acc|}, a);
                    memo.GetOrCreate(a.Details.Name, _ => {|BOC102:a.Tags|});
                });
        }
        """ + Cache);

    [Fact]
    public Task Flags_delegates_and_delegate_holders_over_the_state_that_are_stored_or_returned() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, ConcurrentQueue<Action> pending, ConcurrentDictionary<string, Lazy<long>> totals)
            {
                When(c, a =>
                {
                    pending.Enqueue({|BOC102:() => a.Balance++|});
                    totals.TryAdd(a.Details.Name, {|BOC102:new Lazy<long>(() => a.Balance)|});
                });
            }

            async Task<long> N(Cown<Account> c)
            {
                Func<long> read = await WhenAsync(c, a => {|BOC102:(Func<long>)(() => a.Balance)|});
                Lazy<long> lazy = await WhenAsync(c, a => {|BOC102:new Lazy<long>(() => a.Balance)|});
                return read() + lazy.Value;
            }
        }
        """);

    [Fact]
    public Task Does_not_flag_delegates_over_copies_that_are_stored_or_returned() => VerifyAsync("""
        class C
        {
            void M(Cown<Account> c, ConcurrentQueue<Action> pending, ConcurrentDictionary<string, Lazy<long>> totals)
            {
                When(c, a =>
                {
                    long balance = a.Balance;
                    pending.Enqueue(() => Console.WriteLine(balance));
                    totals.TryAdd(a.Details.Name, new Lazy<long>(() => balance));
                });
            }

            async Task<long> N(Cown<Account> c)
            {
                Func<long> read = await WhenAsync(c, a => { long b = a.Balance; return (Func<long>)(() => b); });
                Lazy<long> lazy = await WhenAsync(c, a => new Lazy<long>(() => 2));
                return read() + lazy.Value;
            }
        }
        """);
}
