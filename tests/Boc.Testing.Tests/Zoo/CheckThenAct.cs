namespace Boc.Testing.Tests.Zoo;

/// <summary>
/// A check-then-act split over two behaviours: each customer checks the stock in one behaviour and takes the item in
/// another, so both may see the last item before either takes it. The stock goes negative.
/// </summary>
internal static class CheckThenAct
{
    public static ZooCase Case { get; } = new(nameof(CheckThenAct), Buggy, Fixed, BocTestFailureKind.ScenarioFailed);

    private static Task Buggy(BocRuntime rt) => Shop(rt, async stock =>
    {
        bool available = await rt.WhenAsync(stock, s => s.Value > 0);
        if (available)
        {
            await rt.WhenAsync(stock, s => s.Value--);
        }
    });

    // The fix: check and take in one behaviour.
    private static Task Fixed(BocRuntime rt) => Shop(rt, async stock =>
        await rt.WhenAsync(stock, s =>
        {
            if (s.Value > 0)
            {
                s.Value--;
            }
        }));

    private static async Task Shop(BocRuntime rt, Func<Cown<Box>, Task> buy)
    {
        var stock = new Cown<Box>(new Box { Value = 1 });
        var alice = new Cown<Box>(new Box());
        var bob = new Cown<Box>(new Box());

        // Two customers, each a behaviour on its own cown that shops asynchronously.
        rt.When(alice, _ => buy(stock));
        rt.When(bob, _ => buy(stock));
        await rt.WaitForQuiescenceAsync();
        int left = await rt.WhenAsync(stock, s => s.Value);
        if (left < 0)
        {
            throw new ZooBugException($"Stock is {left}: both customers took the last item.");
        }
    }
}
