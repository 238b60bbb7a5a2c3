using BenchmarkDotNet.Attributes;

namespace Boc.Benchmarks.Micro;

/// <summary>
/// What a request handler pays for one uncontended critical section over a customer and three seats, called from a
/// thread outside the runtime (BenchmarkDotNet's, which has no synchronization context): ordered monitors, against an
/// awaited Boc spawn over the same four resources, which runs inline (the body on the calling thread, the awaitable
/// complete on return; InlineRunTests check that it does). The body is the same small update in every variant. Per
/// call, one calling thread, nothing contended.
/// </summary>
[Config(typeof(MicroConfig))]
public class CriticalSectionBenchmarks
{
    private readonly Account[] _seatStates = [new(), new(), new()];
    private readonly Account _customerState = new();
    private BocRuntime _pool = null!;
    private BocRuntime _scheduler = null!;
    private Cown<Account> _customer = null!;
    private Cown<Account> _seat1 = null!;
    private Cown<Account> _seat2 = null!;
    private Cown<Account> _seat3 = null!;
    private IAcquirable<Account>[] _seats = null!;

    [GlobalSetup]
    public void Setup()
    {
        _pool = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.ThreadPool });
        _scheduler = new BocRuntime(new BocRuntimeOptions { Dispatcher = BocDispatcher.BocScheduler });
        _customer = new Cown<Account>(new Account());
        (_seat1, _seat2, _seat3) = (new Cown<Account>(new Account()), new Cown<Account>(new Account()), new Cown<Account>(new Account()));
        _seats = [_seat1, _seat2, _seat3];
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _pool.Dispose();
        _scheduler.Dispose();
    }

    [Benchmark(Baseline = true, Description = "ordered lock (4 monitors)")]
    public long OrderedLocks()
    {
        // The lock version's discipline: the customer first, then the seats in ascending order.
        lock (_customerState)
        {
            lock (_seatStates[0])
            {
                lock (_seatStates[1])
                {
                    lock (_seatStates[2])
                    {
                        return Book(_customerState, _seatStates[0], _seatStates[1], _seatStates[2], 10);
                    }
                }
            }
        }
    }

    [Benchmark(Description = "Boc WhenAsync(c, s1, s2, s3), inline")]
    public long FourCowns() =>
        Completed(_pool.WhenAsync(_customer, _seat1, _seat2, _seat3, static (c, a, b, d, price) => Book(c, a, b, d, price), 10L));

    [Benchmark(Description = "Boc WhenAsync(c, seats[3]), inline")]
    public long DynamicSet() =>
        Completed(_pool.WhenAsync(_customer, _seats, static (c, s, price) => Book(c, s[0], s[1], s[2], price), 10L));

    [Benchmark(Description = "Boc WhenAsync(c, seats[3]), inline, BocScheduler runtime")]
    public long DynamicSetOnScheduler() =>
        Completed(_scheduler.WhenAsync(_customer, _seats, static (c, s, price) => Book(c, s[0], s[1], s[2], price), 10L));

    // An inline run has completed when WhenAsync returns. A build without inline runs (bench-before-after.sh against an
    // older commit) dispatches the body and waits for it here: that is the hop the inline run saves.
    private static long Completed(ValueTask<long> done) =>
        done.IsCompleted ? done.Result : done.AsTask().GetAwaiter().GetResult();

    private static long Book(Account customer, Account a, Account b, Account c, long price)
    {
        a.Balance++;
        b.Balance++;
        c.Balance++;
        customer.Balance -= 3 * price;
        return customer.Balance;
    }

    public sealed class Account
    {
        public long Balance { get; set; }
    }
}
