using Boc;

namespace Boc.Testing.Bench;

/// <summary>
/// The bank-transfer sample as a systematic test: tellers (behaviours on their tallies) issue two-account transfers; at
/// the end the total balance must be conserved and every transfer counted. The same scenario is in docs/testing.md.
/// </summary>
internal static class BankTransferScenario
{
    public const int Tellers = 3;
    public const int TransfersPerTeller = 4;
    public const int Accounts = 4;
    public const long InitialBalance = 100;

    public static async Task Run(BocRuntime rt)
    {
        var accounts = Enumerable.Range(0, Accounts).Select(_ => new Cown<Account>(new Account { Balance = InitialBalance })).ToArray();
        var tallies = Enumerable.Range(0, Tellers).Select(_ => new Cown<Tally>(new Tally())).ToArray();
        for (int t = 0; t < Tellers; t++)
        {
            Cown<Tally> mine = tallies[t];
            int teller = t;
            rt.When(mine, _ =>
            {
                var random = new Random(teller);
                for (int i = 0; i < TransfersPerTeller; i++)
                {
                    int from = random.Next(Accounts);
                    int to = (from + 1 + random.Next(Accounts - 1)) % Accounts;
                    long amount = random.Next(1, 80);
                    rt.When(accounts[from], accounts[to], (src, dst) =>
                    {
                        bool done = src.Balance >= amount;
                        if (done)
                        {
                            src.Balance -= amount;
                            dst.Balance += amount;
                        }

                        rt.When(mine, tally => tally.Count++);
                    });
                }
            });
        }

        await rt.WaitForQuiescenceAsync();
        long total = await rt.WhenAsync(accounts.Select(Cown.Read).ToArray(), all => all.Sum(a => a.Balance));
        long counted = 0;
        foreach (Cown<Tally> tally in tallies)
        {
            counted += await rt.WhenAsync(Cown.Read(tally), t => t.Count);
        }

        if (total != InitialBalance * Accounts || counted != Tellers * TransfersPerTeller)
        {
            throw new InvalidOperationException($"total {total}, counted {counted}");
        }
    }

    internal sealed class Account
    {
        public long Balance { get; set; }
    }

    internal sealed class Tally
    {
        public long Count { get; set; }
    }
}
