namespace Boc.Testing.Tests.Zoo;

/// <summary>
/// Two bodies awaiting each other's cowns: a body on a awaits a behaviour on b while a body on b awaits one on a. If both
/// bodies have started before either inner behaviour was queued, each inner behaviour waits behind the other body: a
/// deadlock. (Each request comes from its own client, so which happens first depends on the schedule.)
/// </summary>
internal static class MutualAwait
{
    public static ZooCase Case { get; } = new(nameof(MutualAwait), Buggy, Fixed, BocTestFailureKind.Deadlock);

    private static async Task Buggy(BocRuntime rt)
    {
        var a = new Cown<Box>(new Box());
        var b = new Cown<Box>(new Box());
        var client1 = new Cown<Box>(new Box());
        var client2 = new Cown<Box>(new Box());
        rt.When(client1, _ => rt.When(a, async x => x.Value += await rt.WhenAsync(b, y => y.Value + 1)));
        rt.When(client2, _ => rt.When(b, async y => y.Value += await rt.WhenAsync(a, x => x.Value + 1)));
        await rt.WaitForQuiescenceAsync();
    }

    // The fix: one behaviour acquires both cowns; nothing is awaited while a cown is held.
    private static async Task Fixed(BocRuntime rt)
    {
        var a = new Cown<Box>(new Box());
        var b = new Cown<Box>(new Box());
        var client1 = new Cown<Box>(new Box());
        var client2 = new Cown<Box>(new Box());
        rt.When(client1, _ => rt.When(a, b, (x, y) => x.Value += y.Value + 1));
        rt.When(client2, _ => rt.When(b, a, (y, x) => y.Value += x.Value + 1));
        await rt.WaitForQuiescenceAsync();
    }
}
