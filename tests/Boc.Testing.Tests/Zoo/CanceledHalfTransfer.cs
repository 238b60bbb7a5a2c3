namespace Boc.Testing.Tests.Zoo;

/// <summary>
/// A transfer split across two behaviours inside a request's scope: the debit's body spawns the credit. When the
/// request's deadline passes between the two, the scope withdraws (or refuses) the credit, and the money is gone. Only
/// a scope's cancellation exposes it: without one, the credit always runs after the debit. The fix makes the transfer
/// one behaviour over both accounts, which a cancellation withdraws whole or not at all.
/// </summary>
internal static class CanceledHalfTransfer
{
    public static ZooCase Case { get; } = new(nameof(CanceledHalfTransfer), Buggy, Fixed, BocTestFailureKind.ScenarioFailed);

    private static Task Buggy(BocRuntime rt) => Request(rt, (from, to) =>
        rt.When(from, f =>
        {
            f.Value -= 10;
            rt.When(to, t => t.Value += 10);
        }));

    // The fix: one behaviour, holding both accounts, so it runs whole or is withdrawn whole.
    private static Task Fixed(BocRuntime rt) => Request(rt, (from, to) =>
        rt.When(from, to, (f, t) =>
        {
            f.Value -= 10;
            t.Value += 10;
        }));

    private static async Task Request(BocRuntime rt, Action<Cown<Box>, Cown<Box>> transfer)
    {
        var from = new Cown<Box>(new Box { Value = 100 });
        var to = new Cown<Box>(new Box());
        try
        {
            await using (rt.BeginScope(TimeSpan.FromMilliseconds(10)))
            {
                transfer(from, to);
            }
        }
        catch (TimeoutException)
        {
            // The request timed out; that is allowed, as long as the transfer happened whole or not at all.
        }
        catch (OperationCanceledException)
        {
            // The deadline passed before the transfer was even spawned.
        }

        int total = await rt.WhenAsync(Cown.Read(from), Cown.Read(to), (f, t) => f.Value + t.Value);
        if (total != 100)
        {
            throw new ZooBugException($"the accounts hold {total} after a transfer, not 100: half a transfer was canceled");
        }
    }
}
