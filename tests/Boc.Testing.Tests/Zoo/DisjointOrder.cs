namespace Boc.Testing.Tests.Zoo;

/// <summary>
/// An order assumed between behaviours on disjoint cowns: "a was updated first, so its log entry comes first". The two
/// updates share no cown, so they are unordered, and so are the log behaviours they spawn.
/// </summary>
internal static class DisjointOrder
{
    public static ZooCase Case { get; } = new(nameof(DisjointOrder), Buggy, Fixed, BocTestFailureKind.ScenarioFailed);

    private static async Task Buggy(BocRuntime rt)
    {
        var a = new Cown<Box>(new Box());
        var b = new Cown<Box>(new Box());
        var log = new Cown<List<string>>([]);
        rt.When(a, x =>
        {
            x.Value = 1;
            rt.When(log, l => l.Add("a"));
        });
        rt.When(b, x =>
        {
            x.Value = 2;
            rt.When(log, l => l.Add("b"));
        });
        await Check(rt, log);
    }

    // The fix: log in the same behaviour as the update. Both now request the log cown, so spawn order holds.
    private static async Task Fixed(BocRuntime rt)
    {
        var a = new Cown<Box>(new Box());
        var b = new Cown<Box>(new Box());
        var log = new Cown<List<string>>([]);
        rt.When(a, log, (x, l) =>
        {
            x.Value = 1;
            l.Add("a");
        });
        rt.When(b, log, (x, l) =>
        {
            x.Value = 2;
            l.Add("b");
        });
        await Check(rt, log);
    }

    private static async Task Check(BocRuntime rt, Cown<List<string>> log)
    {
        await rt.WaitForQuiescenceAsync();
        string order = await rt.WhenAsync(log, l => string.Join(",", l));
        if (order != "a,b")
        {
            throw new ZooBugException($"The log reads {order}, but a was updated first.");
        }
    }
}
