namespace Boc.Testing.Tests.Zoo;

/// <summary>
/// An order assumed between a nested spawn and a later spawn of the outer code: the handler spawns the audit entry
/// (which credits the welcome bonus to the account), then opens the account, assuming "the account is opened right
/// away, long before the audit gets round to the bonus". But the audit may run, and spawn the bonus on the account,
/// before the handler has spawned the opening: then the bonus comes first on the account, which is not open yet and
/// rejects it. Found only where a spawn is a scheduling point (the handler paused between its two spawns).
/// </summary>
internal static class NestedSpawnOrder
{
    public static ZooCase Case { get; } = new(nameof(NestedSpawnOrder), Buggy, Fixed, BocTestFailureKind.ScenarioFailed);

    private static async Task Buggy(BocRuntime rt)
    {
        var audit = new Cown<List<string>>([]);
        var account = new Cown<Account>(new Account());
        rt.When(audit, log =>
        {
            log.Add("account opened");
            rt.When(account, a => a.Deposit(10));   // the welcome bonus
        });
        rt.When(account, a => a.Open());
        await Check(rt, account);
    }

    // The fix: open first. The bonus is spawned by the audit body, which starts only after its own spawn, which comes
    // after the opening's spawn: spawn order on the account now holds.
    private static async Task Fixed(BocRuntime rt)
    {
        var audit = new Cown<List<string>>([]);
        var account = new Cown<Account>(new Account());
        rt.When(account, a => a.Open());
        rt.When(audit, log =>
        {
            log.Add("account opened");
            rt.When(account, a => a.Deposit(10));
        });
        await Check(rt, account);
    }

    private static async Task Check(BocRuntime rt, Cown<Account> account)
    {
        await rt.WaitForQuiescenceAsync();
        int balance = await rt.WhenAsync(account, a => a.Balance);
        if (balance != 10)
        {
            throw new ZooBugException($"The balance is {balance}, not the bonus of 10: the bonus came before the account was open.");
        }
    }

    internal sealed class Account
    {
        private bool _open;

        public int Balance { get; private set; }

        public void Open() => _open = true;

        public void Deposit(int amount)
        {
            // A closed account rejects deposits (the money goes back to the bank).
            if (_open)
            {
                Balance += amount;
            }
        }
    }
}
