namespace Boc.Testing.Tests;

/// <summary>The example of docs/testing.md: the paper's bank transfer, tested systematically.</summary>
public sealed class BankTransferTests(Xunit.Abstractions.ITestOutputHelper output)
{
    [Fact]
    public async Task Transfers_conserve_money_under_every_explored_schedule()
    {
        BocTestReport report = await BocTest.ExploreAsync(iterations: 1000, rt => Scenario(rt, atomic: true));
        Assert.Equal(1000, report.Iterations);
    }

    [Fact]
    public async Task A_transfer_split_into_withdraw_and_deposit_is_caught_by_a_concurrent_audit()
    {
        BocTestFailureException failure = await Assert.ThrowsAsync<BocTestFailureException>(
            () => BocTest.ExploreAsync(iterations: 1000, rt => Scenario(rt, atomic: false)));

        output.WriteLine(failure.Message);
        Assert.Equal(BocTestFailureKind.ScenarioFailed, failure.Kind);
        BocTestFailureException replayed = Assert.Throws<BocTestFailureException>(
            () => BocTest.Replay(failure.Strategy, failure.Seed, rt => Scenario(rt, atomic: false)));
        Assert.Equal(failure.Trace, replayed.Trace);
    }

    // Two tellers transfer between three accounts while an auditor, a behaviour of its own, takes a snapshot of all
    // accounts at some point: whenever it runs, the total must be intact.
    private static async Task Scenario(BocRuntime rt, bool atomic)
    {
        var bank = new Bank(rt, accounts: 3, balance: 100);
        bank.StartTellers(tellers: 2, transfersEach: 3, atomic);
        var audits = new Cown<List<long>>([]);
        rt.When(audits, _ => bank.Audit(audits));
        await rt.WaitForQuiescenceAsync();
        long[] seen = await rt.WhenAsync(audits, a => a.ToArray());
        Assert.Equal(new[] { 300L }, seen);
    }

    private sealed class Account
    {
        public long Balance { get; set; }
    }

    private sealed class Bank(BocRuntime rt, int accounts, long balance)
    {
        private readonly Cown<Account>[] _accounts =
            Enumerable.Range(0, accounts).Select(a => new Cown<Account>(new Account { Balance = balance }, $"account {a}")).ToArray();

        public void StartTellers(int tellers, int transfersEach, bool atomic)
        {
            for (int t = 0; t < tellers; t++)
            {
                int seed = t;
                rt.When(new Cown<Account>(new Account(), $"teller {t}"), _ =>
                {
                    var random = new Random(seed);
                    for (int i = 0; i < transfersEach; i++)
                    {
                        int from = random.Next(_accounts.Length);
                        int to = (from + 1 + random.Next(_accounts.Length - 1)) % _accounts.Length;
                        if (atomic)
                        {
                            // Listing 5 of the paper: one behaviour on both accounts.
                            rt.When(_accounts[from], _accounts[to], (src, dst) =>
                            {
                                if (src.Balance >= 10)
                                {
                                    src.Balance -= 10;
                                    dst.Balance += 10;
                                }
                            });
                        }
                        else
                        {
                            // The bug: the money is in flight between two behaviours.
                            Cown<Account> destination = _accounts[to];
                            rt.When(_accounts[from], src =>
                            {
                                if (src.Balance >= 10)
                                {
                                    src.Balance -= 10;
                                    rt.When(destination, dst => dst.Balance += 10);
                                }
                            });
                        }
                    }
                });
            }
        }

        // One behaviour reading every account (a consistent snapshot), then recording the total.
        public void Audit(Cown<List<long>> audits) =>
            rt.When(_accounts.Select(Cown.Read).ToArray(), all =>
            {
                long total = all.Sum(a => a.Balance);
                rt.When(audits, a => a.Add(total));
            });
    }
}
