namespace Boc.Testing.Tests.Zoo;

/// <summary>
/// A lost update through state shared outside cowns (the Boc analyzer reports such captures): two bodies on disjoint
/// cowns read a shared counter, await, and write it back. Both may read the same value.
/// </summary>
internal static class LostUpdate
{
    public static ZooCase Case { get; } = new(nameof(LostUpdate), Buggy, Fixed, BocTestFailureKind.ScenarioFailed);

    private static async Task Buggy(BocRuntime rt)
    {
        var a = new Cown<Box>(new Box());
        var b = new Cown<Box>(new Box());
        var hits = new Box();
        foreach (Cown<Box> cown in new[] { a, b })
        {
#pragma warning disable BOC101, BOC102, BOC103, BOC104 // The bug on purpose: mutable state captured outside a cown.
            rt.When(cown, async _ =>
            {
                int seen = hits.Value;
                await Task.Yield();
                hits.Value = seen + 1;
            });
#pragma warning restore BOC101, BOC102, BOC103, BOC104
        }

        await rt.WaitForQuiescenceAsync();
        if (hits.Value != 2)
        {
            throw new ZooBugException($"Two increments, but the counter is {hits.Value}.");
        }
    }

    // The fix: the counter is a cown, acquired by both behaviours.
    private static async Task Fixed(BocRuntime rt)
    {
        var a = new Cown<Box>(new Box());
        var b = new Cown<Box>(new Box());
        var hits = new Cown<Box>(new Box());
        foreach (Cown<Box> cown in new[] { a, b })
        {
            rt.When(cown, hits, async (_, h) =>
            {
                int seen = h.Value;
                await Task.Yield();
                h.Value = seen + 1;
            });
        }

        await rt.WaitForQuiescenceAsync();
        int total = await rt.WhenAsync(hits, h => h.Value);
        if (total != 2)
        {
            throw new ZooBugException($"Two increments, but the counter is {total}.");
        }
    }
}
